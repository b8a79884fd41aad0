import CallFilter
import CallFilterTestSupport
import FilterEngine
import Foundation
import GRDB
import PepperActions
import PepperTestSupport
import Picket
import Storage
import Testing

@testable import Console

/// States written by earlier Peppers (`Tests/Fixtures/upgrade`), opened by this one: every
/// record the old binary wrote is there and still does its work — through the same actions,
/// engines and stores every face uses.
@Suite("Upgrades: states written by earlier Peppers")
struct StateUpgradeTests {
    /// The fixtures that hold at least one record of `kind`.
    static func with(_ kind: String) -> [UpgradeFixture] { UpgradeFixture.all.filter { !$0.records(kind).isEmpty } }

    /// Opens a copy of the fixture's home with the current code.
    static func open(_ fixture: UpgradeFixture) throws -> PepperState {
        try PepperState(home: PepperHome(url: fixture.copyHome()))
    }

    @Test func everySchemaVersionHasAFixture() throws {
        // Every migration this Pepper knows was first applied by some fixture's own Pepper, so
        // every step of the schema is crossed from a state an old binary wrote.
        let firstApplied = Set(
            try UpgradeFixture.all.flatMap { fixture in
                try Self.withOldDatabase(fixture) { old in
                    try old.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
                }
            })
        #expect(UpgradeFixture.all.count >= 15)
        #expect(Set(PepperDatabase.migrator.migrations).subtracting(firstApplied).isEmpty)
    }

    /// The fixture's database as the old Pepper left it, read from a copy (SQLite may make a
    /// `-shm` beside a database it reads, and the fixture folder stays as it is committed).
    static func withOldDatabase<T>(_ fixture: UpgradeFixture, _ body: (DatabaseQueue) throws -> T) throws -> T {
        let home = try fixture.copyHome()
        defer { UpgradeFixture.discard(home) }
        var configuration = Configuration()
        configuration.readonly = true
        return try body(DatabaseQueue(path: home.appendingPathComponent("pepper.sqlite").path, configuration: configuration))
    }

    @Test(arguments: UpgradeFixture.all)
    func theStateOpensWithEveryMigrationApplied(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let applied = try state.database.writer.read { try PepperDatabase.migrator.appliedMigrations($0) }
        #expect(applied == PepperDatabase.migrator.migrations)
        #expect(try state.database.writer.read(PepperDatabase.migrator.hasCompletedMigrations))
        // Nothing the old Pepper stored was dropped on the way: every table it had is there with
        // at least its rows (a migration may add rows, never remove them).
        let oldCounts = try Self.withOldDatabase(fixture, Self.rowCounts)
        let newCounts = try Self.rowCounts(state.database.writer)
        #expect(!oldCounts.isEmpty)
        for (table, count) in oldCounts where table != "grdb_migrations" {
            let now = Self.renamedTables[table] ?? table
            #expect((newCounts[now] ?? -1) >= count, "\(table): \(count) rows before, \(newCounts[now] ?? 0) in \(now) after")
        }
    }

    /// Tables a later migration renamed (`v-console-2-shared-contacts`: the messages' contacts
    /// became everyone's contacts).
    static let renamedTables = ["smsContact": "contact"]

