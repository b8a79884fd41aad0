/// A request-blocking or request-allowing rule (`||ads.example^$script,third-party`).
public struct NetworkRule: Hashable, Sendable {
    /// Where the pattern is anchored.
    public enum Anchor: UInt8, Hashable, Sendable {
        /// Anywhere in the URL.
        case none
        /// At the start of the URL (`|https://`).
        case start
        /// At the start of the host or of one of its labels (`||example.com`).
        case host
    }

    /// Whether the request must come from the page's own site or another one.
    public enum Party: UInt8, Hashable, Sendable {
        /// Either.
        case any
        /// Only same-site requests (`$~third-party`, `$1p`).
        case first
        /// Only cross-site requests (`$third-party`, `$3p`).
        case third
    }

    /// What an exception rule (`@@`) switches off beyond the request itself.
    public struct ExceptionScope: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        /// Creates a scope from its raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `$document`: all blocking and hiding on matching pages.
        public static let document = ExceptionScope(rawValue: 1 << 0)
        /// `$elemhide`: all element hiding on matching pages.
        public static let elementHiding = ExceptionScope(rawValue: 1 << 1)
        /// `$generichide`: element hiding rules without domains, on matching pages.
        public static let genericHiding = ExceptionScope(rawValue: 1 << 2)
        /// `$genericblock`: blocking rules without domains, on matching pages.
        public static let genericBlocking = ExceptionScope(rawValue: 1 << 3)
    }

    /// The rule as written in the list (trimmed).
    public var text: String
    /// The 1-based line number in its list.
    public var line: Int
    /// `@@` rules allow what other rules block.
    public var isException: Bool
    /// The pattern without anchors and options, lower-cased unless ``matchCase``, ASCII only
    /// (IDN hosts in punycode, other non-ASCII percent-encoded). `*` is a wildcard and `^` a
    /// separator, as in Adblock Plus. For a regular-expression rule, the expression's source.
    public var pattern: String
    /// Where the pattern is anchored.
    public var anchor: Anchor
    /// The pattern must match up to the end of the URL (a trailing `|`).
    public var isEndAnchored: Bool
    /// The pattern is a regular expression (`/ads?[0-9]/`).
    public var isRegex: Bool
    /// The types of request the rule matches.
    public var resourceTypes: ResourceTypes
    /// Whether type options were written (otherwise ``resourceTypes`` is the default set).
    public var hasExplicitTypes: Bool
    /// First- or third-party restriction.
    public var party: Party
    /// The pages the rule is limited to.
    public var domains: DomainConstraint
    /// `$match-case`.
    public var matchCase: Bool
    /// `$important`: blocks even where an ordinary exception would allow.
    public var isImportant: Bool
    /// `$badfilter`: this rule disables the identical rule without `$badfilter`.
    public var isBadfilter: Bool
    /// For exceptions: what else they switch off.
    public var exceptionScope: ExceptionScope

    /// Creates a rule; the parser is the usual way to get one.
    public init(
        text: String, line: Int, isException: Bool = false, pattern: String, anchor: Anchor = .none,
        isEndAnchored: Bool = false, isRegex: Bool = false, resourceTypes: ResourceTypes = .defaultTypes,
        hasExplicitTypes: Bool = false, party: Party = .any, domains: DomainConstraint = .anywhere,
        matchCase: Bool = false, isImportant: Bool = false, isBadfilter: Bool = false,
        exceptionScope: ExceptionScope = []
    ) {
        self.text = text
        self.line = line
        self.isException = isException
        self.pattern = pattern
        self.anchor = anchor
        self.isEndAnchored = isEndAnchored
        self.isRegex = isRegex
        self.resourceTypes = resourceTypes
        self.hasExplicitTypes = hasExplicitTypes
        self.party = party
        self.domains = domains
        self.matchCase = matchCase
        self.isImportant = isImportant
        self.isBadfilter = isBadfilter
        self.exceptionScope = exceptionScope
    }

    /// The blocked host when the rule is exactly "this domain and its subdomains, any request"
    /// (`||example.com^`, a hosts-file entry, a domain-list line), else `nil`.
    /// DNS-level filtering can use only such rules.
    public var blockedDomain: String? {
        guard anchor == .host, !isRegex, !isEndAnchored, party == .any, domains.isUnconstrained,
            !hasExplicitTypes, !isBadfilter, exceptionScope.isEmpty
        else { return nil }
        let utf8 = pattern.utf8
        var end = utf8.endIndex
        if utf8.last == UInt8(ascii: "^") { end = utf8.index(before: end) }
        let host = utf8[..<end]
        guard let first = host.first, let last = host.last, first != UInt8(ascii: "."), last != UInt8(ascii: "."),
            host.allSatisfy({ DomainName.isHostByte($0) })
        else { return nil }
        return end == utf8.endIndex ? pattern : String(pattern[..<end])
    }

    /// The key under which `$badfilter` rules find the rule they cancel: the rule text
    /// with the `badfilter` option removed and the options in a canonical order.
    public var badfilterKey: String {
        BadfilterKey.make(from: text)
    }
}

/// Builds the canonical text used to pair a `$badfilter` rule with its target.
enum BadfilterKey {
    static func make(from text: String) -> String {
        guard let dollar = OptionsSplitter.optionsStart(in: text) else { return text }
        let head = text[..<dollar]
        let options = text[text.index(after: dollar)...]
            .split(separator: ",")
            .map { $0.lowercased() }
            .filter { $0 != "badfilter" }
            .sorted()
        return options.isEmpty ? String(head) : head + "$" + options.joined(separator: ",")
    }
}
