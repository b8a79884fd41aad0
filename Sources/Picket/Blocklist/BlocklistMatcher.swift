import Foundation

/// The clients' rule for blocklist entries (`docs/picket.md`): a host matches an entry when, both
/// lower-cased and without a leading `www.`, they are equal or the host ends in `.` + entry.
///
/// Entries may be bare host names (`example.com`) or URLs (`https://www.example.com/jobs`):
/// only their host counts, as in the Android client. Lookups walk the host's parent domains
/// through a dictionary, so a match costs one probe per label whatever the list's size.
public struct BlocklistMatcher: Sendable {
    private var entriesByHost: [String: BlocklistEntry]

    /// A matcher over `entries`; for hosts listed twice the first entry wins.
    public init(entries: [BlocklistEntry]) {
        var byHost: [String: BlocklistEntry] = [:]
        for entry in entries {
            guard let host = Self.normalizedHost(entry.url), byHost[host] == nil else { continue }
            byHost[host] = entry
        }
        entriesByHost = byHost
    }

    /// How many distinct hosts the matcher holds.
    public var count: Int { entriesByHost.count }

    /// The distinct entry hosts, sorted.
    public var hosts: [String] { entriesByHost.keys.sorted() }

    /// The entry a host (or URL) falls under, if any.
    public func match(_ hostOrURL: String) -> BlocklistEntry? {
        guard let normalized = Self.normalizedHost(hostOrURL) else { return nil }
        var host = Substring(normalized)
        while true {
            if let entry = entriesByHost[String(host)] { return entry }
            guard let dot = host.firstIndex(of: ".") else { return nil }
            host = host[host.index(after: dot)...]
        }
    }

    /// The host of a bare host name or URL, lower-cased, without a leading `www.`, a port or a
    /// trailing dot; `nil` when there is none.
    public static func normalizedHost(_ hostOrURL: String) -> String? {
        var text = Substring(hostOrURL.trimmingCharacters(in: .whitespacesAndNewlines))
        if let scheme = text.range(of: "://") { text = text[scheme.upperBound...] }
        if let end = text.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { text = text[..<end] }
        if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
        if text.hasPrefix("[") { return nil }  // IPv6 literals are never employer domains
        if let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        var host = text.lowercased()
        while host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("www.") { host.removeFirst(4) }
        guard !host.isEmpty, !host.hasPrefix("."), !host.contains("..") else { return nil }
        return host
    }
}
