import ContentBlocker
import Crypto
import FilterLists
import Foundation
import PepperTestSupport
import Testing

@testable import ListSync
@testable import Storage

/// Every update outcome, against a real HTTP server on loopback.
@Suite("List updates over HTTP", .serialized)
struct ListUpdaterTests {
    static let listV1 = "[Adblock Plus 2.0]\n! Title: Test\n||ads.example^\n||tracker.example^\n"
    static let listV2 = "[Adblock Plus 2.0]\n! Title: Test\n||ads.example^\n||tracker.example^\n||new.example^\n"

    struct Fixture {
        let home: PepperHome
        let database: PepperDatabase
        let server: ListServer

        init(routes: [String: ListServer.Route]) throws {
            home = PepperHome(
                url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-upd-\(UUID().uuidString.prefix(8))"))
            try home.prepare()
            database = try PepperDatabase(home: home)
            server = try ListServer(routes: routes)
        }

        func updater(attempts: Int = 1, idleTimeout: Double = 5, maximumBytes: Int = 1_000_000) -> ListUpdater {
            ListUpdater(
                home: home, database: database,
                downloader: ListDownloader(
                    policy: .init(
                        maximumBytes: maximumBytes, idleTimeout: idleTimeout, totalTimeout: 20, attempts: attempts, initialBackoff: 0.05)))
        }

        func addSource(_ path: String, name: String = "test", format: String = "abp") throws -> ListSource {
            try ListSourceStore(database: database).insert(ListSource(name: name, location: server.url(path), format: format))
        }

        func source(_ name: String = "test") throws -> ListSource {
            try #require(try ListSourceStore(database: database).source(named: name))
        }

        func copy(_ name: String = "test") -> String? {
            (try? Data(contentsOf: home.listsURL.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func etagMakesTheSecondUpdateConditional() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, etag: true)])
        let source = try fixture.addSource("/list.txt")
        let first = try await fixture.updater().update(source, force: true)
        #expect(first.status == .updated(bytes: Self.listV1.utf8.count, viaPatch: false))
        #expect(first.rules == 2)
        let stored = try fixture.source()
        #expect(stored.etag != nil)
        let second = try await fixture.updater().update(stored, force: true)
        #expect(second.status == .notModified)
        #expect(fixture.server.requests.last?.ifNoneMatch == stored.etag)
        #expect(fixture.copy() == Self.listV1)
    }

    @Test func lastModifiedMakesTheSecondUpdateConditional() async throws {
        let date = "Sun, 22 Nov 2026 05:00:00 GMT"
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, lastModified: date)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        let second = try await fixture.updater().update(try fixture.source(), force: true)
        #expect(second.status == .notModified)
        #expect(fixture.server.requests.last?.ifModifiedSince == date)
    }