    static func rowCounts(_ reader: any DatabaseReader) throws -> [String: Int] {
        try reader.read { db in
            var counts: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
            }
            return counts
        }
    }

    // MARK: Allowlist, lists, rules

    @Test(arguments: with("allowlist"))
    func theAllowlistStillAllows(_ fixture: UpgradeFixture) async throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let entries = Dictionary(uniqueKeysWithValues: try state.allowlistEntries().map { ($0.domain, $0.expiresAt) })
        try await Self.ensureTheList(fixture, in: state)
        let outcome = try await state.rebuild()
        let now = Date()
        for record in fixture.records("allowlist") {
            let domain = record[0]
            let stored = try #require(entries[domain], "\(domain) is not on the allowlist any more")
            let verdict = try state.check("https://ads.upgrade.test/ad.js", page: "https://\(domain)/")
            switch record[1] {
            case "permanent":
                #expect(stored == nil)
                #expect(verdict.decision == .allowed, "\(domain): \(verdict)")
                #expect(outcome.manifest.allowlist.contains(domain))
            case "future":
                #expect(try #require(stored) > now.addingTimeInterval(5 * 365 * 86_400))
                #expect(verdict.decision == .allowed, "\(domain): \(verdict)")
                #expect(outcome.manifest.allowlist.contains(domain))
            case "expired":
                #expect(try #require(stored) < now)
                #expect(verdict.decision == .blocked, "\(domain) lapsed, yet \(verdict)")
                #expect(!outcome.manifest.allowlist.contains(domain))
            default:
                Issue.record("unknown allowlist record \(record)")
            }
        }
        // The same request from a page that is not allowlisted is blocked: the list decides.
        #expect(try state.check("https://ads.upgrade.test/ad.js", page: "https://elsewhere.test/").decision == .blocked)
    }

    /// Fixtures whose Pepper could not add list sources compiled the list from a file: add that
    /// file now, as a person upgrading would.
    static func ensureTheList(_ fixture: UpgradeFixture, in state: PepperState) async throws {
        guard fixture.records("list").isEmpty else { return }
        let file = fixture.folder.appendingPathComponent("upgrade-list.txt")
        _ = try await state.addList(ListRequest(source: file.path, name: "upgrade-list"), rebuild: false)
    }

    @Test(arguments: with("list"))
    func theOldOutputAndEngineAnswerBeforeAnyRebuild(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        // The output the old Pepper published, read by the current code.
        let manifest = try #require(state.manifest(), "the old manifest cannot be read")
        #expect(manifest.sources.contains { $0.name == "upgrade-list" })
        for file in manifest.files {
            #expect(FileManager.default.fileExists(atPath: state.home.outputURL.appendingPathComponent(file.path).path))
        }
        // The engine every face asks (`pepper check`, the DNS filter, the browser): the old
        // engine.bin when it still matches, else one built from the old copies, nothing else.
        let engine = try state.engine()
        for record in fixture.records("blocks") {
            #expect(try state.check(record[0], page: record[1], engine: engine).decision == .blocked, "\(record[0]) from \(record[1])")
        }
        for record in fixture.records("allows") {
            #expect(try state.check(record[0], page: record[1], engine: engine).decision != .blocked, "\(record[0]) from \(record[1])")
        }
        for record in fixture.records("allowlist") {
            let verdict = try state.check("https://ads.upgrade.test/ad.js", page: "https://\(record[0])/", engine: engine)
            #expect((verdict.decision == .blocked) == (record[1] == "expired"), "\(record[0]) (\(record[1])): \(verdict)")
        }
        #expect(engine.domainDecision("ads.upgrade.test") == .blocked)
        #expect(engine.domainDecision("www.example.test") != .blocked)
    }

    @Test(arguments: with("list"))
    func theStoredListCopyStillCompiles(_ fixture: UpgradeFixture) async throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        for record in fixture.records("list") {
            let source = try #require(try state.lists().first { $0.name == record[0] }, "no list \(record[0])")
            #expect(source.location == record[1])
            let copy = state.home.listsURL.appendingPathComponent(record[0])
            #expect(FileManager.default.fileExists(atPath: copy.path), "the old Pepper's copy of \(record[0]) is gone")
        }
        let oldManifest = try Data(contentsOf: state.home.outputURL.appendingPathComponent("manifest.json"))
        #expect(!oldManifest.isEmpty)
        // The copy the old Pepper downloaded, compiled by the current compile path (nothing is
        // downloaded: the old server is long gone).
        let outcome = try await state.rebuild()
        let summary = try #require(outcome.lists.first { $0.name == "upgrade-list" })
        #expect(summary.error == nil)
        #expect(summary.rules >= 5)
        #expect(outcome.manifest.sources.contains { $0.name == "upgrade-list" && $0.rulesOut > 0 })
        for file in outcome.fileURLs { #expect(FileManager.default.fileExists(atPath: file.path)) }
        for record in fixture.records("blocks") {
            #expect(try state.check(record[0], page: record[1]).decision == .blocked, "\(record[0]) from \(record[1])")
        }
        for record in fixture.records("allows") {
            #expect(try state.check(record[0], page: record[1]).decision != .blocked, "\(record[0]) from \(record[1])")
        }
    }

    @Test(arguments: with("rule"))
    func myRulesStillBlock(_ fixture: UpgradeFixture) async throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let rules = try state.userRules().map(\.text)
        for record in fixture.records("rule") { #expect(rules.contains(record[0])) }
        try await state.rebuild()
        #expect(try state.check("https://myrule.upgrade.test/x.js", page: "https://elsewhere.test/").decision == .blocked)
        // And they can still be changed.
        try await state.removeRule(fixture.records("rule")[0][0])
        #expect(try state.check("https://myrule.upgrade.test/x.js", page: "https://elsewhere.test/").decision != .blocked)
    }

    // MARK: Calls and messages

    @Test(arguments: with("call-block"))
    func callListsStillDecide(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let lines = try state.callListLines().lines
        for record in fixture.records("call-block") {
            #expect(lines.contains { $0.kind == .blocking && $0.value == record[0] }, "\(record[0]) is not blocked any more")
        }
        for record in fixture.records("call-identify") {
            #expect(lines.contains { $0.kind == .identification && $0.value == record[0] && $0.label == record[1] })
        }
        // The old binary's own answers, given again by the current screening.
        let verdicts = fixture.records("call-verdict")
        #expect(!verdicts.isEmpty)
        for record in verdicts {
            let check = try state.checkCall(record[0], region: "US", record: false)
            #expect(check.verdict.action.rawValue == record[1], "\(record[0]): \(check.verdict)")
            #expect((check.verdict.label ?? "") == record[2], "\(record[0]): \(check.verdict)")
        }
        // What a call-directory extension loads: CallFilter's handler over the upgraded store.
        let store = CallListStore(database: state.database)
        let full = StrictCallDirectoryContext(isIncremental: false)
        let loaded = try CallDirectoryHandler(source: store).beginRequest(with: full, lastLoadedVersion: nil)
        #expect(full.violations.isEmpty)
        #expect(full.blocking.contains(12_025_550_123))
        #expect((12_025_550_400...12_025_550_499).allSatisfy(full.blocking.contains))
        #expect(full.identification[12_025_550_199] == "Pharmacy")
        #expect((12_025_550_200...12_025_550_299).allSatisfy { full.identification[$0] == "Clinic" })
        // An extension that loaded version 1 (the lists' defaults, which the old Pepper's first
        // migration wrote) gets the changes the old Pepper made since, and ends where a full
        // load does.
        let first = try state.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, number, label FROM callChange WHERE version = 1 AND present = 1")
        }
        let previous = (
            blocking: first.filter { $0["kind"] == "block" }.map { $0["number"] as Int64 },
            identification: Dictionary(
                uniqueKeysWithValues: first.filter { $0["kind"] == "identify" }.map { ($0["number"] as Int64, $0["label"] as String) })
        )
        #expect(!previous.blocking.isEmpty && !previous.identification.isEmpty)
        let incremental = StrictCallDirectoryContext(isIncremental: true, previous: previous)
        let changes = try CallDirectoryHandler(source: store).beginRequest(with: incremental, lastLoadedVersion: 1)
        #expect(changes.incremental)
        #expect(incremental.violations.isEmpty)
        #expect(changes.version == loaded.version)
        #expect(incremental.sortedBlocking == full.sortedBlocking)
        #expect(incremental.identification == full.identification)
        // The lists can still change, and the version moves on from the old one.
        let change = try state.blockNumber("+12025550555", region: "US")
        #expect(change.version > loaded.version)
    }

    @Test(arguments: with("setting").filter { fixture in fixture.records("setting").contains { $0[0] != "picket-policy" } })
    func settingsAreKept(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let rules = try state.messageRules()
        for record in fixture.records("setting") {
            switch record[0] {
            case "phone-region": #expect(try state.phoneRegion() == record[1])
            case "block-all-except-contacts": #expect(try state.callScreening().blockAllExceptContacts == (record[1] == "on"))
            case "contacts-only": #expect(rules.contactsOnly == (record[1] == "on"))
            case "sms-guard": #expect(rules.enabled == (record[1] == "on"))
            case "picket-policy": #expect(try state.picketPolicy().rawValue == record[1])
            default: Issue.record("unknown setting \(record)")
            }
        }
        for record in fixture.records("contact") {
            #expect(try state.callScreening().contacts.contains(record[0]), "contact \(record[0]) lost")
        }
    }

    @Test(arguments: with("sms-word"))
    func messageRulesStillDecide(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let rules = try state.messageRules()
        for record in fixture.records("sms-word") {
            #expect(rules.wordRules.contains { $0.word == record[0] && $0.action.rawValue == record[1] && $0.sender == nil }, "\(record)")
        }
        for record in fixture.records("sms-sender-word") {
            #expect(rules.wordRules.contains { $0.word == record[1] && $0.action.rawValue == record[2] && $0.sender != nil }, "\(record)")
        }
        #expect(rules.blockedSenders.count >= fixture.records("sms-sender-block").count)
        // The old binary's own answers.
        let verdicts = fixture.records("sms-verdict")
        #expect(!verdicts.isEmpty)
        for record in verdicts {
            let check = try state.checkMessage(from: record[0], text: record[1], region: "US", record: false)
            #expect(check.verdict.action.rawValue == record[2], "\(record[0]) '\(record[1])': \(check.verdict)")
        }
        // The word rules decide for a stranger once "contacts only" is off (it decides first).
        var open = rules
        open.contactsOnly = false
        let filter = MessageFilter(rules: open, parser: try PepperState.numberParser(region: "US"))
        #expect(filter.classify(sender: "+12025550333", body: "casino night").action == .junk)
        #expect(filter.classify(sender: "+12025550177", body: "hello").action == .junk)
        if fixture.records("sms-word").contains(where: { $0[0] == "weekend sale" }) {
            #expect(filter.classify(sender: "+12025550333", body: "big weekend sale").action == .promotion)
        }
    }

    @Test(arguments: with("call-decision"))
    func recordedDecisionsStillCount(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let decisions = DecisionStore(database: state.database)
        for record in fixture.records("call-decision") {
            #expect(try decisions.recent(.call).contains { $0.subject == record[0] })
        }
        for record in fixture.records("sms-decision") {
            #expect(try decisions.recent(.message).contains { $0.subject == record[0] })
        }
        let before = try decisions.counts(.call).reduce(0) { $0 + $1.count }
        #expect(before >= 1)
        _ = try state.checkCall("+12025550123", region: "US", record: true)
        #expect(try decisions.counts(.call).reduce(0) { $0 + $1.count } == before + 1)
    }

    // MARK: DNS, console

    @Test(arguments: with("dns-query"))
    func theDNSLogStillCounts(_ fixture: UpgradeFixture) throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let log = DNSQueryLogStore(database: state.database)
        let counts = try log.counts()
        let total = counts.reduce(0) { $0 + $1.count }
        #expect(total >= fixture.records("dns-query").count)
        #expect(counts.contains { $0.outcome.isBlocked && $0.count >= 1 })
        let recent = try log.recent()
        for record in fixture.records("dns-query") {
            let entry = try #require(recent.first { $0.name == record[0] || $0.name == record[0] + "." }, "\(record[0]) not in the log")
            #expect(entry.isBlocked == (record[1] == "blocked"), "\(entry)")
        }
        // The counters go on counting from where the old Pepper left them.
        let day = DNSQueryLogStore.day(of: Date())
        try log.record(
            counts: [.init(day: day, outcome: .blocked, count: 1)],
            entries: [
                .init(at: Date(), client: "127.0.0.1", name: "ads.upgrade.test", type: "A", outcome: .blocked, responseCode: "NXDOMAIN")
            ])
        #expect(try log.counts().reduce(0) { $0 + $1.count } == total + 1)
        #expect(try log.recent(limit: 1).first?.name == "ads.upgrade.test")
    }

    @Test(arguments: with("console-session"))
    func aConsoleSessionSignsInOrIsCleanlyExpired(_ fixture: UpgradeFixture) async throws {
        let state = try Self.open(fixture)
        defer { UpgradeFixture.discard(state.home.url) }
        let store = ConsoleSessionStore(database: state.database)
        for record in fixture.records("console-session") {
            let parts = record[0].split(separator: "=", maxSplits: 1).map(String.init)
            try #require(parts.count == 2 && parts[0] == ConsoleGuard.cookieName, "cookie \(record[0])")
            let cookie = parts[1]
            let stored = try await store.session(digest: Sessions.digest(cookie))
            switch record[1] {
            case "stored":
                let session = try #require(stored, "the old console's session is not in the store")
                // At the time the old console last saw it, the cookie still signs in...
                let then = Sessions(password: nil, store: store)
                let signedIn = try #require(await then.session(cookie, now: session.lastUsed.addingTimeInterval(60)))
                #expect(signedIn.method == "token")
                // ...and today, long after its lifetime, it is refused and removed, nothing else.
                let today = Sessions(password: nil, store: store)
                #expect(await today.session(cookie, now: session.createdAt.addingTimeInterval(Sessions.lifetime + 1)) == nil)
                #expect(try await store.session(digest: Sessions.digest(cookie)) == nil)
            case "memory-only":
                // That console kept sessions in memory: its cookie never signs in again.
                #expect(stored == nil)
                #expect(await Sessions(password: nil, store: store).session(cookie) == nil)
            default:
                Issue.record("unknown console record \(record)")
            }
        }
    }
}
