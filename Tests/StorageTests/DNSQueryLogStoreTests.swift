import Foundation
import Storage
import Testing

@Suite("DNS query log and counters")
struct DNSQueryLogStoreTests {
    static func database() throws -> PepperDatabase {
        try PepperDatabase(home: PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-dns-\(UUID())")))
    }

    static func entry(_ name: String, _ outcome: DNSQueryOutcome, at: Date = Date()) -> DNSQueryLogStore.Entry {
        DNSQueryLogStore.Entry(at: at, client: "127.0.0.1", name: name, type: "A", outcome: outcome, responseCode: "NOERROR")
    }

    @Test func countersAddUpAndTheLogIsBounded() throws {
        let store = DNSQueryLogStore(database: try Self.database(), retention: 50)
        for batch in 0..<5 {
            let entries = (0..<30).map { Self.entry("n\(batch)-\($0).test", $0 % 3 == 0 ? .blocked : .forwarded) }
            try store.record(
                counts: [
                    .init(day: "2026-11-22", outcome: .blocked, count: 10), .init(day: "2026-11-22", outcome: .forwarded, count: 20),
                ],
                entries: entries)
        }
        #expect(try store.counts().map(\.count) == [50, 100], "counters are exact")
        let recent = try store.recent(limit: 1_000)
        #expect(recent.count == 50, "only the newest 50 are kept")
        #expect(recent.first?.name == "n4-29.test", "newest first")
        #expect(try store.recent(limit: 1_000, blockedOnly: true).allSatisfy(\.isBlocked))
    }

    @Test func oldEntriesExpireAndTopBlockedCounts() throws {
        let store = DNSQueryLogStore(database: try Self.database(), maximumAge: 3600)
        let now = Date()
        try store.record(counts: [], entries: [Self.entry("old.test", .blocked, at: now.addingTimeInterval(-7200))], now: now)
        #expect(try store.recent().isEmpty, "older than the maximum age")
        try store.record(
            counts: [],
            entries: [
                Self.entry("a.test", .blocked), Self.entry("a.test", .blockedCNAME), Self.entry("b.test", .blocked),
                Self.entry("c.test", .cached),
            ],
            now: now)
        #expect(try store.topBlocked() == [.init(name: "a.test", count: 2), .init(name: "b.test", count: 1)])
        #expect(DNSQueryLogStore.day(of: Date(timeIntervalSince1970: 86_400 * 365)) == "1971-01-01")
    }
}
