/// What the DNS filter did with one query: the resolver decides it, the query log and its
/// counters store it as the raw value, and every reader (`pepper dns stats` and `log`, the
/// console's DNS and start screens) asks it whether the query was blocked rather than reading the
/// text.
///
/// The raw values are the texts stored since the query log began, so old databases read as they
/// are: never change one, add a case for a new outcome.
public enum DNSQueryOutcome: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The name (or a parent) is blocked.
    case blocked
    /// A CNAME in the upstream answer points at a blocked name.
    case blockedCNAME = "blocked-cname"
    /// Answered from the cache.
    case cached
    /// Answered by an upstream.
    case forwarded
    /// Answered from an expired cache entry because the upstreams did not answer (RFC 8767).
    case stale
    /// Every upstream failed, or none answered in time: SERVFAIL.
    case failed
    /// The client is not allowed: REFUSED.
    case refused
    /// The query could not be read (FORMERR) or was dropped.
    case malformed

    /// Whether the filter blocked the query, by its name or by a CNAME in the answer.
    public var isBlocked: Bool {
        switch self {
        case .blocked, .blockedCNAME: true
        case .cached, .forwarded, .stale, .failed, .refused, .malformed: false
        }
    }

    /// The outcomes that count as blocked, for queries that filter on the stored text.
    public static let blockedOutcomes = allCases.filter(\.isBlocked)

    /// The stored text (`blocked-cname`), as logs and counters show it.
    public var description: String { rawValue }

    /// An SQL condition on the `outcome` column that holds for blocked queries: the raw values
    /// written out, so that the one decision above is the only one.
    static let blockedCondition = condition(blockedOutcomes)

    /// An SQL condition that holds for the outcomes this version knows: rows a newer Pepper wrote
    /// with another outcome are left out before a `LIMIT` counts them, not after.
    static let knownCondition = condition(allCases)

    private static func condition(_ outcomes: [DNSQueryOutcome]) -> String {
        "outcome IN (" + outcomes.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }
}
