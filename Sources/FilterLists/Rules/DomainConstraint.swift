/// The sites a rule is limited to (`$domain=a.com|~b.a.com`, `a.com,~b.a.com##.ad`).
///
/// Every entry covers the domain and its subdomains. Entries are lower-case ASCII
/// (non-ASCII names are stored in their punycode form).
public struct DomainConstraint: Hashable, Sendable {
    /// Sites where the rule applies; empty means "everywhere not excluded".
    public var included: [String]
    /// Sites where the rule does not apply.
    public var excluded: [String]

    /// A constraint with the given sites.
    public init(included: [String] = [], excluded: [String] = []) {
        self.included = included
        self.excluded = excluded
    }

    /// No constraint: the rule applies on every site.
    public static let anywhere = DomainConstraint()

    /// Whether the rule applies on every site.
    public var isUnconstrained: Bool { included.isEmpty && excluded.isEmpty }

    /// Whether `host` (lower-case ASCII) is `domain` or one of its subdomains.
    public static func host(_ host: some StringProtocol, isWithin domain: some StringProtocol) -> Bool {
        guard host.hasSuffix(domain) else { return false }
        if host.utf8.count == domain.utf8.count { return true }
        let boundary = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[boundary] == UInt8(ascii: ".")
    }

    /// Whether the rule applies on a page whose host is `host`: the most specific matching
    /// entry decides, as in Adblock Plus (`a.com|~b.a.com` applies on `a.com`, not on `b.a.com`).
    public func applies(onPageHost host: some StringProtocol) -> Bool {
        var bestInclude = -1
        var bestExclude = -1
        for domain in included where Self.host(host, isWithin: domain) {
            bestInclude = max(bestInclude, domain.utf8.count)
        }
        for domain in excluded where Self.host(host, isWithin: domain) {
            bestExclude = max(bestExclude, domain.utf8.count)
        }
        if bestExclude >= 0 && bestExclude >= bestInclude { return false }
        return included.isEmpty || bestInclude >= 0
    }
}
