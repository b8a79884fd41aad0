import Foundation
import GRDB

/// The person's own filter rules ("My rules"): lines in Adblock Plus syntax, kept in the state
/// and compiled like any enabled list (as the list `my-rules`).
public struct UserRuleStore: Sendable {
    /// The name the rules carry as a list: in the manifest, in `pepper check` and in the DNS log.
    public static let listName = "my-rules"

    /// One rule.
    public struct Rule: Hashable, Sendable, Codable {
        /// The rule as written (trimmed).
        public var text: String
        /// When it was added.
        public var addedAt: Date

        /// A rule with the given fields.
        public init(text: String, addedAt: Date) {
            self.text = text
            self.addedAt = addedAt
        }
    }

    private let database: PepperDatabase

    /// The rules of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Every rule, in the order added.
    public func rules() throws -> [Rule] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT text, addedAt FROM userRule ORDER BY position").map {
                Rule(text: $0[0], addedAt: ($0[1] as StoredDate).date)
            }
        }
    }

    /// The rules as the text of a list, one per line (empty when there is none).
    public func listText() throws -> String {
        try rules().map(\.text).joined(separator: "\n")
    }

    /// Adds a rule at the end; a rule already there is left where it is.
    ///
    /// - Returns: Whether it was new.
    @discardableResult
    public func add(_ text: String, at date: Date = Date()) throws -> Bool {
        try database.writer.write { db in
            try Self.insert(text, at: date, in: db)
        }
    }

    /// Removes a rule; returns whether it was there.
    @discardableResult
    public func remove(_ text: String) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM userRule WHERE text = ?", arguments: [text])
            return db.changesCount > 0
        }
    }

    /// Replaces every rule with `texts` in one transaction (the "My rules" editor saving).
    /// Rules that were there keep the date they were first added.
    public func replace(with texts: [String], at date: Date = Date()) throws {
        try database.writer.write { db in
            let added = Dictionary(
                try Row.fetchAll(db, sql: "SELECT text, addedAt FROM userRule").map { (row: Row) -> (String, Date) in
                    (row[0], (row[1] as StoredDate).date)
                },
                uniquingKeysWith: { first, _ in first })
            try db.execute(sql: "DELETE FROM userRule")
            for text in texts { _ = try Self.insert(text, at: added[text] ?? date, in: db) }
        }
    }

    private static func insert(_ text: String, at date: Date, in db: Database) throws -> Bool {
        try db.execute(
            sql: """
                INSERT INTO userRule (position, text, addedAt)
                VALUES ((SELECT COALESCE(MAX(position), 0) + 1 FROM userRule), ?, ?)
                ON CONFLICT(text) DO NOTHING
                """, arguments: [text, date.stored])
        return db.changesCount > 0
    }

    /// Creates the table (migration `v-console-1`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "userRule") { table in
            table.primaryKey("position", .integer)
            table.column("text", .text).notNull().unique()
            table.column("addedAt", .datetime).notNull()
        }
    }
}
