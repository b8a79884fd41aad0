import DeviceSync
import Foundation
import GRDB
import Storage
import Testing

@Suite("Sync state in the database")
struct SyncStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func home() -> PepperHome {
        PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-sync-\(UUID())"))
    }

    @Test func aFollowerReopenedSendsOnlyWhatWasNotAcknowledgedAndKeepsItsPlace() throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(at: home.url) }
        var hub = SyncHub(replica: SyncReplica(device: try DeviceID("home"), role: .serving))
        hub.replica.write(SyncRecordID(kind: .callNumber, key: "+15555550100"), values: ["action": "block"], now: Self.start)
        var phone = SyncFollower(replica: SyncReplica(device: try DeviceID("phone"), role: .following))
        let allowed = SyncRecordID(kind: .allowlistEntry, key: "bank.example")
        let deleted = SyncRecordID(kind: .allowlistEntry, key: "old.example")
        phone.write(allowed, values: ["expires": "never"], now: Self.start)
        phone.write(deleted, values: ["expires": "never"], now: Self.start)
        phone.delete(deleted, now: Self.start + 1)
        let (response, _) = try hub.exchange(phone.request(limit: 10), now: Self.start + 2)
        _ = try phone.receive(response, now: Self.start + 2)
        phone.write(allowed, values: ["expires": "2030-01-01"], now: Self.start + 3)  // not sent yet

        do {
            let store = SyncStore(database: try PepperDatabase(home: home))
            #expect(try store.load() == nil, "a home that never synced has no sync state")
            try store.save(&phone)
        }
        let store = SyncStore(database: try PepperDatabase(home: home))
        let saved = try #require(try store.load())
        let reopened = SyncFollower(replica: saved.replica, position: try #require(saved.position))
        #expect(reopened.replica.visibleState == phone.replica.visibleState)
        #expect(reopened.replica.records == phone.replica.records, "tombstones are kept too")
        #expect(reopened.cursor == phone.cursor && reopened.cursor > 0)
        #expect(reopened.request(limit: 10) == phone.request(limit: 10))
        #expect(reopened.request(limit: 10).changes.map(\.id) == [allowed], "only the change made after the exchange is sent")
        var clock = reopened.replica.clock
        #expect(clock.next(now: Self.start) > phone.replica.clock.latest, "the clock goes on from where it was")
    }

    @Test func renumberingStartsANewNumberingAndKeepsTheRecordsAndTheirNumbers() throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = SyncStore(database: try PepperDatabase(home: home))
        #expect(try store.renumber() == nil, "a home that never synced has nothing to renumber")
        #expect(try store.load() == nil, "and renumbering made no sync state")
        var replica = SyncReplica(device: try DeviceID("home"), role: .serving)
        let id = SyncRecordID(kind: .myRule, key: "||ads.example^")
        replica.write(id, values: ["enabled": "1"], now: Self.start)
        try store.save(&replica, position: nil)
        let numbering = try #require(try store.renumber())
        #expect(numbering != replica.numbering)
        let saved = try #require(try store.load())
        #expect(saved.replica.numbering == numbering)
        #expect(saved.replica.records == replica.records)
        #expect(saved.replica.sequence == replica.sequence && saved.replica.number(of: id) == replica.number(of: id))
    }

    @Test func savingWritesOnlyWhatChangedAndRemovesWhatWasForgotten() throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let store = SyncStore(database: database)
        var replica = SyncReplica(device: try DeviceID("home"), role: .serving)
        let ids = (0..<5).map { SyncRecordID(kind: .myRule, key: "||ads\($0).example^") }
        for id in ids { replica.write(id, values: ["enabled": "1"], now: Self.start) }
        try store.save(&replica, position: nil)
        #expect(replica.takeUnsaved().isEmpty)
        replica.delete(ids[0], now: Self.start + 1)
        replica.forget(before: HybridLogicalClock.millis(Self.start + 10))
        replica.delete(ids[1], now: Self.start + 20)
        replica.forget(before: HybridLogicalClock.millis(Self.start + 30))
        try store.save(&replica, position: nil)
        let rows = try database.writer.read { db in try String.fetchAll(db, sql: "SELECT key FROM syncRecord ORDER BY key") }
        #expect(rows == ids[2...].map(\.key), "forgotten tombstones leave the table")
        let loaded = try #require(try store.load())
        #expect(loaded.position == nil)
        #expect(loaded.replica.ledger == replica.ledger)
        #expect(loaded.replica.forgottenThrough == replica.forgottenThrough && loaded.replica.forgottenThrough > 0)
    }

    @Test func aDamagedRowIsAClearErrorAndNothingIsRewritten() throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let store = SyncStore(database: database)
        var replica = SyncReplica(device: try DeviceID("home"), role: .serving)
        replica.write(SyncRecordID(kind: .allowlistEntry, key: "a.example"), values: ["expires": "never"], now: Self.start)
        try store.save(&replica, position: nil)
        try database.writer.write { db in try db.execute(sql: "UPDATE syncRecord SET record = '{\"id\": 1}'") }
        #expect {
            try store.load()
        } throws: { error in
            "\(error)".contains("sync record allowlist:a.example does not read as JSON of its kind")
        }
        try database.writer.write { db in
            try db.execute(
                sql: "UPDATE syncRecord SET record = ?, number = 99",
                arguments: [
                    String(decoding: try JSONEncoder().encode(replica.records.values.first!), as: UTF8.self)
                ])
        }
        #expect {
            try store.load()
        } throws: { error in
            "\(error)".contains("has change number 99 (sequence 1)")
        }
    }
}
