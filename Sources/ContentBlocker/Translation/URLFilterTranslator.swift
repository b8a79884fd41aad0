import FilterLists

/// A `url-filter` expression and whether WebKit must match it case-sensitively.
public struct URLFilter: Hashable, Sendable {
    /// The expression, in WebKit's subset.
    public var pattern: String
    /// `url-filter-is-case-sensitive`.
    public var isCaseSensitive: Bool

    /// A filter with the given fields.
    public init(_ pattern: String, isCaseSensitive: Bool = false) {
        self.pattern = pattern
        self.isCaseSensitive = isCaseSensitive
    }

    /// The filter that matches every URL.
    public static let matchAll = URLFilter(".*")
}

/// Turns a network rule's pattern into a `url-filter` in WebKit's regular-expression subset.
///
/// The forms are the ones WebKit compiles cheapest while keeping Adblock Plus semantics
/// (measured with WebKitGTK; see `docs/conversion.md`):
/// - host names are matched case-sensitively in lower case (WebKit lower-cases hosts), which
///   halves the automaton WebKit builds for them;
/// - other letters of anchored patterns become `[aA]` pairs under a case-sensitive filter, which
///   WebKit compiles faster than its case-insensitive mode;
/// - plain `||domain^` blocks use their own spelling of the scheme prefix, so that WebKit's prefix
///   tree keeps the tens of thousands of them apart from other host-anchored rules.
public enum URLFilterTranslator {
    /// The scheme-and-subdomain prefix of plain `||domain^` blocks.
    public static let domainRulePrefix = #"^[^:]+://+([^/:]*\.)?"#
    /// The scheme-and-subdomain prefix of every other `||` pattern and of site conditions.
    public static let hostAnchorPrefix = #"^[^:]*://+([^/:]*\.)?"#
    /// What `^` becomes right after a host name: WebKit's URLs always continue with `/` or `:port`.
    public static let separatorAfterHost = "[/:]"
    /// What `^` becomes elsewhere: any character that is not a letter, digit or `_-.%`.
    /// (Adblock Plus also lets `^` match the end of the URL; WebKit's subset cannot say "or end".)
    public static let separator = "[^a-zA-Z0-9_.%-]"

    /// How a rule is spelled.
    public enum Style: Sendable {
        /// A plain `||domain^` block (see `NetworkRule.blockedDomain` in `FilterLists`).
        case domainRule
        /// Everything else.
        case general
    }

    /// The `url-filter`s for a rule (several for a regular expression with alternatives), or why
    /// it has none.
    public static func urlFilters(for rule: NetworkRule, style: Style = .general) -> Result<[URLFilter], SkipReason> {
        if rule.isRegex {
            return WebKitRegexTranslator.translate(rule.pattern).map { patterns in
                patterns.map { URLFilter($0, isCaseSensitive: rule.matchCase) }
            }
        }
        return .success([
            urlFilter(
                pattern: rule.pattern, anchor: rule.anchor, isEndAnchored: rule.isEndAnchored, matchCase: rule.matchCase, style: style)
        ])
    }

    /// The `url-filter` for an Adblock Plus pattern (anchors split off, lower-cased unless `matchCase`).
    public static func urlFilter(
        pattern: String, anchor: NetworkRule.Anchor, isEndAnchored: Bool, matchCase: Bool = false, style: Style = .general
    ) -> URLFilter {
        var output: [UInt8] = []
        output.reserveCapacity(pattern.utf8.count * 2 + 32)
        var inHost = false
        // Anchored patterns are matched case-sensitively with explicit letter pairs; unanchored
        // ones are cheap for WebKit either way and stay in its case-insensitive mode.
        let pairLetters = !matchCase && anchor != .none
        switch anchor {
        case .host:
            output.append(contentsOf: (style == .domainRule ? domainRulePrefix : hostAnchorPrefix).utf8)
            inHost = true
        case .start:
            output.append(UInt8(ascii: "^"))
        case .none:
            break
        }
        for byte in pattern.utf8 {
            switch byte {
            case UInt8(ascii: "*"):
                output.append(contentsOf: [UInt8(ascii: "."), UInt8(ascii: "*")])
                inHost = false
            case UInt8(ascii: "^"):
                output.append(contentsOf: (inHost ? separatorAfterHost : separator).utf8)
                inHost = false
            case UInt8(ascii: "/"), UInt8(ascii: ":"):
                output.append(byte)
                inHost = false
            case UInt8(ascii: "?"):
                output.append(contentsOf: [UInt8(ascii: "\\"), byte])
                inHost = false
            case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"), UInt8(ascii: "\\"),
                UInt8(ascii: "$"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z") where pairLetters && !inHost:
                output.append(contentsOf: [UInt8(ascii: "["), byte, byte - 32, UInt8(ascii: "]")])
            default:
                output.append(byte)
            }
        }
        if isEndAnchored { output.append(UInt8(ascii: "$")) }
        if output.isEmpty { return .matchAll }
        return URLFilter(String(decoding: output, as: UTF8.self), isCaseSensitive: matchCase || anchor != .none)
    }

    /// The expression matching URLs on `domain` and its subdomains (lower-case ASCII), to be used
    /// case-sensitively: for site conditions (`if-top-url`) and site-specific hiding rules.
    public static func siteFilter(_ domain: String) -> String {
        var output = hostAnchorPrefix
        for character in domain.utf8 {
            if character == UInt8(ascii: ".") { output += "\\." } else { output.unicodeScalars.append(Unicode.Scalar(character)) }
        }
        return output + separatorAfterHost
    }
}
