import FilterLists
import Foundation
import Storage

/// A change to the allowlist and what it published.
public struct AllowlistChange: Sendable, Hashable {
    /// The domain as stored (lower-case ASCII).
    public var domain: String
    /// The web address the domain was taken from, when one was pasted.
    public var fromAddress: String?
    /// Whether the domain was new (else its expiry was updated, or it was removed).
    public var added: Bool
    /// When the entry lapses; `nil` for good.
    public var expiresAt: Date?
    /// The rebuild that followed, unless the caller asked for none.
    public var outcome: RebuildOutcome?
}

extension PepperState {
    /// Every allowlist entry, lapsed temporary ones included, sorted by domain.
    public func allowlistEntries() throws(ActionError) -> [AllowlistStore.Entry] {
        do {
            return try AllowlistStore(database: database).entries()
        } catch {
            throw .storage("cannot read the allowlist: \(error)")
        }
    }

    /// The allowlisted domains in effect at `date` (now) that cover `site` (itself or a parent domain).
    public func allowlistEntries(covering site: String, at date: Date = Date()) throws(ActionError) -> [String] {
        do {
            return try AllowlistStore(database: database).snapshot().domains(covering: site, at: date)
        } catch {
            throw .storage("cannot read the allowlist: \(error)")
        }
    }

    /// Allowlists a site (a domain, or the host of a pasted web address), for good or for
    /// `duration` seconds, then rebuilds unless `rebuild` is false.
    public func addAllowlist(
        _ input: String, for duration: TimeInterval? = nil, rebuild: Bool = true
    ) async throws(ActionError)
        -> AllowlistChange
    {
        let (domain, address) = try SiteInput.domain(from: input)
        let expiresAt = duration.map { Date().addingTimeInterval($0) }
        let added = try await onBlockingThreads { [database] () throws(ActionError) -> Bool in
            do {
                return try AllowlistStore(database: database).add(domain, expiresAt: expiresAt).added
            } catch {
                throw .storage("cannot change the allowlist: \(error)")
            }
        }
        let outcome = rebuild ? try await self.rebuild() : nil
        return AllowlistChange(domain: domain, fromAddress: address, added: added, expiresAt: expiresAt, outcome: outcome)
    }

    /// Removes a domain from the allowlist, then rebuilds unless `rebuild` is false.
    ///
    /// - Throws: ``ActionError/notAllowlisted(_:)`` when it is not there.
    public func removeAllowlist(_ input: String, rebuild: Bool = true) async throws(ActionError) -> AllowlistChange {
        let domain = (try? SiteInput.domain(from: input).domain) ?? input.trimmingCharacters(in: .whitespaces)
        let removed = try await onBlockingThreads { [database] () throws(ActionError) -> Bool in
            do {
                return try AllowlistStore(database: database).remove(domain)
            } catch {
                throw .storage("cannot change the allowlist: \(error)")
            }
        }
        guard removed else { throw .notAllowlisted(domain) }
        let outcome = rebuild ? try await self.rebuild() : nil
        return AllowlistChange(domain: domain, fromAddress: nil, added: false, expiresAt: nil, outcome: outcome)
    }

    /// Turns blocking off for the site of a page (allowlists it, for good or until `expiry`) or
    /// back on (removes every entry covering it), then rebuilds: the browser's shield and a
    /// Picket notice's "Proceed anyway".
    ///
    /// - Returns: Whether blocking is now on for the site.
    @discardableResult
    public func setBlocking(_ blocking: Bool, onPage url: String, until expiry: Date? = nil) async throws(ActionError) -> Bool {
        guard let site = SiteInput.site(ofPage: url) else {
            throw .notADomain(input: url, problem: .notAWebSite)
        }
        try await onBlockingThreads { () throws(ActionError) in
            do {
                let store = AllowlistStore(database: self.database)
                if blocking {
                    for domain in try self.allowlistEntries(covering: site) { try store.remove(domain) }
                } else {
                    try store.add(site, expiresAt: expiry)
                }
            } catch let error as ActionError {
                throw error
            } catch {
                throw .storage("cannot change the allowlist: \(error)")
            }
        }
        try await rebuild()
        return blocking
    }
}
