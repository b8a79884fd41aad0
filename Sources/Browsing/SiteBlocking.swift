import FilterLists
import Foundation
import Storage

/// The per-site blocking toggle (the shield button): turning blocking off for a site adds it
/// to the allowlist, turning it on removes it, and either way the content blocker in
/// `$PEPPER_HOME/out` is rebuilt so the change applies to every consumer of the output, not
/// only this browser.
public struct SiteBlocking: Sendable {
    /// Rebuilds `$PEPPER_HOME/out` from the state after the allowlist changed.
    public typealias Rebuild = @Sendable () throws -> Void

    private let allowlist: AllowlistStore
    private let rebuild: Rebuild

    /// A toggle over `allowlist` that calls `rebuild` after each change.
    public init(allowlist: AllowlistStore, rebuild: @escaping Rebuild) {
        self.allowlist = allowlist
        self.rebuild = rebuild
    }

    /// The site of a page, as allowlisted: its host, lower case, without a leading `www.`
    /// (so `www.example.com` and `example.com` share one entry, which covers subdomains).
    /// `nil` for addresses without a host that can be allowlisted (`about:`, `file:`, IPv6, ...).
    public static func site(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        guard var domain = try? DomainName.normalize(host) else { return nil }
        if domain.hasPrefix("www."), domain.count > 4 { domain.removeFirst(4) }
        return domain
    }

    /// The allowlist entries that cover `site` (itself or a parent domain), in effect now.
    public func coveringEntries(of site: String) throws(BrowsingError) -> [String] {
        let domains: [String]
        do {
            domains = try allowlist.domains()
        } catch {
            throw .storage("cannot read the allowlist: \(error)")
        }
        return domains.filter { site == $0 || site.hasSuffix("." + $0) }
    }

    /// Whether the content blocker applies on the page at `url` (its site is not allowlisted).
    /// Pages without a site (``site(of:)`` is `nil`) count as protected.
    public func isBlocking(on url: String) throws(BrowsingError) -> Bool {
        guard let site = Self.site(of: url) else { return true }
        return try coveringEntries(of: site).isEmpty
    }

    /// Turns blocking off (allowlists the site) or back on (removes every entry covering it),
    /// then rebuilds the content blocker.
    ///
    /// - Returns: Whether blocking is now on for the site.
    /// - Throws: ``BrowsingError/notASite(_:)`` for pages without a site; storage and rebuild failures.
    @discardableResult
    public func toggle(on url: String) throws(BrowsingError) -> Bool {
        guard let site = Self.site(of: url) else { throw .notASite(url) }
        let covering = try coveringEntries(of: site)
        try changeAllowlist {
            if covering.isEmpty {
                try allowlist.add(site)
            } else {
                for domain in covering { try allowlist.remove(domain) }
            }
        }
        return !covering.isEmpty
    }

    /// Lets the site of `url` through until `expiry` ("Proceed anyway" on a Picket notice): an
    /// allowlist entry that lapses by itself, then the rebuild.
    ///
    /// - Throws: ``BrowsingError/notASite(_:)`` for pages without a site; storage and rebuild failures.
    public func allow(_ url: String, until expiry: Date) throws(BrowsingError) {
        guard let site = Self.site(of: url) else { throw .notASite(url) }
        try changeAllowlist { try allowlist.add(site, expiresAt: expiry) }
    }

    /// Applies `change` to the allowlist, then rebuilds the content blocker.
    private func changeAllowlist(_ change: () throws -> Void) throws(BrowsingError) {
        do {
            try change()
        } catch {
            throw .storage("cannot change the allowlist: \(error)")
        }
        do {
            try rebuild()
        } catch {
            throw .rebuild("\(error)")
        }
    }
}

/// Why a browsing action failed.
public enum BrowsingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The page has no site that can be allowlisted (`about:`, `file:`, the start page).
    case notASite(String)
    /// Pepper's state could not be read or written.
    case storage(String)
    /// The content blocker could not be rebuilt after the allowlist changed.
    case rebuild(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notASite(let url): return "'\(url)' is not a web site, so blocking cannot be turned off for it"
        case .storage(let reason): return reason
        case .rebuild(let reason): return "cannot rebuild the content blocker: \(reason)"
        }
    }
}
