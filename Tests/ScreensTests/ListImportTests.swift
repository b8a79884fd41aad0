import FilterLists
import Foundation
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Screens

/// Your own lists and categories in the screen model the app and the console bind: a file
/// picked or opened in Pepper is copied into the home before it is added, added through the
/// console's upload action, and its report (rules in, out, skipped with reasons) comes back;
/// categories are chosen per list with a sentence that says what is blocked.
@Suite("Lists screen: files and categories")
struct ListImportTests {
    /// A file outside the home, as the document picker or the share sheet gives one.
    static func outsideFile(_ name: String, _ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-shared-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func aPickedFileIsCopiedIntoTheHomeThenAddedWithItsReport() async throws {
        let temporary = TemporaryState()
        let screen = ListsScreen(state: temporary.state)
        let text = "! Title: Mine\n||picked.example^\n##.sponsored-box\nexample.com##+js(nowebrtc)\n"
        let picked = try Self.outsideFile("My Picks.txt", text)
        defer { try? FileManager.default.removeItem(at: picked.deletingLastPathComponent()) }

        let staged = try await screen.stage(picked)
        #expect(staged.fileName == "My Picks.txt" && staged.suggestedName == "my-picks" && staged.bytes == text.utf8.count)
        let incoming = ListFileImport.incomingFolder(home: temporary.home).path + "/"
        #expect(staged.staged.path.hasPrefix(incoming), "copied into the home (the app group on iOS)")
        // The picker's address stops working once it is over: the copy is what is added.
        try FileManager.default.removeItem(at: picked)

        let taken = await screen.add(staged, name: "easylist")
        #expect(taken.notice.isError && taken.notice.field == "name" && taken.list == nil, "\(taken.notice)")
        #expect(FileManager.default.fileExists(atPath: staged.staged.path), "a refused add keeps the copy for another try")

        let added = await screen.add(staged)
        #expect(added.notice.kind == .success && added.notice.text.hasPrefix("Added my-picks (2 rules)."), "\(added.notice)")
        let report = try #require(added.list)
        #expect(report.name == "my-picks" && report.enabled)
        // Rules in counts every rule line the compiler was given, the skipped scriptlet too.
        #expect(report.rulesIn == 3 && report.rulesOut == 2, "\(report)")
        #expect(report.skipped == [ListsScreen.Skipped(reason: SkipReason.scriptlet.rawValue, count: 1)])
        #expect(report.categories == nil, "a filter list has no categories")
        #expect(!FileManager.default.fileExists(atPath: staged.staged.path), "added: the staged copy is gone")
        #expect(FileManager.default.fileExists(atPath: temporary.home.url.appendingPathComponent("uploads/my-picks.txt").path))
        #expect(try temporary.state.check("https://picked.example/x.js").decision == .blocked)
    }

    @Test func aFileThatCannotBeAListIsRefusedBeforeItIsCopied() async throws {
        let temporary = TemporaryState()
        let screen = ListsScreen(state: temporary.state)
        let empty = try Self.outsideFile("empty.txt", "")
        let folder = empty.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = folder.appendingPathComponent("huge.txt")
        // Sparse: its size says it is too large without 17 MB being written or read.
        FileManager.default.createFile(atPath: large.path, contents: nil)
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(PepperState.maximumUploadBytes + 1))
        try handle.close()

        for (url, words) in [
            (empty, "the file is empty"), (large, "more than the 16 MB limit"), (folder, "is a directory"),
            (folder.appendingPathComponent("missing.txt"), "no such file"),
        ] {
            await #expect {
                _ = try await screen.stage(url)
            } throws: { error in
                guard let notice = error as? Notice else { return false }
                return notice.isError && notice.field == "file" && notice.text.contains(words)
            }
        }
        let incoming = ListFileImport.incomingFolder(home: temporary.home)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: incoming.path)) ?? []).isEmpty, "nothing was copied")
    }

    @Test func stagedCopiesNotAddedAreDiscardedOrSweptAfterADay() async throws {
        let temporary = TemporaryState()
        let screen = ListsScreen(state: temporary.state)
        let file = try Self.outsideFile("a.txt", "||a.example^\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let first = try await screen.stage(file)
        let second = try await screen.stage(file)
        await screen.discard(first)
        #expect(!FileManager.default.fileExists(atPath: first.staged.path))
        // A value naming a file elsewhere never removes it.
        var forged = second
        forged.staged = file
        await screen.discard(forged)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // The next import, a day and a bit later, removes the copy nobody added.
        _ = try await screen.stage(file, now: Date().addingTimeInterval(ListFileImport.staleAfter + 60))
        #expect(!FileManager.default.fileExists(atPath: second.staged.path))

        let documents = URL(fileURLWithPath: "/var/mobile/Containers/Data/Application/X/Documents")
        #expect(ListFileImport.isInboxCopy(documents.appendingPathComponent("Inbox/list.txt"), documents: documents))
        #expect(!ListFileImport.isInboxCopy(documents.appendingPathComponent("list.txt"), documents: documents))
        #expect(!ListFileImport.isInboxCopy(URL(fileURLWithPath: "/private/var/mobile/Inbox/list.txt"), documents: documents))
    }

    /// "Open in Pepper": the app's Info.plist (Apple/project.yml) declares the text type the
    /// document picker offers, as a viewer, and opens documents in place (their address is
    /// security-scoped, hence the copy into the home).
    @Test func theAppDeclaresTheTextListsItOpens() throws {
        let project = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Apple/project.yml"),
            encoding: .utf8)
        let lines = project.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "CFBundleDocumentTypes:" })
        let indent = lines[start].prefix { $0 == " " }.count
        let block = lines[(start + 1)...].prefix { $0.prefix { $0 == " " }.count > indent }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(block.contains("LSItemContentTypes: [\(ListFileImport.contentTypes[0])]"), "\(block)")
        #expect(block.contains("CFBundleTypeRole: Viewer") && block.contains("LSHandlerRank: Alternate"))
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "LSSupportsOpeningDocumentsInPlace: true" })
        #expect(ListFileImport.contentTypes == ["public.plain-text", "public.json"])
    }

    @Test func categoriesAreChosenPerListWithASentenceThatSaysWhatIsBlocked() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let screen = ListsScreen(state: state)
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        let services = """
            {"categories": {
              "Advertising": [{"AdCo": {"https://adco.example/": ["adco.example"]}}],
              "Content": [{"VideoCo": {"https://video.example/": ["video.example"]}}]
            }}
            """
        let added = await screen.uploading(Data(services.utf8), fileName: "services.json")
        let report = try #require(added.list, "\(added.notice)")
        let categories = try #require(report.categories)
        #expect(categories.offered?.map(\.name) == ["Advertising", "Content"] && categories.chosen == ["Advertising"])

        let chose = await screen.chooseCategories(["Content"], for: "services")
        #expect(chose.kind == .success && chose.text.hasPrefix("services blocks 1 of its 2 categories: Content."), "\(chose)")
        #expect(try await screen.load().lists.first { $0.name == "services" }?.categories?.chosen == ["Content"])
        let none = await screen.chooseCategories([], for: "services")
        #expect(none.isError && none.field == "categories" && none.text.contains("at least one category"), "\(none)")
        let unknown = await screen.chooseCategories(["Weather"], for: "services")
        #expect(unknown.isError && unknown.text.contains("'Weather' is not one of its categories (Advertising, Content)"), "\(unknown)")
        let back = await screen.useDefaultCategories(for: "services")
        #expect(back.kind == .success && back.text.hasPrefix("services blocks its default categories (1 of 2)."), "\(back)")
        #expect(await screen.chooseCategories(["Content"], for: "easylist").isError, "a filter list has no categories")
        #expect(try await screen.load().lists.first { $0.name == "easylist" }?.categories == nil)
    }
}
