import DeviceSync
import Foundation
import GRDB

/// A home's sync state in its database (`docs/sync.md`): the replica's records with their
/// change numbers, its ledger (clock, numbers, horizon) and, on a following home, where it
/// stands with the serving one. Saved after every change, so a restart neither sends everything
/// again nor forgets what was acknowledged.
public struct SyncStore: Sendable {
    /// A stored replica and, on a following home, its position.
    public struct Saved: Sendable {
        /// The replica, with nothing unsaved.
        public var replica: SyncReplica
        /// Where a following home stands with the serving one; `nil` on a serving home.
        public var position: SyncFollower.Position?
    }

    /// Why the stored state cannot be read.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the row.
        public var description: String
    }

    private let database: PepperDatabase

    /// The sync state of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// The stored replica, or `nil` when this home never synced.
    ///
    /// - Throws: ``ReadError`` for a row that does not decode, or records that do not fit the
    ///   ledger: the state is left as it is, for a person to look at.
    public func load() throws -> Saved? {
        try database.writer.read { db -> Saved? in
            guard let row = try Row.fetchOne(db, sql: "SELECT ledger, position FROM syncLedger WHERE id = 1") else { return nil }
            let decoder = JSONDecoder()
            let ledger: SyncLedger = try Self.decode(row["ledger"], as: SyncLedger.self, decoder, what: "the sync ledger")
            let position: SyncFollower.Position? = try (row["position"] as String?).map {
                try Self.decode($0, as: SyncFollower.Position.self, decoder, what: "the sync position")
            }
            var saved: [SavedRecord] = []
            for record in try Row.fetchAll(db, sql: "SELECT kind, key, record, number FROM syncRecord") {
                let what = "sync record \(record["kind"] as String):\(record["key"] as String)"
                let value = try Self.decode(record["record"], as: SyncRecord.self, decoder, what: what)
                let number = (record["number"] as Int64?).map { UInt64(bitPattern: $0) }
                saved.append(SavedRecord(record: value, number: number))
            }
            do {
                return Saved(replica: try SyncReplica(ledger: ledger, records: saved), position: position)
            } catch {
                throw ReadError(description: "\(error)")
            }
        }
    }

    /// What `pepper sync status` shows, without loading every record.
    public struct Summary: Sendable, Hashable {
        /// The ledger.
        public var ledger: SyncLedger
        /// A following home's position.
        public var position: SyncFollower.Position?
        /// Records that exist for the person (not deleted).
        public var liveRecords: Int
        /// Records with a change number after what the serving home acknowledged (a following
        /// home's changes not yet sent).
        public var unsent: Int
    }

    /// The stored replica's summary, or `nil` when this home never synced.
    public func summary() throws -> Summary? {
        try database.writer.read { db -> Summary? in
            guard let row = try Row.fetchOne(db, sql: "SELECT ledger, position FROM syncLedger WHERE id = 1") else { return nil }
            let decoder = JSONDecoder()
            let ledger = try Self.decode(row["ledger"], as: SyncLedger.self, decoder, what: "the sync ledger")
            let position = try (row["position"] as String?).map {
                try Self.decode($0, as: SyncFollower.Position.self, decoder, what: "the sync position")
            }
            let live =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncRecord WHERE json_extract(record, '$.fields') != '{}'") ?? 0
            let unsent =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM syncRecord WHERE number > ?",
                    arguments: [Int64(bitPattern: position?.acknowledgedThrough ?? .max)]) ?? 0
            return Summary(ledger: ledger, position: position, liveRecords: live, unsent: position == nil ? 0 : unsent)
        }
    }

    /// Saves what changed in `replica` since it was loaded or last saved, and `position`, in one
    /// transaction.
    public func save(_ replica: inout SyncReplica, position: SyncFollower.Position?) throws {
        let unsaved = replica.takeUnsaved()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let ledger = String(decoding: try encoder.encode(replica.ledger), as: UTF8.self)
        let positionText = try position.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let rows = try unsaved.map { change in
            (change.id, try change.saved.map { (String(decoding: try encoder.encode($0.record), as: UTF8.self), $0.number) })
        }
        try database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO syncLedger (id, ledger, position) VALUES (1, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET ledger = excluded.ledger, position = excluded.position
                    """, arguments: [ledger, positionText])
            for (id, saved) in rows {
                if let (text, number) = saved {
                    try db.execute(
                        sql: """
                            INSERT INTO syncRecord (kind, key, record, number) VALUES (?, ?, ?, ?)
                            ON CONFLICT(kind, key) DO UPDATE SET record = excluded.record, number = excluded.number
                            """, arguments: [id.kind.rawValue, id.key, text, number.map { Int64(bitPattern: $0) }])
                } else {
                    try db.execute(sql: "DELETE FROM syncRecord WHERE kind = ? AND key = ?", arguments: [id.kind.rawValue, id.key])
                }
            }
        }
    }

    /// Starts the stored replica's change numbering again (`SyncReplica.renumber()`), for a home
    /// restored from a backup: counterparts that saw numbers after the backup's must not take the
    /// restored home's next numbers for those. Nothing to do for a home that never synced.
    ///
    /// - Returns: The new numbering, or `nil` when there is no replica.
    @discardableResult
    public func renumber() throws -> String? {
        guard var saved = try load() else { return nil }
        saved.replica.renumber()
        try save(&saved.replica, position: saved.position)
        return saved.replica.numbering
    }

    /// Saves a following home's replica and position.
    public func save(_ follower: inout SyncFollower) throws {
        var replica = follower.replica
        try save(&replica, position: follower.position)
        _ = follower.takeUnsaved()
    }

    private static func decode<T: Decodable>(_ text: String?, as type: T.Type, _ decoder: JSONDecoder, what: String) throws -> T {
        do {
            return try decoder.decode(T.self, from: Data((text ?? "").utf8))
        } catch {
            throw ReadError(description: "\(what) does not read as JSON of its kind: \(error)")
        }
    }

    /// Creates the tables (migration `v-sync-1-records`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "syncRecord") { table in
            table.column("kind", .text).notNull()
            table.column("key", .text).notNull()
            // The record as JSON (`SyncRecord`): fields with their stamps, and the tombstone.
            table.column("record", .text).notNull()
            table.column("number", .integer)
            table.primaryKey(["kind", "key"])
        }
        try db.create(table: "syncLedger") { table in
            table.primaryKey("id", .integer).check { $0 == 1 }
            table.column("ledger", .text).notNull()
            table.column("position", .text)
        }
    }
}
