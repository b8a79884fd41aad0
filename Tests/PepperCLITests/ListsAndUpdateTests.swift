import ContentBlocker
import Foundation
import PepperTestSupport
import Storage
import Testing

/// `pepper lists` and `pepper update` as a user runs them, against a list server on loopback.
@Suite("pepper lists and update", .serialized)
struct ListsAndUpdateTests {
    static let listA = "[Adblock Plus 2.0]\n! Title: A\n||ads-a.example^\n||track-a.example^\n"
    static let listB = "# domains\nbad-b.example\nworse-b.example\n"

    func manifest(_ home: URL) throws -> Manifest {
        try Manifest.decode(Data(contentsOf: home.appendingPathComponent("out/manifest.json")))
    }

    @Test func listsCommandsManageTheCatalogueAndRecompile() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("My List.txt")
        try Data(Self.listA.utf8).write(to: file)

        let listed = try await PepperProcess.run(["lists", "list", "--json"], home: home)
        let names = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.compactMap {
            $0["name"] as? String
        }
        #expect(names == ["easylist", "easyprivacy", "duckduckgo-tds", "disconnect"])

        let added = try await PepperProcess.run(["lists", "add", file.path], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Added my-list (2 rules)"))
        #expect(try manifest(home).sources.map(\.name) == ["my-list"], "the new list takes effect at once")

        #expect(try await PepperProcess.run(["lists", "disable", "my-list"], home: home).status == 0)
        #expect(try manifest(home).sources.map(\.name) == ["pepper-starter"], "no enabled list with a copy: the starter list")
        #expect(try await PepperProcess.run(["lists", "enable", "my-list"], home: home).status == 0)
        #expect(try manifest(home).sources.map(\.name) == ["my-list"])

        let builtIn = try await PepperProcess.run(["lists", "remove", "easylist"], home: home)
        #expect(builtIn.status == 1)
        #expect(builtIn.stderr.contains("built in"))
        #expect(try await PepperProcess.run(["lists", "add", file.path, "--name", "Bad Name"], home: home).status == 64)
        let duplicate = try await PepperProcess.run(["lists", "add", file.path], home: home)
        #expect(duplicate.status == 1)

        let junk = home.appendingPathComponent("junk.bin")
        try Data([0x00, 0x01, 0x02, 0x03]).write(to: junk)
        let refused = try await PepperProcess.run(["lists", "add", junk.path], home: home)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not added"))
        #expect(!(try await PepperProcess.run(["lists", "list"], home: home).stdout.contains("junk")))

        #expect(try await PepperProcess.run(["lists", "remove", "my-list"], home: home).status == 0)
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/my-list").path))
    }

