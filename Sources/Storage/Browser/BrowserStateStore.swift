import Foundation
import GRDB

/// The browser's state in `pepper.sqlite` (`docs/browser.md`): the back/forward history with the
/// current position, and a few settings (zoom, search engine, whether the search suggestion
/// was shown). Tables `browserHistory` and `browserSetting`, added by migration
/// `v-browser-1-history-and-settings`.
///
/// The history is small (the browser keeps at most a few hundred entries), so it is saved
/// whole, in one transaction, after every change: a reader — the next launch — never sees a
/// half-written list.
public struct BrowserStateStore: Sendable {
    /// The setting present once the search-engine suggestion was answered, in the browser or in
    /// the onboarding (`BrowserSession.SettingKey` names the others; this one is here because
    /// `PepperActions`, below the browser's model, records the onboarding's answer).
    public static let searchSuggestionAnsweredKey = "searchSuggestionAnswered"

    private let database: PepperDatabase

    /// The browser state of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// One stored history entry.
    public struct HistoryRecord: Codable, Hashable, Sendable {
        /// The page's address.
        public var url: String
        /// The page's title, empty when unknown.
        public var title: String

        /// A record with the given fields.
        public init(url: String, title: String) {
            self.url = url
            self.title = title
        }
    }

    /// The stored history: entries oldest first and the position of the current one.
    public struct History: Hashable, Sendable {
        /// The entries, oldest first.
        public var entries: [HistoryRecord]
        /// The index of the current entry in `entries`; `nil` when there is none.
        public var currentIndex: Int?

        /// A history with the given fields.
        public init(entries: [HistoryRecord], currentIndex: Int?) {
            self.entries = entries
            self.currentIndex = currentIndex
        }
    }

    /// Reads the history; an out-of-range stored position is clamped to the last entry.
    public func history() throws -> History {
        try database.writer.read { db in
            let entries = try Row.fetchAll(db, sql: "SELECT url, title FROM browserHistory ORDER BY position").map { row in
                HistoryRecord(url: row["url"], title: row["title"])
            }
            let stored = try String.fetchOne(db, sql: "SELECT value FROM browserSetting WHERE key = 'currentIndex'").flatMap { Int($0) }
            guard !entries.isEmpty else { return History(entries: [], currentIndex: nil) }
            let index = min(max(stored ?? entries.count - 1, 0), entries.count - 1)
            return History(entries: entries, currentIndex: index)
        }
    }

    /// Replaces the stored history with `history`, in one transaction.
    public func save(_ history: History) throws {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM browserHistory")
            for (position, entry) in history.entries.enumerated() {
                try db.execute(
                    sql: "INSERT INTO browserHistory (position, url, title) VALUES (?, ?, ?)",
                    arguments: [position, entry.url, entry.title])
            }
            try Self.set("currentIndex", history.currentIndex.map(String.init), in: db)
        }
    }

    /// The value of a setting, or `nil` when it was never set.
    public func setting(_ key: String) throws -> String? {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM browserSetting WHERE key = ?", arguments: [key])
        }
    }

    /// Sets a setting; `nil` removes it.
    public func setSetting(_ key: String, _ value: String?) throws {
        try database.writer.write { db in try Self.set(key, value, in: db) }
    }

    private static func set(_ key: String, _ value: String?, in db: Database) throws {
        if let value {
            try db.execute(
                sql: "INSERT INTO browserSetting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM browserSetting WHERE key = ?", arguments: [key])
        }
    }

    /// Creates the browser's tables (migration `v-browser-1-history-and-settings`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "browserHistory") { table in
            table.primaryKey("position", .integer)
            table.column("url", .text).notNull()
            table.column("title", .text).notNull().defaults(to: "")
        }
        try db.create(table: "browserSetting") { table in
            table.primaryKey("key", .text)
            table.column("value", .text).notNull()
        }
    }
}
