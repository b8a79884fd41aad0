import FilterLists

/// What the compiler did with one source list.
public struct SourceReport: Hashable, Sendable {
    /// The list's name.
    public var name: String
    /// Rule lines read from the list: rules parsed plus lines skipped by the parser.
    public var rulesIn: Int
    /// WebKit rules that carry at least one of this list's rules (a merged hiding rule counts
    /// for every list that contributed a selector).
    public var rulesOut: Int
    /// Lines and rules not converted, by reason (parser and compiler reasons together).
    public var skipped: [SkipReason: Int]

    /// A report with the given counts.
    public init(name: String, rulesIn: Int, rulesOut: Int = 0, skipped: [SkipReason: Int] = [:]) {
        self.name = name
        self.rulesIn = rulesIn
        self.rulesOut = rulesOut
        self.skipped = skipped
    }

    /// All skipped rules together.
    public var skippedCount: Int { skipped.values.reduce(0, +) }
}

extension SkipReason {
    /// A rule cancelled by a `$badfilter` rule.
    public static let disabledByBadfilter = SkipReason(
        "disabled-by-badfilter", words: "a $badfilter rule cancels it")
    /// A block that a plain `||domain^` rule for its host (or a parent) already covers.
    public static let coveredByDomainRule = SkipReason(
        "covered-by-domain-rule", words: "a rule blocking its whole domain covers it already")
    /// A rule identical (after conversion) to an earlier one.
    public static let duplicate = SkipReason(
        "duplicate", words: "the same rule comes earlier")
    /// A hiding rule whose every site is excepted by `#@#` rules.
    public static let cancelledByException = SkipReason(
        "cancelled-by-exception", words: "exceptions (#@#) cover every site it hides elements on")
    /// A `$document`, `$elemhide` or `$generichide` exception whose pages WebKit cannot express
    /// (a URL pattern together with `$domain`, or `$domain` exclusions).
    public static let unsupportedPageException = SkipReason(
        "unsupported-page-exception", words: "WebKit cannot express this page exception (a pattern with $domain, or $domain exclusions)")
}
