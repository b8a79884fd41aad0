import CallFilter
import Foundation
import GRDB

/// The block and identification lists for calls, with their change history, in the state
/// database. Every change is one transaction that bumps the lists' version, so a reader in another
/// process (the call-directory extension) sees either the old lists or the new ones, never a mix.
public struct CallListStore: Sendable, CallDirectorySource {
    /// One stored entry.
    public struct Entry: Sendable, Hashable, Codable {
        /// Which list.
        public var kind: CallDirectoryEntryKind
        /// The E.164 digits as an integer.
        public var number: Int64
        /// The identification label.
        public var label: String?
        /// The range it was added with (`+125395012##`), if any.
        public var pattern: String?
    }

    /// What a change did.
    public struct Change: Sendable, Hashable {
        /// Entries added or relabelled.
        public var added: Int
        /// Entries removed.
        public var removed: Int
        /// The lists' version after the change (unchanged when nothing changed).
        public var version: Int64
    }

    private let database: PepperDatabase

    /// The lists of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// The block list as the message filter asks it: one index lookup per sender (the list may
    /// hold millions of numbers, too many to keep in a message filter's memory). A lookup that
    /// fails answers "not blocked": the message is then decided by the other rules.
    public func blockList() -> CallBlockList {
        let database = database
        return CallBlockList { number in
            (try? database.writer.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM callEntry WHERE kind = ? AND number = ?",
                    arguments: [CallDirectoryEntryKind.blocking.rawValue, number])
            }) == true
        }
    }

    /// The lists' current version.
    public func version() throws -> Int64 {
        try database.writer.read { db in try Self.version(db) }
    }

    static func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT version FROM callListState WHERE id = 1") ?? 0
    }

    /// Adds (or relabels) entries of one list; `pattern` remembers the range they came from.
    @discardableResult
    public func add(_ kind: CallDirectoryEntryKind, _ entries: [CallDirectoryEntry], pattern: String? = nil) throws -> Change {
        try database.write { db in
            let version = try Self.version(db) + 1
            let now = Date().stored
            var added = 0
            let select = try db.cachedStatement(sql: "SELECT label FROM callEntry WHERE kind = ? AND number = ?")
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM callEntry WHERE kind = ? AND number = ?")
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO callEntry (kind, number, label, pattern, version, addedAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, number) DO UPDATE SET label = excluded.label, pattern = excluded.pattern, version = excluded.version
                    """)
            let log = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO callChange (kind, number, version, present, label) VALUES (?, ?, ?, 1, ?)")
            for entry in entries {
                let label = kind == .identification ? (entry.label ?? "") : nil
                let present = try Bool.fetchOne(exists, arguments: [kind.rawValue, entry.number]) ?? false
                if present, try String.fetchOne(select, arguments: [kind.rawValue, entry.number]) == label { continue }
                try upsert.execute(arguments: [kind.rawValue, entry.number, label, pattern, version, now])
                try log.execute(arguments: [kind.rawValue, entry.number, version, label])
                added += 1
            }
            return try Self.finish(db, added: added, removed: 0, version: version)
        }
    }

    /// Removes entries of one list.
    @discardableResult
    public func remove(_ kind: CallDirectoryEntryKind, _ numbers: [Int64]) throws -> Change {
        try database.write { db in
            let version = try Self.version(db) + 1
            var removed = 0
            let delete = try db.cachedStatement(sql: "DELETE FROM callEntry WHERE kind = ? AND number = ?")
            let log = try db.cachedStatement(sql: "INSERT OR REPLACE INTO callChange (kind, number, version, present) VALUES (?, ?, ?, 0)")
            for number in numbers {
                try delete.execute(arguments: [kind.rawValue, number])
                guard db.changesCount > 0 else { continue }
                try log.execute(arguments: [kind.rawValue, number, version])
                removed += 1
            }
            return try Self.finish(db, added: 0, removed: removed, version: version)
        }
    }

    /// Replaces a whole list with `entries` in one transaction (an import): only the differences
    /// are written and logged, so an incremental load afterwards carries just those.
    @discardableResult
    public func replace(_ kind: CallDirectoryEntryKind, with entries: some Sequence<CallDirectoryEntry>) throws -> Change {
        try replace([kind: Array(entries)])
    }

    /// Replaces several lists at once, in one transaction and one version: a reader sees all the
    /// old lists or all the new ones (replacing them one transaction each would let a reader see
    /// the new block list with the old labels).
    @discardableResult
    public func replace(_ lists: [CallDirectoryEntryKind: [CallDirectoryEntry]]) throws -> Change {
        try database.write { db in
            let version = try Self.version(db) + 1
            var total = Change(added: 0, removed: 0, version: version)
            for kind in CallDirectoryEntryKind.allCases {
                guard let entries = lists[kind] else { continue }
                let change = try Self.replace(db, kind, with: entries, version: version)
                total.added += change.added
                total.removed += change.removed
            }
            return try Self.finish(db, added: total.added, removed: total.removed, version: version)
        }
    }

    private static func replace(
        _ db: Database, _ kind: CallDirectoryEntryKind, with entries: [CallDirectoryEntry], version: Int64
    ) throws
        -> (added: Int, removed: Int)
    {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS incoming (number INTEGER PRIMARY KEY, label TEXT)")
        try db.execute(sql: "DELETE FROM incoming")
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO incoming (number, label) VALUES (?, ?)")
        for entry in entries {
            try insert.execute(arguments: [entry.number, kind == .identification ? (entry.label ?? "") : nil])
        }
        let arguments: StatementArguments = [kind.rawValue, version]
        // Removals: stored but not incoming.
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO callChange (kind, number, version, present)
                SELECT ?1, number, ?2, 0 FROM callEntry WHERE kind = ?1 AND number NOT IN (SELECT number FROM incoming)
                """, arguments: arguments)
        let removed = db.changesCount
        try db.execute(
            sql: "DELETE FROM callEntry WHERE kind = ? AND number NOT IN (SELECT number FROM incoming)", arguments: [kind.rawValue])
        // Additions and relabels.
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO callChange (kind, number, version, present, label)
                SELECT ?1, i.number, ?2, 1, i.label FROM incoming i
                LEFT JOIN callEntry e ON e.kind = ?1 AND e.number = i.number
                WHERE e.number IS NULL OR e.label IS NOT i.label
                """, arguments: arguments)
        let added = db.changesCount
        try db.execute(
            sql: """
                INSERT INTO callEntry (kind, number, label, pattern, version, addedAt)
                SELECT ?1, i.number, i.label, NULL, ?2, ?3 FROM incoming i WHERE true
                ON CONFLICT (kind, number) DO UPDATE SET label = excluded.label, version = excluded.version
                WHERE callEntry.label IS NOT excluded.label
                """, arguments: [kind.rawValue, version, Date().stored])
        try db.execute(sql: "DELETE FROM incoming")
        return (added, removed)
    }

    private static func finish(_ db: Database, added: Int, removed: Int, version: Int64) throws -> Change {
        guard added + removed > 0 else { return Change(added: 0, removed: 0, version: version - 1) }
        try db.execute(sql: "UPDATE callListState SET version = ? WHERE id = 1", arguments: [version])
        // The change history would otherwise grow with every change for ever; now and then it
        // is cut to what incremental loads of the recent versions need.
        if version % compactionInterval == 0 { _ = try compact(db, through: version - retainedVersions) }
        return Change(added: added, removed: removed, version: version)
    }

    // MARK: Change history

    /// How many versions back incremental loads stay possible after an automatic compaction.
    public static let retainedVersions: Int64 = 1_000
    /// Every how many versions the history is compacted automatically.
    static let compactionInterval: Int64 = 100

    /// The oldest version incremental loads can start from (older history was compacted).
    public func oldestIncrementalVersion() throws -> Int64 {
        try database.writer.read { db in try Self.compactedThrough(db) }
    }

    static func compactedThrough(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT compactedThrough FROM callListState WHERE id = 1") ?? 0
    }

    /// Drops the change history that no incremental load from `floor` or later needs, and makes
    /// `floor` the oldest version such loads can start from; loads from older versions become
    /// full ones.
    ///
    /// - Returns: The change records removed.
    @discardableResult
    public func compactChanges(through floor: Int64) throws -> Int {
        try database.write { db in try Self.compact(db, through: min(floor, try Self.version(db))) }
    }

    /// For a load from `old` ≥ `floor`, a number's state at `old` is its last change up to `old`:
    /// a change after `floor`, or its last one up to `floor`. So of the changes up to `floor` only
    /// each number's last one is kept, and not even that when it is a removal (no record reads
    /// as absent). Only numbers changed since the previous floor can have anything to drop.
    private static func compact(_ db: Database, through floor: Int64) throws -> Int {
        let previous = try compactedThrough(db)
        guard floor > previous else { return 0 }
        let window: StatementArguments = [previous, floor]
        try db.execute(
            sql: """
                DELETE FROM callChange
                WHERE version <= ?2 AND (kind, number) IN (SELECT kind, number FROM callChange WHERE version > ?1 AND version <= ?2)
                AND version < (SELECT MAX(m.version) FROM callChange m
                               WHERE m.kind = callChange.kind AND m.number = callChange.number AND m.version <= ?2)
                """, arguments: window)
        var removed = db.changesCount
        try db.execute(
            sql: "DELETE FROM callChange WHERE version > ?1 AND version <= ?2 AND present = 0", arguments: window)
        removed += db.changesCount
        try db.execute(sql: "UPDATE callListState SET compactedThrough = ? WHERE id = 1", arguments: [floor])
        return removed
    }

    /// Every entry of both lists (block first), ascending; for listing, not for millions.
    public func entries() throws -> [Entry] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, number, label, pattern FROM callEntry ORDER BY kind = 'identify', number").map { row in
                Entry(kind: CallDirectoryEntryKind(rawValue: row[0]) ?? .blocking, number: row[1], label: row[2], pattern: row[3])
            }
        }
    }

    /// Entries as people added them: a range (`+1206555 01##`) is one group, any other number
    /// one group of its own.
    public struct Group: Sendable, Hashable {
        /// Which list.
        public var kind: CallDirectoryEntryKind
        /// The range pattern, or `nil` for a single number.
        public var pattern: String?
        /// The first number (the only one for a single number).
        public var first: Int64
        /// How many numbers it holds.
        public var count: Int
        /// The identification label.
        public var label: String?
    }

    /// The groups of both lists (block first, then by number), at most `limit` of them, and how
    /// many there are in all: a screen lists ranges without loading their numbers.
    public func groups(limit: Int) throws -> (groups: [Group], total: Int) {
        try database.writer.read { db in
            let grouping = "GROUP BY kind, CASE WHEN pattern IS NULL THEN CAST(number AS TEXT) ELSE pattern END, label"
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT kind, pattern, label, MIN(number) AS first, COUNT(*) AS count FROM callEntry \(grouping)
                    ORDER BY kind = 'identify', first LIMIT ?
                    """, arguments: [max(0, limit)])
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM callEntry \(grouping))") ?? 0
            return (
                rows.map { row in
                    Group(
                        kind: CallDirectoryEntryKind(rawValue: row["kind"]) ?? .blocking, pattern: row["pattern"], first: row["first"],
                        count: row["count"], label: row["label"])
                }, total
            )
        }
    }

    /// The number of entries per list.
    public func counts() throws -> [CallDirectoryEntryKind: Int] {
        try database.writer.read { db in
            var counts: [CallDirectoryEntryKind: Int] = [.blocking: 0, .identification: 0]
            for row in try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) FROM callEntry GROUP BY kind") {
                if let kind = CallDirectoryEntryKind(rawValue: row[0]) { counts[kind] = row[1] }
            }
            return counts
        }
    }

    /// The entries that apply to `number`: whether it is blocked and its label.
    public func lookup(_ number: Int64) throws -> (blocked: Bool, label: String?) {
        let listing = try listing(number)
        return (listing.blocked, listing.label)
    }

    /// What the lists say about `number`: blocked (and by which range), and its label.
    public func listing(_ number: Int64) throws -> CallScreening.Listing {
        try database.writer.read { db in
            let blocked = try Row.fetchOne(
                db, sql: "SELECT pattern FROM callEntry WHERE kind = 'block' AND number = ?", arguments: [number])
            let label = try String.fetchOne(
                db, sql: "SELECT label FROM callEntry WHERE kind = 'identify' AND number = ?", arguments: [number])
            return CallScreening.Listing(blocked: blocked != nil, blockedPattern: blocked?["pattern"], label: label)
        }
    }

    // MARK: CallDirectorySource

    /// Runs `body` inside one read transaction: a consistent snapshot even while another process writes.
    public func withSnapshot<T>(_ body: (any CallDirectorySnapshot) throws -> T) throws -> T {
        try database.writer.read { db in
            try body(Snapshot(db: db, version: try Self.version(db), oldestIncrementalVersion: try Self.compactedThrough(db)))
        }
    }

    struct Snapshot: CallDirectorySnapshot {
        let db: Database
        let version: Int64
        let oldestIncrementalVersion: Int64

        func withEntries<T>(_ kind: CallDirectoryEntryKind, _ body: (inout any CallDirectoryEntryCursor) throws -> T) throws -> T {
            var cursor: any CallDirectoryEntryCursor
            switch kind {
            case .blocking:
                cursor = NumberCursor(
                    base: try Int64.fetchCursor(db, sql: "SELECT number FROM callEntry WHERE kind = 'block' ORDER BY number"))
            case .identification:
                cursor = RowEntryCursor(
                    base: try Row.fetchCursor(db, sql: "SELECT number, label FROM callEntry WHERE kind = 'identify' ORDER BY number"))
            }
            return try body(&cursor)
        }

        func withChanges<T>(
            _ kind: CallDirectoryEntryKind, since old: Int64,
            _ body: (inout any CallDirectoryEntryCursor, inout any CallDirectoryEntryCursor) throws -> T
        ) throws -> T {
            guard old >= oldestIncrementalVersion, old <= version else { throw CallDirectoryError.unknownVersion(old) }
            // For each number touched since `old`: its state at `old` (the last change up to then)
            // against its state now (callEntry). A relabel is a removal plus an addition.
            let touched = """
                WITH touched AS (SELECT DISTINCT number FROM callChange WHERE kind = ?1 AND version > ?2),
                before AS (
                    SELECT t.number,
                        (SELECT c.present FROM callChange c WHERE c.kind = ?1 AND c.number = t.number AND c.version <= ?2
                            ORDER BY c.version DESC LIMIT 1) AS wasPresent,
                        (SELECT c.label FROM callChange c WHERE c.kind = ?1 AND c.number = t.number AND c.version <= ?2
                            ORDER BY c.version DESC LIMIT 1) AS oldLabel
                    FROM touched t)
                """
            let arguments: StatementArguments = [kind.rawValue, old]
            var removals: any CallDirectoryEntryCursor = RowEntryCursor(
                base: try Row.fetchCursor(
                    db,
                    sql: touched + """
                        SELECT b.number, NULL FROM before b LEFT JOIN callEntry e ON e.kind = ?1 AND e.number = b.number
                        WHERE b.wasPresent = 1 AND (e.number IS NULL OR e.label IS NOT b.oldLabel) ORDER BY b.number
                        """, arguments: arguments))
            // SQLite can keep two statements open in one transaction; removals are drained first.
            var additions: any CallDirectoryEntryCursor = LazyCursor {
                RowEntryCursor(
                    base: try Row.fetchCursor(
                        db,
                        sql: touched + """
                            SELECT e.number, e.label FROM before b JOIN callEntry e ON e.kind = ?1 AND e.number = b.number
                            WHERE b.wasPresent IS NULL OR b.wasPresent = 0 OR e.label IS NOT b.oldLabel ORDER BY e.number
                            """, arguments: arguments))
            }
            return try body(&removals, &additions)
        }
    }
}

/// Blocking entries straight from an integer column.
struct NumberCursor: CallDirectoryEntryCursor {
    let base: DatabaseValueCursor<Int64>
    mutating func next() throws -> CallDirectoryEntry? {
        try base.next().map { CallDirectoryEntry(number: $0) }
    }
}

/// Entries from `(number, label)` rows.
struct RowEntryCursor: CallDirectoryEntryCursor {
    let base: RowCursor
    mutating func next() throws -> CallDirectoryEntry? {
        guard let row = try base.next() else { return nil }
        return CallDirectoryEntry(number: row[0], label: row[1])
    }
}

/// A cursor whose statement is only prepared when first read.
struct LazyCursor<Base: CallDirectoryEntryCursor>: CallDirectoryEntryCursor {
    let make: () throws -> Base
    var base: Base?

    init(_ make: @escaping () throws -> Base) {
        self.make = make
    }

    mutating func next() throws -> CallDirectoryEntry? {
        if base == nil { base = try make() }
        return try base?.next()
    }
}
