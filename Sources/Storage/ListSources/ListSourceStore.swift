import Foundation
import GRDB

/// The catalogue of list sources in the state database.
public struct ListSourceStore: Sendable {
    private let database: PepperDatabase

    /// The catalogue of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Every source, in the order they were added.
    public func all() throws -> [ListSource] {
        try database.writer.read { db in try ListSource.order(Column("id")).fetchAll(db) }
    }

    /// The enabled sources, in the order they were added.
    public func enabled() throws -> [ListSource] {
        try database.writer.read { db in
            try ListSource.filter(Column("enabled") == true).order(Column("id")).fetchAll(db)
        }
    }

    /// The source called `name`, if any.
    public func source(named name: String) throws -> ListSource? {
        try database.writer.read { db in try ListSource.filter(Column("name") == name).fetchOne(db) }
    }

    /// Stores a new source.
    @discardableResult
    public func insert(_ source: ListSource) throws -> ListSource {
        try database.write { db in
            var source = source
            try source.insert(db)
            return source
        }
    }

    /// Saves changes to an existing source (every column).
    public func update(_ source: ListSource) throws {
        try database.write { db in try source.update(db) }
    }

    /// The columns a download writes: what was fetched and when. A person's settings (enabled,
    /// categories, …) are not among them, so an update that read the source before the
    /// person changed it never writes the old settings back.
    public static let downloadColumns = [
        "etag", "lastModified", "expiresAt", "lastAttempt", "lastSuccess", "lastError", "sha256", "rulesIn",
    ]

    /// The columns a person changes: whether the list is used, and its settings.
    public static let settingColumns = ["enabled", "settings"]

    /// Records what a download of `source` found, in ``downloadColumns`` only; a source removed
    /// meanwhile stays removed.
    public func recordDownload(_ source: ListSource) throws {
        try update(source, columns: Self.downloadColumns)
    }

    /// Saves a person's change to `source`'s ``settingColumns`` only; what a download recorded
    /// meanwhile stays.
    public func updateSettings(_ source: ListSource) throws {
        try update(source, columns: Self.settingColumns)
    }

    /// Records a compilation's rule counts for the source called `name`.
    public func recordCounts(name: String, rulesIn: Int, rulesOut: Int) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE listSource SET rulesIn = ?, rulesOut = ? WHERE name = ?", arguments: [rulesIn, rulesOut, name])
        }
    }

    private func update(_ source: ListSource, columns: [String]) throws {
        try database.write { db in
            do {
                try source.update(db, columns: columns)
            } catch RecordError.recordNotFound {
                // Removed while it was being worked on: nothing to record.
            }
        }
    }

    /// Removes the Picket key an earlier Pepper kept in the settings of the source called
    /// `name` (``ListSource/legacyPicketKey``), once it is `key`: the settings are cleared with
    /// SQLite's `secure_delete` on, which overwrites the freed bytes, and the write-ahead log is
    /// then checkpointed and truncated, so the key is gone from the database's files, not only
    /// from its rows. The checkpoint is skipped while another connection reads (the next
    /// checkpoint overwrites those pages).
    ///
    /// - Returns: Whether the settings held `key` and were cleared.
    @discardableResult
    public func forgetLegacyPicketKey(_ key: String, named name: String) throws -> Bool {
        let cleared = try database.writer.writeWithoutTransaction { db -> Bool in
            let previous = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = \(previous == 0 ? 0 : 1)") }
            var cleared = false
            try db.inTransaction {
                guard let source = try ListSource.filter(Column("name") == name).fetchOne(db), source.legacyPicketKey == key else {
                    return .commit
                }
                try db.execute(sql: "UPDATE listSource SET settings = NULL WHERE name = ?", arguments: [name])
                cleared = true
                return .commit
            }
            if cleared { _ = try? db.checkpoint(.truncate) }
            return cleared
        }
        return cleared
    }

    /// Removes the source called `name`; returns whether it existed.
    @discardableResult
    public func remove(named name: String) throws -> Bool {
        try database.write { db in
            try ListSource.filter(Column("name") == name).deleteAll(db) > 0
        }
    }
}
