import Foundation
import GRDB

/// The console's signed-in sessions, kept in the state so that they survive a restart of
/// `pepper console` (`docs/console.md`).
///
/// Only a SHA-256 of each session's cookie value is stored: whoever reads the database (a
/// backup, another account with access to the file) learns nothing that signs them in.
public struct ConsoleSessionStore: Sendable {
    /// One stored session.
    public struct Session: Sendable, Hashable {
        /// SHA-256 (hex) of the cookie value.
        public var digest: String
        /// How the person signed in (`token` or `password`).
        public var method: String
        /// Who: the account that started the console, or the name given at sign-in.
        public var user: String
        /// When it was made.
        public var createdAt: Date
        /// When it was last used.
        public var lastUsed: Date

        /// A session with the given fields.
        public init(digest: String, method: String, user: String, createdAt: Date, lastUsed: Date) {
            self.digest = digest
            self.method = method
            self.user = user
            self.createdAt = createdAt
            self.lastUsed = lastUsed
        }
    }

    private let database: PepperDatabase

    /// The sessions of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Stores a new session, removes the ones unused since `expiredBefore` or made before
    /// `createdBefore`, then keeps only the `keep` most recently used ones.
    ///
    /// These functions are `async` (GRDB's own queues) so that a console request never blocks
    /// one of Swift's shared threads on the database.
    public func insert(_ session: Session, keep: Int, expiredBefore: Date, createdBefore: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO consoleSession (digest, method, user, createdAt, lastUsed) VALUES (?, ?, ?, ?, ?)",
                arguments: [session.digest, session.method, session.user, session.createdAt.stored, session.lastUsed.stored])
            try db.execute(
                sql: "DELETE FROM consoleSession WHERE lastUsed < ? OR createdAt < ?",
                arguments: [expiredBefore.stored, createdBefore.stored])
            try db.execute(
                sql: "DELETE FROM consoleSession WHERE digest NOT IN (SELECT digest FROM consoleSession ORDER BY lastUsed DESC LIMIT ?)",
                arguments: [keep])
        }
    }

    /// The session whose cookie has this digest, if it is stored.
    public func session(digest: String) async throws -> Session? {
        try await database.writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT digest, method, user, createdAt, lastUsed FROM consoleSession WHERE digest = ?", arguments: [digest]
            )
            .map {
                Session(
                    digest: $0[0], method: $0[1], user: $0[2], createdAt: ($0[3] as StoredDate).date, lastUsed: ($0[4] as StoredDate).date)
            }
        }
    }

    /// Records a use; returns whether the session is still stored (another console may have
    /// ended it).
    @discardableResult
    public func touch(digest: String, at date: Date) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE consoleSession SET lastUsed = ? WHERE digest = ?", arguments: [date.stored, digest])
            return db.changesCount > 0
        }
    }

    /// Ends one session.
    public func remove(digest: String) async throws {
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM consoleSession WHERE digest = ?", arguments: [digest]) }
    }

    /// Ends every session ("sign out everywhere").
    public func removeAll() async throws {
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM consoleSession") }
    }

    /// How many sessions are stored.
    public func count() async throws -> Int {
        try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM consoleSession") ?? 0 }
    }

    /// Creates the table (migration `v-console-3-sessions`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "consoleSession") { table in
            table.primaryKey("digest", .text)
            table.column("method", .text).notNull()
            table.column("user", .text).notNull()
            table.column("createdAt", .datetime).notNull()
            table.column("lastUsed", .datetime).notNull()
        }
    }
}
