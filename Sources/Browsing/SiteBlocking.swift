import Foundation
import PepperActions
import Picket

/// The per-site blocking toggle (the shield button): turning blocking off for a site adds it
/// to the allowlist, turning it on removes it, and either way the content blocker in
/// `$PEPPER_HOME/out` is rebuilt — through the same actions as `pepper allowlist` and the
/// console, so the change applies to every consumer of the output, not only this browser.
public struct SiteBlocking: Sendable {
    private let state: PepperState

    /// A toggle over the allowlist of `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// The site of a page, as allowlisted: its host, lower case, without a leading `www.`
    /// (so `www.example.com` and `example.com` share one entry, which covers subdomains).
    /// `nil` for addresses without a host that can be allowlisted (`about:`, `file:`, IPv6, ...).
    public static func site(of url: String) -> String? {
        SiteInput.site(ofPage: url)
    }

    /// The allowlist entries that cover `site` (itself or a parent domain), in effect now.
    public func coveringEntries(of site: String) throws(BrowsingError) -> [String] {
        do {
            return try state.allowlistEntries(covering: site)
        } catch {
            throw .storage("cannot read the allowlist: \(error)")
        }
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
    public func toggle(on url: String) async throws(BrowsingError) -> Bool {
        guard Self.site(of: url) != nil else { throw .notASite(url) }
        let blocking = try isBlocking(on: url)
        return try await change { () throws(ActionError) in try await state.setBlocking(!blocking, onPage: url) }
    }

    /// Lets the site of `url` through until `expiry` ("Proceed anyway" on a Picket notice): an
    /// allowlist entry that lapses by itself, then the rebuild.
    ///
    /// - Throws: ``BrowsingError/notASite(_:)`` for pages without a site; storage and rebuild failures.
    public func allow(_ url: String, until expiry: Date) async throws(BrowsingError) {
        guard Self.site(of: url) != nil else { throw .notASite(url) }
        _ = try await change { () throws(ActionError) in try await state.setBlocking(false, onPage: url, until: expiry) }
    }

    /// "Proceed anyway" past a struck employer's notice, from every face (the browsers' notice
    /// pages, the packet tunnel's notification): only when the notice offers it (the Picket
    /// policy is `ask`), the site is let through for ``PicketNotice/proceedDuration``.
    ///
    /// - Throws: ``BrowsingError/cannotProceed(_:)`` when the policy blocks the employer's sites;
    ///   storage and rebuild failures.
    public func proceed(past notice: PicketNotice, now: Date = Date()) async throws(BrowsingError) {
        guard notice.canProceed else { throw .cannotProceed(notice.employer) }
        try await allow(notice.url, until: now.addingTimeInterval(PicketNotice.proceedDuration))
    }

    private func change(_ action: () async throws(ActionError) -> Bool) async throws(BrowsingError) -> Bool {
        do {
            return try await action()
        } catch .rebuild(let reason) {
            throw .rebuild(reason)
        } catch {
            throw .storage("cannot change the allowlist: \(error)")
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
    /// The Picket policy blocks this struck employer's sites: there is no proceeding.
    case cannotProceed(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notASite(let url): return "'\(url)' is not a web site, so blocking cannot be turned off for it"
        case .storage(let reason): return reason
        case .rebuild(let reason): return "cannot rebuild the content blocker: \(reason)"
        case .cannotProceed(let employer):
            return "\(employer)'s sites are blocked during its labor action; the Picket policy allows no exception"
        }
    }
}
