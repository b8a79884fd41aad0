/// Why a line of a filter list was not turned into a rule.
///
/// Reasons are short stable names (they appear in `manifest.json` and in `pepper compile`'s
/// summary); some carry a detail after a colon, such as `unsupported-option:csp`.
public struct SkipReason: Error, Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The stable name, e.g. `scriptlet` or `unsupported-option:csp`.
    public let rawValue: String

    /// A reason with the given stable name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: SkipReason, rhs: SkipReason) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// A scriptlet injection (`##+js(...)`, `#%#//scriptlet(...)`).
    public static let scriptlet = SkipReason("scriptlet")
    /// A procedural cosmetic filter (`:has-text()`, `:-abp-has()`, `#?#` with extended syntax).
    public static let proceduralCosmetic = SkipReason("procedural-cosmetic")
    /// A CSS injection (`#$#selector { style }`).
    public static let cssInjection = SkipReason("css-injection")
    /// An HTML filter (`##^script:has-text()`, `$$script[...]`).
    public static let htmlFilter = SkipReason("html-filter")
    /// A cosmetic rule with AdGuard modifiers (`[$path=/x]example.com##.ad`).
    public static let cosmeticModifier = SkipReason("cosmetic-modifier")
    /// A selector that is not valid CSS.
    public static let invalidCSSSelector = SkipReason("invalid-css-selector")
    /// A regular expression that does not compile.
    public static let invalidRegex = SkipReason("invalid-regex")
    /// A pattern with characters that never appear in a URL (often a file in another format).
    public static let invalidPattern = SkipReason("invalid-pattern")
    /// A rule that would match every request without any option to narrow it.
    public static let matchesEverything = SkipReason("matches-everything")
    /// A domain in `$domain=` or before `##` that is not a valid host name.
    public static let invalidDomain = SkipReason("invalid-domain")
    /// A `$domain=` entry written as `example.*` or `/regex/`, which WebKit cannot express.
    public static let unsupportedDomainSyntax = SkipReason("unsupported-domain-syntax")
    /// A line longer than the parser accepts.
    public static let lineTooLong = SkipReason("line-too-long")
    /// A line that is not valid UTF-8.
    public static let invalidUTF8 = SkipReason("invalid-utf8")
    /// An option that needs a value but has none, or a value where none belongs.
    public static let invalidOptionValue = SkipReason("invalid-option-value")
    /// A hosts-file line that is not `ADDRESS NAME ...`, or a domain-list line that is not a name.
    public static let invalidHostsLine = SkipReason("invalid-hosts-line")
    /// An option that Pepper does not implement, with its name.
    public static func unsupportedOption(_ name: String) -> SkipReason { SkipReason("unsupported-option:" + name) }
    /// An option that is only meaningful on exception rules, used on a blocking rule.
    public static func exceptionOnlyOption(_ name: String) -> SkipReason { SkipReason("exception-only-option:" + name) }
}