    /// `pepper lists categories` and `pepper lists enable --categories` with the real Tracker
    /// Radar dataset: the categories shown, a choice stored and followed by `pepper check`, a
    /// name refused with the list's categories, and `--help` that explains.
    @Test func categoriesAreShownAndChosenOnTheCommandLine() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for name in ["easylist", "easyprivacy"] { _ = try await PepperProcess.run(["lists", "disable", name, "--no-compile"], home: home) }
        let added = try await PepperProcess.run(
            ["lists", "add", TestData.trackerRadar.path, "--name", "tds", "--format", "tds"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        // amplitude.com is an Analytics tracker, adthrive.com an Advertising one.
        func blocked(_ host: String) async throws -> Bool {
            let check = try await PepperProcess.run(
                ["check", "https://\(host)/t.js", "--source", "https://news.example/", "--type", "script"], home: home)
            return check.stdout.hasPrefix("BLOCKED")
        }
        #expect(try await blocked("amplitude.com"))
        #expect(try await blocked("adthrive.com"))

        let shown = try await PepperProcess.run(["lists", "categories", "tds"], home: home)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("tds: 23 of 23 categories blocked (the default)\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("blocked  No category") && shown.stdout.contains("2,549 domains"))

        let set = try await PepperProcess.run(["lists", "categories", "tds", "--set", "advertising, Session Replay"], home: home)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.hasPrefix("tds: 2 of 23 categories blocked\n"), "\(set.stdout)")
        #expect(set.stdout.contains("blocked  Advertising") && set.stdout.contains("-        Analytics"))
        #expect(try await !blocked("amplitude.com"), "the choice is compiled at once")
        #expect(try await blocked("adthrive.com"))
        let listed = try await PepperProcess.run(["lists", "list", "--json"], home: home)
        let sources = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(sources.first { $0["name"] as? String == "tds" }?["categories"] as? [String] == ["Advertising", "Session Replay"])

        // The same choice through `enable --categories`, and a refused name changes nothing.
        let enabled = try await PepperProcess.run(["lists", "enable", "tds", "--categories", "Analytics"], home: home)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try await blocked("amplitude.com"))
        #expect(try await !blocked("adthrive.com"))
        let refused = try await PepperProcess.run(["lists", "enable", "tds", "--categories", "Analytics,Weather"], home: home)
        #expect(
            refused.status == 1 && refused.stderr.contains("'Weather' is not one of its categories (Action Pixels, "), "\(refused.stderr)")
        #expect(try await blocked("amplitude.com"))
        #expect(try await !blocked("adthrive.com"))
        let back = try await PepperProcess.run(["lists", "categories", "tds", "--default"], home: home)
        #expect(back.stdout.hasPrefix("tds: 23 of 23 categories blocked (the default)"), "\(back.stdout)")
        #expect(try await blocked("adthrive.com"))

        // Lists without categories, or not downloaded yet, and a contradictory command.
        let filterList = try await PepperProcess.run(["lists", "categories", "easylist"], home: home)
        #expect(filterList.status == 1 && filterList.stderr.contains("has no categories"), "\(filterList.stderr)")
        let notYet = try await PepperProcess.run(["lists", "categories", "duckduckgo-tds"], home: home)
        #expect(notYet.status == 1 && notYet.stderr.contains("`pepper lists enable duckduckgo-tds` downloads it"), "\(notYet.stderr)")
        #expect(try await PepperProcess.run(["lists", "categories", "tds", "--set", "Advertising", "--default"], home: home).status == 64)

