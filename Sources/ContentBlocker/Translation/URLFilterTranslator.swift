import FilterLists

/// Turns a network rule's pattern into a `url-filter` in WebKit's regular-expression subset.
///
/// See `docs/conversion.md` for the forms chosen (they are what WebKit compiles cheapest while
/// keeping Adblock Plus semantics).
public enum URLFilterTranslator {
    /// What `||` becomes: any scheme, then the host or one of its parent labels.
    public static let hostAnchorPrefix = #"^[^:]+://+([^/:]*\.)?"#
    /// What `^` becomes right after a host name: WebKit's URLs always continue with `/` or `:port`.
    public static let separatorAfterHost = "[/:]"
    /// What `^` becomes elsewhere: any character that is not a letter, digit or `_-.%`.
    /// (Adblock Plus also lets `^` match the end of the URL; WebKit's subset cannot say "or end".)
    public static let separator = "[^a-zA-Z0-9_.%-]"
    /// The filter that matches every URL.
    public static let matchAll = ".*"

    /// The `url-filter` for a rule, or why it has none.
    public static func urlFilter(for rule: NetworkRule) -> Result<[String], SkipReason> {
        if rule.isRegex { return WebKitRegexTranslator.translate(rule.pattern) }
        return .success([urlFilter(pattern: rule.pattern, anchor: rule.anchor, isEndAnchored: rule.isEndAnchored)])
    }

    /// The `url-filter` for an Adblock Plus pattern (without `@@`, anchors split off).
    public static func urlFilter(pattern: String, anchor: NetworkRule.Anchor, isEndAnchored: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(pattern.utf8.count + 32)
        var inHost = false
        switch anchor {
        case .host:
            output.append(contentsOf: hostAnchorPrefix.utf8)
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
            case UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "?"):
                if byte != UInt8(ascii: "/") && byte != UInt8(ascii: ":") { output.append(UInt8(ascii: "\\")) }
                output.append(byte)
                inHost = false
            case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"), UInt8(ascii: "\\"),
                UInt8(ascii: "$"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            default:
                output.append(byte)
            }
        }
        if isEndAnchored { output.append(UInt8(ascii: "$")) }
        if output.isEmpty { return matchAll }
        return String(decoding: output, as: UTF8.self)
    }

    /// The expression matching page URLs on `domain` and its subdomains (for `if-top-url` and
    /// cosmetic triggers).
    public static func urlFilter(forSite domain: String) -> String {
        urlFilter(pattern: domain + "^", anchor: .host, isEndAnchored: false)
    }
}
