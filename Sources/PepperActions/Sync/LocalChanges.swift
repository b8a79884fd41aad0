import DeviceSync
import Foundation
import GRDB
import Storage

/// The decisions a person changed on this home since sync last looked, read from the outbox
/// (`SyncOutbox`) with their current values.
struct LocalChanges: Sendable {
    /// One changed record: its values now (`nil`: removed) and when it changed.
    struct Change: Sendable {
        var id: SyncRecordID
        var values: [String: String]?
        var changedAt: Date
    }

    /// The outbox rows read, to be cleared once the replica holding them is saved.
    let entries: [SyncOutbox.Entry]
    /// The changes, oldest first.
    let changes: [Change]

    /// Reads the outbox and the current values of what it names.
    static func read(_ database: PepperDatabase) throws -> LocalChanges {
        try database.writer.read { db in
            let entries = try SyncOutbox.entries(db)
            let ids = entries.map { SyncRecordID(kind: SyncRecordKind(rawValue: $0.kind), key: $0.key) }
            let values = try SyncedDecisions.read(db, only: ids + SyncedDecisions.alwaysRead)
            // Settings without a trigger count as changed now when they differ (`record(into:)`).
            let always = SyncedDecisions.alwaysRead.map { Change(id: $0, values: values[$0], changedAt: Date()) }
            return LocalChanges(
                entries: entries,
                changes: zip(ids, entries).map { Change(id: $0, values: values[$0], changedAt: $1.changedAt) } + always)
        }
    }

    /// Every synced decision of the home as a change made `now`: what a home brings the first
    /// time it syncs.
    static func everything(_ database: PepperDatabase, now: Date) throws -> LocalChanges {
        try database.writer.read { db in
            let values = try SyncedDecisions.read(db)
            return LocalChanges(
                entries: try SyncOutbox.entries(db),
                changes: values.keys.sorted().map { Change(id: $0, values: values[$0], changedAt: now) })
        }
    }

    /// Writes into `replica` what differs from its records: the fields whose values changed, or
    /// a deletion. A change that only re-reads what sync applied writes nothing.
    ///
    /// - Returns: how many records changed.
    @discardableResult
    func record(into replica: inout SyncReplica) -> Int {
        var count = 0
        for change in changes {
            let existing = replica.records[change.id]
            let visible = existing?.isLive == true ? existing!.values : nil
            if let values = change.values {
                let differing = values.filter { visible?[$0.key] != $0.value }
                guard !differing.isEmpty else { continue }
                replica.write(change.id, values: visible == nil ? values : differing, now: change.changedAt)
                count += 1
            } else if visible != nil {
                replica.delete(change.id, now: change.changedAt)
                count += 1
            }
        }
        return count
    }

    /// Clears the outbox rows read, unless they changed again since (those stay for next time).
    func clear(_ database: PepperDatabase) throws {
        guard !entries.isEmpty else { return }
        try database.write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM syncOutbox WHERE kind = ? AND key = ? AND changedAt = ?")
            for entry in entries {
                try delete.execute(arguments: [entry.kind, entry.key, entry.changedAtMillis])
            }
        }
    }
}