        // The help, with its line breaks taken out.
        func help(_ command: [String]) async throws -> String {
            try await PepperProcess.run(command + ["--help"], home: home).stdout.split(whereSeparator: \.isWhitespace).joined(
                separator: " ")
        }
        let categoriesHelp = try await help(["lists", "categories"])
        #expect(categoriesHelp.contains(#"they are the category "No category""#), "\(categoriesHelp)")
        #expect(categoriesHelp.contains("Social), not Content") && categoriesHelp.contains("nor by `pepper dns serve`"))
        let enableHelp = try await help(["lists", "enable"])
        #expect(enableHelp.contains("For Tracker Radar and Disconnect lists: the categories to block"), "\(enableHelp)")
    }

    @Test func anExpiredAllowlistEntryIsCompiledAwayByTheNextUpdate() async throws {
        let server = try ListServer(routes: ["/a.txt": .init(body: Self.listA, etag: true)])
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        // Only the local list: the built-in ones would be downloaded from the internet.
        for name in ["easylist", "easyprivacy"] { _ = try await PepperProcess.run(["lists", "disable", name, "--no-compile"], home: home) }
        #expect(
            try await PepperProcess.run(["lists", "add", "http://127.0.0.1:\(server.port)/a.txt", "--name", "a"], home: home).status == 0)
        #expect(try await PepperProcess.run(["allowlist", "add", "shop.example", "--for", "2s"], home: home).status == 0)
        #expect(try manifest(home).allowlist == ["shop.example"])

        // Two seconds pass (told to the state rather than slept through: its expiry is moved to
        // the past). Nothing changed upstream: only the lapsed entry calls for a new compilation.
        try AllowlistStore(database: PepperDatabase(home: PepperHome(url: home))).add(
            "shop.example", expiresAt: Date().addingTimeInterval(-1))
        let update = try await PepperProcess.run(["update"], home: home)
        #expect(update.status == 0, "\(update.stderr)")
        #expect(!update.stdout.contains("updated"), "\(update.stdout)")
        #expect(try manifest(home).allowlist == [], "the expired entry no longer applies")

        let again = try await PepperProcess.run(["update"], home: home)
        #expect(!again.stderr.contains("Compiled"), "an up-to-date output is left alone: \(again.stderr)")
    }

    @Test func updateDownloadsWhatChangedAndKeepsTheLastGoodCopyOnFailure() async throws {
        let server = try ListServer(routes: ["/a.txt": .init(body: Self.listA, etag: true), "/b.txt": .init(body: Self.listB, etag: true)])
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for name in ["a", "b"] {
            let added = try await PepperProcess.run(
                ["lists", "add", server.url("/\(name).txt"), "--name", name, "--no-compile"], home: home)
            #expect(added.status == 0, "\(added.stderr)")
        }
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        let first = try await PepperProcess.run(["update"], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("a: up to date until"), "just added, so not due: \(first.stdout)")
        #expect(try manifest(home).sources.map(\.name) == ["a", "b"])

        // A changed list and a failing one.
        try server.set([
            "/a.txt": .init(body: Self.listA + "||new-a.example^\n", etag: true), "/b.txt": .init(body: "down", status: 500),
        ])
        let second = try await PepperProcess.run(["update", "--force", "--attempts", "1"], home: home)
        #expect(second.status == 1, "a failed list makes the update fail")
        #expect(second.stdout.contains("a: updated"))
        #expect(second.stdout.contains("b: FAILED: HTTP 500; keeping the last good copy"))
        let rules = try WebKitRuleJSON.decode(Data(contentsOf: home.appendingPathComponent("out/blocker-1.json")))
        #expect(rules.contains { $0.trigger.urlFilter.contains("new-a") }, "the new rules take effect at once")
        #expect(rules.contains { $0.trigger.urlFilter.contains("bad-b") }, "the failed list's last good copy is still used")
        let lists = try await PepperProcess.run(["lists", "list"], home: home)
        #expect(lists.stdout.contains("last error: HTTP 500"))

        // Nothing changed: a conditional request each, and the output stays as it is.
        try server.set([
            "/a.txt": .init(body: Self.listA + "||new-a.example^\n", etag: true), "/b.txt": .init(body: Self.listB, etag: true),
        ])
        server.clearLog()
        let third = try await PepperProcess.run(["update", "--force"], home: home)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("a: not modified"))
        #expect(server.requests.allSatisfy { $0.ifNoneMatch != nil })
    }

    @Test func aSecondUpdateWaitsOrSaysOneIsRunning() async throws {
        let server = try ListServer(routes: ["/slow.txt": .init(body: Self.listA, delay: 2.5)])
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        #expect(
            try await PepperProcess.run(["lists", "add", server.url("/slow.txt"), "--name", "slow", "--no-compile"], home: home).status == 0
        )

        // `lists add` fetched the list once already: only the update's own request counts below.
        server.clearLog()
        let first = Process()
        first.executableURL = PepperProcess.executable
        first.arguments = ["update", "--force"]
        first.environment = ["PEPPER_HOME": home.path]
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        // The first update holds the update lock once it is downloading (the list takes 2.5 s to come).
        let deadline = Date().addingTimeInterval(60)
        while !server.requests.contains(where: { $0.path == "/slow.txt" }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(server.requests.contains { $0.path == "/slow.txt" }, "the first update never asked for the list")
        let busy = try await PepperProcess.run(["update", "--no-wait"], home: home)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("another update is running (pid \(first.processIdentifier))"))
        let waiting = try await PepperProcess.run(["update"], home: home)
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(waiting.stderr.contains("waiting for it to finish"))
        #expect(await first.exited() == 0)
    }
}
