import FilterLists
import Foundation
import GRDB

/// The user's allowlist: sites (and their subdomains) where nothing is blocked or hidden.
public struct AllowlistStore: Sendable {
    private let database: PepperDatabase

    /// The allowlist of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// One allowlisted site.
    public struct Entry: Hashable, Sendable, Codable {
        /// The domain (covering its subdomains), lower-case ASCII.
        public var domain: String
        /// When the entry stops applying; `nil` for a permanent entry.
        public var expiresAt: Date?
    }

    /// The allowlisted domains in effect at `date` (expired temporary entries excluded), sorted.
    public func domains(at date: Date = Date()) throws -> [String] {
        try entries().filter { $0.expiresAt.map { $0 > date } ?? true }.map(\.domain)
    }

    /// Every entry, expired ones included, sorted by domain.
    public func entries() throws -> [Entry] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT domain, expiresAt FROM allowlist ORDER BY domain").map { row in
                Entry(domain: row["domain"], expiresAt: row["expiresAt"])
            }
        }
    }

    /// Adds a domain after normalising it (lower case, punycode); with `expiresAt`, only until then
    /// (a "temporarily unprotected" site). Adding an existing domain updates its expiry.
    ///
    /// - Returns: The stored form, and whether it was new.
    /// - Throws: ``DomainName/Error`` for URLs, ports, wildcards and other non-domains.
    @discardableResult
    public func add(_ input: String, expiresAt: Date? = nil) throws -> (domain: String, added: Bool) {
        let domain = try DomainName.normalize(input)
        let added = try database.writer.write { db in
            let existed = try Bool.fetchOne(db, sql: "SELECT 1 FROM allowlist WHERE domain = ?", arguments: [domain]) ?? false
            try db.execute(
                sql: """
                    INSERT INTO allowlist (domain, addedAt, expiresAt) VALUES (?, ?, ?)
                    ON CONFLICT(domain) DO UPDATE SET expiresAt = excluded.expiresAt
                    """, arguments: [domain, Date(), expiresAt])
            return !existed
        }
        return (domain, added)
    }

    /// Removes a domain.
    ///
    /// - Returns: Whether it was present.
    @discardableResult
    public func remove(_ input: String) throws -> Bool {
        let domain = (try? DomainName.normalize(input)) ?? input
        return try database.writer.write { db in
            try db.execute(sql: "DELETE FROM allowlist WHERE domain = ?", arguments: [domain])
            return db.changesCount > 0
        }
    }
}