    @Test func changedListReplacesTheCopy() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, etag: true)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        try fixture.server.set(["/list.txt": .init(body: Self.listV2, etag: true)])
        let report = try await fixture.updater().update(try fixture.source(), force: true)
        #expect(report.status == .updated(bytes: Self.listV2.utf8.count, viaPatch: false))
        #expect(fixture.copy() == Self.listV2)
        #expect(try fixture.source().sha256 == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(Self.listV2.utf8)))
    }

    /// A process killed between storing a copy and recording it leaves a copy the record does
    /// not describe. When the server then sends those very bytes, the record must be rewritten
    /// (ETag and hash), not kept: the output would otherwise pair the copy with another copy's
    /// ETag. (Found by the kill test: trial 32 of one CI run.)
    @Test func aCopyTheRecordDoesNotDescribeGetsItsRecordRewritten() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, etag: true)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        let recordedV1 = try fixture.source()
        // As if an update to V2 was killed after writing the copy, before recording it.
        try Data(Self.listV2.utf8).write(to: fixture.home.listsURL.appendingPathComponent("test"))
        try fixture.server.set(["/list.txt": .init(body: Self.listV2, etag: true)])
        let report = try await fixture.updater().update(recordedV1, force: true)
        #expect(report.status == .updated(bytes: Self.listV2.utf8.count, viaPatch: false))
        #expect(fixture.server.requests.last?.ifNoneMatch == nil, "the record's validators describe another copy")
        let rewritten = try fixture.source()
        #expect(rewritten.sha256 == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(Self.listV2.utf8)))
        #expect(rewritten.etag != nil && rewritten.etag != recordedV1.etag, "the ETag of the bytes now stored")
        // And from then on the update is conditional again.
        #expect(try await fixture.updater().update(rewritten, force: true).status == .notModified)
    }

    /// An update killed after committing a new copy's record and before moving the copy in
    /// place (a window too narrow for the kill test to hit often): the record names the pending
    /// copy, which every reader uses, and the next update puts it in place. A pending copy the
    /// record does not name (killed before the commit) is not used.
    @Test func aCommittedCopyNotYetInPlaceIsTheOneUsedAndTheNextUpdateSettlesIt() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, etag: true)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        let pending = ListCopies.pendingURL("test", home: fixture.home)

        // Killed before the commit: the record still describes V1, and V1 is what is read.
        try Data(Self.listV2.utf8).write(to: pending)
        #expect(ListCopies.read(try fixture.source(), home: fixture.home) == Data(Self.listV1.utf8))
        ListCopies.settle([try fixture.source()], home: fixture.home)
        #expect(fixture.copy() == Self.listV1, "a pending copy without its record is not put in place")

        // Killed after the commit: the record describes V2, the pending copy.
        var record = try fixture.source()
        record.sha256 = ContentBlockerOutput.SourceIdentity.sha256Hex(Data(Self.listV2.utf8))
        try ListSourceStore(database: fixture.database).recordDownload(record)
        #expect(ListCopies.read(try fixture.source(), home: fixture.home) == Data(Self.listV2.utf8))
        #expect(try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database).first?.data == Data(Self.listV2.utf8))
        ListCopies.settle([try fixture.source()], home: fixture.home)
        #expect(fixture.copy() == Self.listV2)
        #expect(!FileManager.default.fileExists(atPath: pending.path))
    }

    /// The digest of a stored copy is remembered while its file stays the same, and computed
    /// again once the file is replaced (a new inode) or written over in place (same size, new
    /// time): a stale digest would call an old output current.
    @Test func aCopysDigestFollowsItsFile() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, etag: true)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        func digest() throws -> String? { ListCopies.readWithDigest(try fixture.source(), home: fixture.home)?.sha256 }
        let v1 = ContentBlockerOutput.SourceIdentity.sha256Hex(Data(Self.listV1.utf8))
        #expect(try digest() == v1)
        #expect(try digest() == v1, "remembered")

        // Replaced by rename, as an update does.
        let file = ListCopies.url("test", home: fixture.home)
        let other = "||other-ad.example^\n"
        try Data(other.utf8).write(to: file, options: .atomic)
        #expect(try digest() == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(other.utf8)))

        // Written over in place with bytes of the same length, a second later.
        let same = "||other-ad.exampl^^\n"
        #expect(same.utf8.count == other.utf8.count)
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data(same.utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(1)], ofItemAtPath: file.path)
        #expect(try digest() == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(same.utf8)))
        #expect(
            try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database).first?.sha256
                == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(same.utf8)))
    }

    /// The failures a server can produce, with a word the recorded error must contain.
    enum Failure: String, CaseIterable, CustomTestStringConvertible {
        case serverError, truncatedBody, slowBody, htmlErrorPage, hugeBody, notFound

        var testDescription: String { rawValue }

        var route: ListServer.Route {
            let body = String(repeating: "||x.example^\n", count: 2_000)
            switch self {
            case .serverError: return .init(body: "oops", status: 500)
            case .truncatedBody: return .init(body: body, truncate: true)
            case .slowBody: return .init(body: body, chunkDelay: 1.5)
            case .htmlErrorPage: return .init(body: "<html><body>Service unavailable</body></html>", contentType: "text/html")
            case .hugeBody: return .init(body: "||huge.example^\n", size: 3_000_000)
            case .notFound: return .init(body: "", status: 404)
            }
        }

        var message: String {
            switch self {
            case .serverError: return "HTTP 500"
            case .truncatedBody: return "transfer closed"
            case .slowBody: return "timed out"
            case .htmlErrorPage: return "no usable rules"
            case .hugeBody: return "larger than"
            case .notFound: return "HTTP 404"
            }
        }
    }

    /// Each failure keeps the last good copy and records the error on the source.
    @Test(arguments: Failure.allCases)
    func failuresKeepTheLastGoodCopy(failure: Failure) async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1)])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        try fixture.server.set(["/list.txt": failure.route])
        let report = try await fixture.updater(idleTimeout: 1).update(try fixture.source(), force: true)
        guard case .failed(let reason) = report.status else {
            Issue.record("\(failure): expected a failure, got \(report.status)")
            return
        }
        #expect(reason.contains(failure.message), "\(failure): \(reason)")
        #expect(fixture.copy() == Self.listV1, "\(failure): the last good copy must stay")
        #expect(try fixture.source().lastError == reason)
    }

    @Test func transientFailuresAreRetriedWithBackoff() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: "busy", status: 503)])
        let started = Date()
        let report = try await fixture.updater(attempts: 3).update(try fixture.addSource("/list.txt"), force: true)
        #expect(report.status == .failed("HTTP 503"))
        #expect(fixture.server.requests.count == 3)
        #expect(Date().timeIntervalSince(started) >= 0.15, "0.05 s then 0.1 s between attempts")
    }

    @Test func aListWithAnUnusualContentTypeIsStillAccepted() async throws {
        let fixture = try Fixture(routes: ["/list.txt": .init(body: Self.listV1, contentType: "application/octet-stream")])
        let report = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        #expect(report.status == .updated(bytes: Self.listV1.utf8.count, viaPatch: false))
    }

    @Test func expiresHeaderOfTheListSetsTheNextUpdate() async throws {
        let body = "! Title: T\n! Expires: 2 days\n||a.example^\n"
        let fixture = try Fixture(routes: ["/list.txt": .init(body: body, headers: ["Cache-Control": "max-age=600"])])
        _ = try await fixture.updater().update(try fixture.addSource("/list.txt"), force: true)
        let expiresAt = try #require(try fixture.source().expiresAt)
        #expect(abs(expiresAt.timeIntervalSinceNow - 2 * 86_400) < 60)
        fixture.server.clearLog()
        let report = try await fixture.updater().update(try fixture.source(), force: false)
        guard case .fresh = report.status else {
            Issue.record("expected fresh, got \(report.status)")
            return
        }
        #expect(fixture.server.requests.isEmpty, "a fresh list is not requested")
    }

    @Test func cacheControlSetsTheNextUpdateForJSONLists() async throws {
        let tds =
            #"{"trackers": {"t.example": {"domain": "t.example", "default": "block", "owner": {"name": "T"}}}, "entities": {"T": {"domains": ["t.example"]}}}"#
        let fixture = try Fixture(routes: [
            "/tds.json": .init(body: tds, contentType: "application/json", headers: ["Cache-Control": "public, max-age=7200"])
        ])
        let report = try await fixture.updater().update(try fixture.addSource("/tds.json", format: "tds"), force: true)
        #expect(report.rules == 1)
        let expiresAt = try #require(try fixture.source().expiresAt)
        #expect(abs(expiresAt.timeIntervalSinceNow - 7_200) < 60)
    }

    @Test func differentialPatchIsUsedAndVerified() async throws {
        let v1 = "! Title: Diff\n! Diff-Path: patches/1.patch\n||a.example^\n||b.example^\n"
        let v2 = "! Title: Diff\n! Diff-Path: patches/2.patch\n||a.example^\n||c.example^\n"
        let patch = try Self.rcsPatch(from: v1, to: v2)
        let fixture = try Fixture(routes: ["/diff/list.txt": .init(body: v1), "/diff/patches/1.patch": .init(body: "")])
        _ = try await fixture.updater().update(try fixture.addSource("/diff/list.txt"), force: true)

        // An empty patch: no newer version yet, and the list itself is not downloaded.
        fixture.server.clearLog()
        #expect(try await fixture.updater().update(try fixture.source(), force: true).status == .notModified)
        #expect(fixture.server.requests.map(\.path) == ["/diff/patches/1.patch"])

        // A patch: applied, verified by its checksum, and the full list is not downloaded.
        try fixture.server.set(["/diff/list.txt": .init(body: v2), "/diff/patches/1.patch": .init(body: patch)])
        fixture.server.clearLog()
        let report = try await fixture.updater().update(try fixture.source(), force: true)
        #expect(report.status == .updated(bytes: v2.utf8.count, viaPatch: true))
        #expect(fixture.copy() == v2)
        #expect(fixture.server.requests.map(\.path) == ["/diff/patches/1.patch"])
    }

    @Test func brokenPatchFallsBackToTheFullList() async throws {
        let v1 = "! Title: Diff\n! Diff-Path: patches/1.patch\n||a.example^\n||b.example^\n"
        let v2 = "! Title: Diff\n! Diff-Path: patches/2.patch\n||a.example^\n||c.example^\n"
        let fixture = try Fixture(routes: ["/diff/list.txt": .init(body: v1)])
        _ = try await fixture.updater().update(try fixture.addSource("/diff/list.txt"), force: true)
        let wrongChecksum = "diff checksum:0000000000000000000000000000000000000000 lines:3\nd4 1\na4 1\n||evil.example^"
        try fixture.server.set(["/diff/list.txt": .init(body: v2), "/diff/patches/1.patch": .init(body: wrongChecksum)])
        fixture.server.clearLog()
        let report = try await fixture.updater().update(try fixture.source(), force: true)
        #expect(report.status == .updated(bytes: v2.utf8.count, viaPatch: false))
        #expect(report.note?.contains("checksum") == true)
        #expect(fixture.copy() == v2)
        #expect(fixture.server.requests.map(\.path) == ["/diff/patches/1.patch", "/diff/list.txt"])
    }

    @Test func localFileSources() async throws {
        let fixture = try Fixture(routes: [:])
        let file = fixture.home.url.appendingPathComponent("mine.txt")
        try Data(Self.listV1.utf8).write(to: file)
        let store = ListSourceStore(database: fixture.database)
        let source = try store.insert(ListSource(name: "mine", location: file.path))
        #expect(try await fixture.updater().update(source, force: true).status == .updated(bytes: Self.listV1.utf8.count, viaPatch: false))
        #expect(try await fixture.updater().update(try fixture.source("mine"), force: true).status == .notModified)
        try Data("junk that is not a list\n".utf8).write(to: file)
        guard case .failed = try await fixture.updater().update(try fixture.source("mine"), force: true).status else {
            Issue.record("an unusable local file must be refused")
            return
        }
        #expect(fixture.copy("mine") == Self.listV1)
    }

    /// An RCS (`diff -n`) patch from `old` to `new`, with the `diff` directive and SHA-1 checksum,
    /// made by the real `diff` tool.
    static func rcsPatch(from old: String, to new: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-diff-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(old.utf8).write(to: directory.appendingPathComponent("old"))
        try Data(new.utf8).write(to: directory.appendingPathComponent("new"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/diff")
        process.arguments = ["-n", directory.appendingPathComponent("old").path, directory.appendingPathComponent("new").path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let body = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let checksum = Insecure.SHA1.hash(data: Data(new.utf8)).map { String(format: "%02x", $0) }.joined()
        return "diff checksum:\(checksum) lines:\(lines.count)\n" + lines.joined(separator: "\n") + "\n"
    }
}
