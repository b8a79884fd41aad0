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
        try snapshot().domains(at: date)
    }

    /// Every entry as it stands, to ask many questions of without reading the database again.
    public func snapshot() throws -> AllowlistSnapshot {
        AllowlistSnapshot(entries: try entries())
    }

    /// Every entry, expired ones included, sorted by domain.
    public func entries() throws -> [Entry] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT domain, expiresAt FROM allowlist ORDER BY domain").map { row in
                Entry(domain: row["domain"], expiresAt: (row["expiresAt"] as StoredDate?)?.date)
            }
        }
    }

    /// Adds a domain after normalising it (lower case, punycode); with `expiresAt`, only until then
    /// (a "temporarily unprotected" site). Adding an existing domain updates its expiry.
    ///
    /// - Returns: The stored form, and whether it was new.
    /// - Throws: `DomainName.Error` for URLs, ports, wildcards and other non-domains.
    @discardableResult
    public func add(_ input: String, expiresAt: Date? = nil) throws -> (domain: String, added: Bool) {
        let domain = try DomainName.normalize(input)
        let added = try database.write { db in
            let existed = try Bool.fetchOne(db, sql: "SELECT 1 FROM allowlist WHERE domain = ?", arguments: [domain]) ?? false
            try db.execute(
                sql: """
                    INSERT INTO allowlist (domain, addedAt, expiresAt) VALUES (?, ?, ?)
                    ON CONFLICT(domain) DO UPDATE SET expiresAt = excluded.expiresAt
                    """, arguments: [domain, Date().stored, expiresAt.stored])
            return !existed
        }
        return (domain, added)
    }

    /// Adds or updates `adding` (domains in their stored form, with their expiry) and removes
    /// `removing`, in one transaction: a sync batch of thousands of entries.
    public func apply(adding: [(domain: String, expiresAt: Date?)], removing: [String]) throws {
        try database.write { db in
            let now = Date().stored
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO allowlist (domain, addedAt, expiresAt) VALUES (?, ?, ?)
                    ON CONFLICT(domain) DO UPDATE SET expiresAt = excluded.expiresAt
                    """)
            for (domain, expiresAt) in adding { try upsert.execute(arguments: [domain, now, expiresAt.stored]) }
            let delete = try db.cachedStatement(sql: "DELETE FROM allowlist WHERE domain = ?")
            for domain in removing { try delete.execute(arguments: [domain]) }
        }
    }

    /// Removes a domain.
    ///
    /// - Returns: Whether it was present.
    @discardableResult
    public func remove(_ input: String) throws -> Bool {
        let domain = (try? DomainName.normalize(input)) ?? input
        return try database.write { db in
            try db.execute(sql: "DELETE FROM allowlist WHERE domain = ?", arguments: [domain])
            return db.changesCount > 0
        }
    }
}

/// The allowlist as it was read once: which entries are in effect at a moment, and which cover a
/// site. The one place where "an entry covers a site" is decided: the site itself or any of its
/// subdomains.
public struct AllowlistSnapshot: Sendable, Hashable {
    /// The entries, sorted by domain.
    public let entries: [AllowlistStore.Entry]

    /// A snapshot of `entries`.
    public init(entries: [AllowlistStore.Entry]) {
        self.entries = entries.sorted { $0.domain < $1.domain }
    }

    /// The domains in effect at `date` (lapsed temporary entries left out), sorted.
    public func domains(at date: Date) -> [String] {
        entries.filter { $0.expiresAt.map { $0 > date } ?? true }.map(\.domain)
    }

    /// The domains in effect at `date` that cover `site` (lower case, no final dot).
    public func domains(covering site: String, at date: Date) -> [String] {
        domains(at: date).filter { Self.domain($0, covers: site) }
    }

    /// Whether an entry in effect at `date` covers `site`.
    public func covers(_ site: String, at date: Date) -> Bool {
        entries.contains { ($0.expiresAt.map { $0 > date } ?? true) && Self.domain($0.domain, covers: site) }
    }

    /// Whether an entry for `domain` covers `site`: the same name, or a subdomain of it.
    public static func domain(_ domain: String, covers site: String) -> Bool {
        site == domain || (site.hasSuffix(domain) && site.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: "."))
    }
}
