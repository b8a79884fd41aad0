import Foundation
import GRDB

/// The decisions a home changed since its sync last looked: one row per synced record, written
/// by triggers on the tables that hold the decisions (migration `v-sync-2-outbox-and-devices`),
/// so a change counts whichever face or process made it — the command line, the console, the
/// app or one of its extensions. Sync reads the rows, compares the tables with what it last
/// synced, and turns the differences into changes (`docs/sync.md`).
///
/// The triggers write only once the home has a sync ledger (it serves or follows): a home that
/// never synced pays nothing.
public struct SyncOutbox: Sendable {
    /// One changed record: its kind's name and key, as `SyncRecordID` spells them.
    public struct Entry: Sendable, Hashable {
        /// The record kind (`allowlist`, `my-rule`, `list`, `call-number`, `message-rule`).
        public var kind: String
        /// The record key.
        public var key: String
        /// When the change was made, in milliseconds since 1970 (as stored).
        public var changedAtMillis: Int64
        /// When the change was made.
        public var changedAt: Date { Date(timeIntervalSince1970: Double(changedAtMillis) / 1000) }
    }

    /// A synced table: which record kind its rows are, and the SQL expression of a row's key
    /// (over `NEW.` / `OLD.` in triggers, over the bare columns in reads).
    public struct SyncedTable: Sendable, Hashable {
        /// The table.
        public var table: String
        /// The record kind its rows are.
        public var kind: String
        /// The key, as an SQL expression with `$` for the row's alias (`NEW.`, `OLD.`, or none).
        var key: String
        /// Which rows sync, with `$` as in ``key`` (`nil`: every row).
        var condition: String?
        /// The columns whose change is a change of the decision (`nil`: any).
        var columns: [String]?

        /// The key over the columns of the table as it is read.
        public var keyExpression: String { key.replacingOccurrences(of: "$", with: "") }
        /// The condition over the columns of the table as it is read (`1` when every row syncs).
        public var conditionExpression: String { condition?.replacingOccurrences(of: "$", with: "") ?? "1" }
    }

    /// The synced tables. The keys here and the kinds' readers in `PepperActions` are one
    /// decision: a row's key is computed by this expression in both places.
    public static let tables: [SyncedTable] = [
        SyncedTable(table: "allowlist", kind: "allowlist", key: "$domain", columns: ["domain", "expiresAt"]),
        SyncedTable(table: "userRule", kind: "my-rule", key: "$text", columns: ["text"]),
        SyncedTable(
            table: "listSource", kind: "list", key: "CASE WHEN $builtIn THEN $name ELSE $location END",
            condition: "($builtIn OR $location LIKE 'https://%' OR $location LIKE 'http://%')",
            columns: ["name", "location", "format", "enabled", "settings"]),
        SyncedTable(
            table: "callEntry", kind: "call-number", key: "$kind || ':+' || $number", columns: ["kind", "number", "label", "pattern"]),
        SyncedTable(table: "smsWord", kind: "message-rule", key: "'word:' || $folded || ':' || $sender", columns: nil),
        SyncedTable(table: "smsSender", kind: "message-rule", key: "'sender:' || $sender", columns: ["sender"]),
    ]

    private let database: PepperDatabase

    /// The outbox of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// The changed records, oldest change first.
    public static func entries(_ db: Database) throws -> [Entry] {
        try Row.fetchAll(db, sql: "SELECT kind, key, changedAt FROM syncOutbox ORDER BY changedAt, kind, key").map { row in
            Entry(kind: row["kind"], key: row["key"], changedAtMillis: row["changedAt"])
        }
    }

    /// Whether any record changed since the outbox was last cleared: cheap enough to ask every
    /// half second.
    public func hasEntries() throws -> Bool {
        try database.writer.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM syncOutbox)") ?? false }
    }

    /// Creates the outbox and its triggers (part of migration `v-sync-2-outbox-and-devices`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "syncOutbox", options: [.withoutRowID]) { table in
            table.column("kind", .text).notNull()
            table.column("key", .text).notNull()
            // Milliseconds since 1970: the change's time, for its sync stamp.
            table.column("changedAt", .integer).notNull()
            table.primaryKey(["kind", "key"])
        }
        let now = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        for synced in tables {
            for (event, rows) in [("INSERT", ["NEW"]), ("UPDATE", ["OLD", "NEW"]), ("DELETE", ["OLD"])] {
                let of = event == "UPDATE" ? (synced.columns.map { " OF " + $0.joined(separator: ", ") } ?? "") : ""
                var statements = ""
                for row in rows {
                    let key = synced.key.replacingOccurrences(of: "$", with: "\(row).")
                    let condition = synced.condition?.replacingOccurrences(of: "$", with: "\(row).") ?? "1"
                    statements += """
                        INSERT INTO syncOutbox (kind, key, changedAt) SELECT '\(synced.kind)', \(key), \(now) WHERE \(condition)
                        ON CONFLICT (kind, key) DO UPDATE SET changedAt = excluded.changedAt;

                        """
                }
                try db.execute(
                    sql: """
                        CREATE TRIGGER syncOutbox_\(synced.table)_\(event.lowercased()) AFTER \(event)\(of) ON \(synced.table)
                        WHEN EXISTS (SELECT 1 FROM syncLedger)
                        BEGIN
                        \(statements)END
                        """)
            }
        }
    }
}
