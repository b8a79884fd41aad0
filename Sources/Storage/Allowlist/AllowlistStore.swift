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

    /// The allowlisted domains, sorted.
    public func domains() throws -> [String] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT domain FROM allowlist ORDER BY domain")
        }
    }

    /// Adds a domain after normalising it (lower case, punycode).
    ///
    /// - Returns: The stored form, and whether it was new.
    /// - Throws: ``DomainName/Error`` for URLs, ports, wildcards and other non-domains.
    @discardableResult
    public func add(_ input: String) throws -> (domain: String, added: Bool) {
        let domain = try DomainName.normalize(input)
        let added = try database.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO allowlist (domain, addedAt) VALUES (?, ?)", arguments: [domain, Date()])
            return db.changesCount > 0
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
