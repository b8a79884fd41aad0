import Crypto
import FilterLists
import Foundation

/// First-party isolation: which website data store a page uses, the same decision in both
/// browsers (`pepper browse` and the app's).
///
/// Each site — a page's registrable domain (`news.example.co.uk` → `example.co.uk`, by the
/// embedded Public Suffix List), or its IP address, or `localhost` — gets a website data store
/// of its own: cookies, local storage, IndexedDB, caches and service workers. Everything a page
/// of that site and the frames it embeds store goes there, so a third party embedded under two
/// sites sees two unrelated stores and cannot follow a person from one to the other, and a site
/// visited directly (a tracker's own page) cannot read, as a third party, what it stored then.
/// Pages that are no web site (`about:`, `file:`, `data:`, the starter) share one store of
/// their own.
///
/// A web view belongs to one partition for its life (neither WebKitGTK nor WKWebView can change
/// a view's store), so a main-frame navigation to another partition (``crosses(to:)``) moves
/// to another web view.
public struct SitePartition: Hashable, Sendable, CustomStringConvertible {
    /// The site (registrable domain, IP address or `localhost`); `nil` for pages that are no web site.
    public let site: String?

    /// The partition of `site` (lower case, as ``site(ofPage:)`` gives it); `nil` for pages that are no web site.
    public init(site: String?) {
        self.site = site
    }

    /// The partition of the page at `url`.
    public init(pageURL url: String) {
        self.init(site: Self.site(ofPage: url))
    }

    /// The site of a page: the registrable domain of an `http`/`https` address's host, or the
    /// host itself for an IP address, `localhost` or a public suffix; `nil` for other addresses.
    public static func site(ofPage url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        while host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        // An IPv6 address is its own site (`URLComponents` may give it with or without brackets).
        if host.contains(":") { return host }
        // Internationalised names as the engines send them (punycode), like the allowlist's sites.
        let ascii = (try? DomainName.normalize(host)) ?? host
        return String(PublicSuffixList.shared.registrableDomain(of: ascii))
    }

    /// Whether a main-frame navigation to `url` leaves this partition (the shells then show it
    /// in a web view of the other partition's store).
    public func crosses(to url: String) -> Bool {
        Self(pageURL: url) != self
    }

    /// The stable identifier of the partition's website data store: a UUID derived from the
    /// site (SHA-256 of a fixed prefix and the site, in UUID version 8 form), so the same site
    /// finds the same store after a relaunch (iOS 17's `WKWebsiteDataStore(forIdentifier:)`).
    /// It is no secret: anyone can derive it from the site's name.
    public var storeIdentifier: UUID {
        var bytes = Array(SHA256.hash(data: Data(("pepper-website-data-store\n" + (site ?? "")).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant: RFC 9562
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The site, or `(no site)`.
    public var description: String { site ?? "(no site)" }
}
