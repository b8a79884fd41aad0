import CallFilter
import Foundation
import GRDB
import Testing

@testable import Storage

/// The typed values the state stores as text: their raw values are the texts old databases hold,
/// and each type makes its one decision (blocked or not, which action) for every reader.
@Suite("Stored decisions")
struct StoredDecisionsTests {
    static func database() throws -> PepperDatabase {
        try PepperDatabase(home: PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-stored-\(UUID())")))
    }

    /// What `pepper dns serve` has written since the query log began (the resolver's outcomes,
    /// serve-stale's `stale` included): every text reads back as its outcome.
    @Test func theQueryLogsStoredTextsAreTheOutcomesRawValues() {
        let stored = ["blocked", "blocked-cname", "cached", "forwarded", "stale", "failed", "refused", "malformed"]
        #expect(DNSQueryOutcome.allCases.map(\.rawValue).sorted() == stored.sorted())
        #expect(stored.allSatisfy { DNSQueryOutcome(rawValue: $0)?.description == $0 })
        #expect(DNSQueryOutcome.allCases.filter(\.isBlocked) == [.blocked, .blockedCNAME])
        #expect(!DNSQueryOutcome.stale.isBlocked, "an expired answer from the cache was not blocked")
    }

    /// Rows as an older Pepper wrote them (text, straight into the tables) read typed, and the
    /// store's own filters (blocked only, most blocked) follow `isBlocked`.
    @Test func anOldLogReadsTypedAndItsBlockedRowsAreTheBlockedOutcomes() async throws {
        let database = try Self.database()
        let now = Date()
        try await database.writer.write { db in
            for (name, outcome) in [("a.test", "blocked"), ("a.test", "blocked-cname"), ("b.test", "stale"), ("c.test", "forwarded")] {
                try db.execute(
                    sql:
                        "INSERT INTO dnsQueryLog (at, client, name, type, outcome, responseCode) VALUES (?, '127.0.0.1', ?, 'A', ?, 'NOERROR')",
                    arguments: [now, name, outcome])
            }
            // A row from a newer Pepper, with an outcome this one does not know: left out.
            try db.execute(
                sql:
                    "INSERT INTO dnsQueryLog (at, client, name, type, outcome, responseCode) VALUES (?, '127.0.0.1', 'd.test', 'A', 'later', 'NOERROR')",
                arguments: [now])
            try db.execute(
                sql: "INSERT INTO dnsCounter (day, outcome, count) VALUES ('2026-01-01', 'blocked-cname', 3), ('2026-01-01', 'stale', 2)")
        }
        let store = DNSQueryLogStore(database: database)
        #expect(try store.recent().map(\.outcome) == [.forwarded, .stale, .blockedCNAME, .blocked])
        #expect(try store.recent(blockedOnly: true).map(\.outcome) == [.blockedCNAME, .blocked])
        #expect(try store.page(blockedOnly: true).map(\.entry.name) == ["a.test", "a.test"])
        #expect(try store.topBlocked() == [.init(name: "a.test", count: 2)])
        #expect(try store.counts().map(\.outcome) == [.blockedCNAME, .stale])
    }

    /// The live tail asks for rows after the last one it showed: a page's worth of rows from a
    /// newer Pepper (outcomes this one does not know) must not come back as an empty page, which
    /// would leave the tail waiting at the same id for good.
    @Test func aRunOfUnknownOutcomesDoesNotStallTheLiveTail() async throws {
        let database = try Self.database()
        let now = Date()
        try await database.writer.write { db in
            for index in 0..<5 {
                try db.execute(
                    sql:
                        "INSERT INTO dnsQueryLog (at, client, name, type, outcome, responseCode) VALUES (?, '127.0.0.1', ?, 'A', 'later', 'NOERROR')",
                    arguments: [now, "new\(index).test"])
            }
            try db.execute(
                sql:
                    "INSERT INTO dnsQueryLog (at, client, name, type, outcome, responseCode) VALUES (?, '127.0.0.1', 'known.test', 'A', 'forwarded', 'NOERROR')",
                arguments: [now])
        }
        let store = DNSQueryLogStore(database: database)
        let tail = try store.entries(after: 0, limit: 3)
        #expect(tail.map(\.entry.name) == ["known.test"], "the known row after three unknown ones")
        #expect(try store.page(limit: 3).map(\.entry.name) == ["known.test"])
        #expect(try store.recent(limit: 1).map(\.name) == ["known.test"])
    }

    /// Every face counts calls and messages under these texts (the start screen, `calls stats`,
    /// `sms stats`, the app): the call's and the message's actions map onto them one to one.
    @Test func decisionActionsAreTheStoredTextsOfCallAndMessageActions() async throws {
        #expect(DecisionStore.Action.allCases.map(\.rawValue) == ["block", "identify", "allow", "junk", "promotion", "transaction"])
        #expect(CallScreening.Action.allCases.allSatisfy { DecisionStore.Action($0).rawValue == $0.rawValue })
        #expect(MessageAction.allCases.allSatisfy { DecisionStore.Action($0).rawValue == $0.rawValue })
        #expect(DecisionStore.Action.filteredMessages == [.junk, .promotion, .transaction])

        let database = try Self.database()
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO decisionDaily (day, domain, action, count) VALUES
                    ('2026-01-01', 'call', 'identify', 2), ('2026-01-01', 'call', 'someday', 1)
                    """)
        }
        let daily = try DecisionStore(database: database).dailyCounts(.call, since: "2026-01-01")
        #expect(daily.map(\.action) == [.identify], "an action this version does not know is left out")
    }

    /// The moderation audit trail as an older Pepper wrote it (kind and decision as text) reads
    /// typed; a row with a kind this version does not know is left out.
    @Test func anOldModerationTrailReadsTyped() async throws {
        let database = try Self.database()
        let decided = Date(timeIntervalSince1970: 1_767_225_600)
        try await database.writer.write { db in
            for (id, kind, decision, at) in [
                ("act_1", "strike", "approve", decided), ("snap_1", "snapshot", "reject", decided.addingTimeInterval(1)),
                ("x_1", "petition", "approve", decided.addingTimeInterval(2)),
            ] {
                try db.execute(
                    sql: """
                        INSERT INTO picketModeration (submissionId, kind, decision, moderator, reason, decidedAt, summary)
                        VALUES (?, ?, ?, 'cli', NULL, ?, 'ACME')
                        """,
                    arguments: [id, kind, decision, at])
            }
        }
        let log = try await SQLitePicketStore(database: database).moderationLog(limit: 10)
        #expect(log.map(\.submissionId) == ["snap_1", "act_1"])
        #expect(log.map(\.kind) == [.snapshot, .strike] && log.map(\.decision) == [.reject, .approve])
    }

    /// One test of where a list comes from, for stored sources, lists being added and SOURCE arguments.
    @Test func aListsLocationIsAWebAddressAPicketServerOrAFile() {
        #expect(ListSource.isWeb("https://easylist.to/easylist/easylist.txt") && ListSource.isWeb("http://lists.example/x"))
        #expect(ListSource.isPicket("picket:https://picket.example") && !ListSource.isWeb("picket:https://picket.example"))
        #expect(ListSource.isRemote("picket:https://picket.example") && ListSource.isRemote("https://lists.example/x"))
        #expect(!ListSource.isRemote("/etc/pepper/extra.txt") && !ListSource.isRemote("httpfile.txt"))
        #expect(ListSource(name: "p", location: "picket:https://p.example", format: "picket").isPicket)
    }

    /// The browsers' per-site counts: one row per day, site and list summed, read per site from
    /// a day on, and days older than the retention removed as new counts are written.
    @Test func siteBlockCountsAreSummedPerDaySiteAndListAndOldDaysRemoved() throws {
        let database = try Self.database()
        let store = SiteBlockCountStore(database: database)
        let now = Date()
        let old = now.addingTimeInterval(-Double(SiteBlockCountStore.retentionDays + 2) * 86_400)
        let yesterday = now.addingTimeInterval(-86_400)
        try store.record(
            [.init(site: "a.test", list: "EasyList", at: old)]
                + [.init(site: "a.test", list: "EasyList", at: now), .init(site: "a.test", list: "EasyList", at: now)]
                + [.init(site: "a.test", list: "EasyPrivacy", at: yesterday), .init(site: "b.test", list: "EasyList", at: now)])
        let a = try store.counts(for: "a.test", since: "2000-01-01")
        #expect(a.total == 3, "the day older than the retention was removed")
        #expect(a.lists == [.init(list: "EasyList", count: 2), .init(list: "EasyPrivacy", count: 1)])
        #expect(try store.counts(for: "a.test", since: StoredDate.day(now)).total == 2, "from today on")
        #expect(try store.counts(for: "c.test", since: "2000-01-01") == .init(site: "c.test", total: 0, lists: []))
        let rows = try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM browserSiteBlockDaily") }
        #expect(rows == 3, "one row per day, site and list")
    }
}
