/// An element-hiding rule (`example.com##.ad-banner`) or its exception (`example.com#@#.ad-banner`).
public struct CosmeticRule: Hashable, Sendable {
    /// The rule as written in the list (trimmed).
    public var text: String
    /// The 1-based line number in its list.
    public var line: Int
    /// `#@#` rules stop a hiding rule with the same selector on their sites.
    public var isException: Bool
    /// The CSS selector, validated.
    public var selector: String
    /// The sites the rule is limited to; unconstrained for generic rules (`##.ad`).
    public var domains: DomainConstraint

    /// Creates a rule; the parser is the usual way to get one.
    public init(text: String, line: Int, isException: Bool = false, selector: String, domains: DomainConstraint = .anywhere) {
        self.text = text
        self.line = line
        self.isException = isException
        self.selector = selector
        self.domains = domains
    }

    /// Whether the rule applies on every site that does not exclude it (no included domains).
    public var isGeneric: Bool { domains.included.isEmpty }
}
