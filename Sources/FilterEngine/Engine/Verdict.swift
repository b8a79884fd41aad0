import FilterLists

/// What the engine decided for a request or a domain.
public struct Verdict: Sendable, Hashable, Codable {
    /// The three outcomes.
    public enum Decision: String, Sendable, Hashable, Codable {
        /// A blocking rule matched and nothing overrode it.
        case blocked = "BLOCKED"
        /// A blocking rule matched, but an exception (or the allowlist) overrode it.
        case allowed = "ALLOWED"
        /// No blocking rule matched.
        case noMatch = "NOMATCH"
    }

    /// The decision.
    public var decision: Decision
    /// The deciding rule: the block for `blocked`, the exception for `allowed`.
    public var rule: MatchedRule?
    /// For `allowed`: the block the exception overrode.
    public var overridden: MatchedRule?

    /// A verdict with the given parts.
    public init(decision: Decision, rule: MatchedRule? = nil, overridden: MatchedRule? = nil) {
        self.decision = decision
        self.rule = rule
        self.overridden = overridden
    }

    static let noMatch = Verdict(decision: .noMatch)
}

/// A rule, as the engine reports it: its text and where it comes from.
public struct MatchedRule: Sendable, Hashable, Codable {
    /// The rule as written in its list (or `allowlist: domain`).
    public var text: String
    /// The list's name (`allowlist` for the user allowlist).
    public var list: String
    /// The 1-based line in the list (0 for the allowlist).
    public var line: Int

    /// A rule with the given fields.
    public init(text: String, list: String, line: Int) {
        self.text = text
        self.list = list
        self.line = line
    }
}

/// A request to judge.
public struct FilterRequest: Sendable, Hashable {
    /// The requested URL.
    public var url: String
    /// The page (or frame) making the request, if known.
    public var sourceURL: String?
    /// The kind of request.
    public var type: ResourceTypes

    /// A request with the given fields.
    public init(url: String, sourceURL: String? = nil, type: ResourceTypes = .other) {
        self.url = url
        self.sourceURL = sourceURL
        self.type = type
    }
}

/// Why a request cannot be judged.
public enum FilterRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL has no `scheme://host`.
    case notAnAbsoluteURL(String)

    public var description: String {
        switch self {
        case .notAnAbsoluteURL(let url): return "'\(url.prefix(200))' is not an absolute URL (scheme://host/...)"
        }
    }
}
