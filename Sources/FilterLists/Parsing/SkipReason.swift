/// Why a line of a filter list was not turned into a rule.
///
/// Reasons are short stable names (they appear in `manifest.json` and in `pepper compile`'s
/// summary); some carry a detail after a colon, such as `unsupported-option:csp`. Each reason
/// made here also carries its meaning in words (``explanation``), written beside its
/// definition, so that no face decides what a name means from its text. Two reasons are equal
/// when their names are: a reason read back from a manifest has its name only.
public struct SkipReason: Error, Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The stable name, e.g. `scriptlet` or `unsupported-option:csp`.
    public let rawValue: String
    /// What the reason means, for a person ("scriptlets are not supported").
    private let words: String?

    /// A reason with the given stable name and, for a person, its meaning.
    public init(_ rawValue: String, words: String? = nil) {
        self.rawValue = rawValue
        self.words = words
    }

    public var description: String { rawValue }

    /// The reason in words, with its stable name (`scriptlets are not supported (scriptlet)`);
    /// the name alone for a reason read back from a manifest.
    public var explanation: String { words.map { "\($0) (\(rawValue))" } ?? rawValue }

    public static func == (lhs: SkipReason, rhs: SkipReason) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public static func < (lhs: SkipReason, rhs: SkipReason) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
        words = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// A scriptlet injection (`##+js(...)`, `#%#//scriptlet(...)`).
    public static let scriptlet = SkipReason("scriptlet", words: "scriptlets are not supported")
    /// A procedural cosmetic filter (`:has-text()`, `:-abp-has()`, `#?#` with extended syntax).
    public static let proceduralCosmetic = SkipReason(
        "procedural-cosmetic", words: "procedural cosmetic filters are not CSS and are not supported")
    /// A CSS injection (`#$#selector { style }`).
    public static let cssInjection = SkipReason("css-injection", words: "CSS injection is not supported")
    /// An HTML filter (`##^script:has-text()`, `$$script[...]`).
    public static let htmlFilter = SkipReason("html-filter", words: "HTML filters are not supported")
    /// A cosmetic rule with AdGuard modifiers (`[$path=/x]example.com##.ad`).
    public static let cosmeticModifier = SkipReason("cosmetic-modifier", words: "cosmetic rules with modifiers are not supported")
    /// A selector that is not valid CSS.
    public static let invalidCSSSelector = SkipReason("invalid-css-selector", words: "the selector is not valid CSS")
    /// A regular expression that does not compile.
    public static let invalidRegex = SkipReason("invalid-regex", words: "the regular expression does not compile")
    /// A pattern with characters that never appear in a URL (often a file in another format).
    public static let invalidPattern = SkipReason("invalid-pattern", words: "the pattern has characters that never appear in a web address")
    /// A rule that would match every request without any option to narrow it.
    public static let matchesEverything = SkipReason("matches-everything", words: "it would block every request")
    /// A domain in `$domain=` or before `##` that is not a valid host name.
    public static let invalidDomain = SkipReason("invalid-domain", words: "a domain in it is not a valid host name")
    /// A `$domain=` entry written as `example.*` or `/regex/`, which WebKit cannot express.
    public static let unsupportedDomainSyntax = SkipReason(
        "unsupported-domain-syntax", words: "domains written as example.* or /regex/ are not supported")
    /// A line longer than the parser accepts.
    public static let lineTooLong = SkipReason("line-too-long", words: "it is too long")
    /// A line that is not valid UTF-8.
    public static let invalidUTF8 = SkipReason("invalid-utf8", words: "it is not valid text")
    /// An option that needs a value but has none, or a value where none belongs.
    public static let invalidOptionValue = SkipReason("invalid-option-value", words: "an option has a missing or unexpected value")
    /// A hosts-file line that is not `ADDRESS NAME ...`, or a domain-list line that is not a name.
    public static let invalidHostsLine = SkipReason(
        "invalid-hosts-line", words: "it is neither a hosts-file line (ADDRESS NAME) nor a domain")
    /// An option that Pepper does not implement, with its name.
    public static func unsupportedOption(_ name: String) -> SkipReason {
        SkipReason("unsupported-option:" + name, words: "the option $\(name) is not supported")
    }
    /// An option that is only meaningful on exception rules, used on a blocking rule.
    public static func exceptionOnlyOption(_ name: String) -> SkipReason {
        SkipReason("exception-only-option:" + name, words: "the option $\(name) only works on exceptions (@@)")
    }
}
