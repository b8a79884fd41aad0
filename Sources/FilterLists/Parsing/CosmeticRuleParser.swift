/// Parses element-hiding lines (`example.com,~sub.example.com##.ad`) and recognises the
/// cosmetic syntaxes Pepper does not run (scriptlets, procedural filters, CSS injection).
enum CosmeticRuleParser {
    /// The separators that make a line cosmetic, longest first so `#@?#` wins over `#@#`.
    private static let markers: [(text: String, kind: Marker)] = [
        ("#@?#", .proceduralException), ("#@$#", .injectionException), ("#@%#", .scriptException),
        ("#@#", .hidingException), ("#?#", .procedural), ("#$#", .injection), ("#%#", .script),
        ("##", .hiding),
    ]

    private enum Marker {
        case hiding, hidingException, procedural, proceduralException, injection, injectionException
        case script, scriptException
    }

    /// Procedural pseudo-classes and operators of uBlock Origin, Adblock Plus and AdGuard.
    private static let proceduralOperators = [
        ":-abp-", ":has-text(", ":contains(", ":xpath(", ":upward(", ":remove(", ":style(", ":matches-css",
        ":min-text-length(", ":watch-attr(", ":others(", ":matches-path(", ":matches-attr(",
        ":matches-media(", ":if(", ":if-not(", ":nth-ancestor(", ":remove-attr(", ":remove-class(",
        ":shadow(", ":spath(", ":matches-prop(", ":matches-property(", ":properties(",
    ]

    /// Whether the selector uses a procedural operator (checked at each `:`, case-insensitively).
    static func hasProceduralOperator(_ selector: Substring) -> Bool {
        let utf8 = selector.utf8
        var index = utf8.startIndex
        while let colon = utf8[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = utf8[colon...]
            for candidate in proceduralOperators where rest.count >= candidate.utf8.count {
                if zip(rest, candidate.utf8).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) || $0 == $1 }) { return true }
            }
            index = utf8.index(after: colon)
        }
        return false
    }

    /// Where the cosmetic separator starts, if `text` is a cosmetic line.
    static func markerRange(in text: String) -> (Range<String.Index>, isCosmetic: Bool)? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "#") {
                for (marker, _) in markers where utf8[index...].starts(with: marker.utf8) {
                    let end = utf8.index(index, offsetBy: marker.utf8.count)
                    return (index..<end, true)
                }
            } else if byte == UInt8(ascii: "$") {
                // AdGuard HTML filtering: `example.com$$script[...]`.
                let next = utf8.index(after: index)
                if next < utf8.endIndex && (utf8[next] == UInt8(ascii: "$") || utf8[next] == UInt8(ascii: "@")) {
                    return (index..<index, false)
                }
                return nil
            } else if !isDomainListByte(byte) {
                return nil
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    @inline(__always)
    private static func isDomainListByte(_ byte: UInt8) -> Bool {
        DomainName.isHostByte(byte) || byte >= 0x80 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "~")
            || byte == UInt8(ascii: "*") || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// Parses a line known to be cosmetic (`markerRange(in:)` returned a range).
    static func parse(_ text: String, marker range: Range<String.Index>, line: Int) -> Result<CosmeticRule, SkipReason> {
        let markerText = text[range]
        guard let kind = markers.first(where: { $0.text == markerText })?.kind else { return .failure(.htmlFilter) }
        let domainsText = text[..<range.lowerBound]
        let body = text[range.upperBound...].trimmingPrefix(while: { $0 == " " })

        switch kind {
        case .script, .scriptException:
            return .failure(.scriptlet)
        case .injection, .injectionException:
            // AdGuard's `#$#` injects CSS; Adblock Plus uses it for snippets (scripts).
            return .failure(body.contains("{") ? .cssInjection : .scriptlet)
        case .hiding, .hidingException, .procedural, .proceduralException:
            break
        }
        if body.hasPrefix("+js(") || body.hasPrefix("+js ") { return .failure(.scriptlet) }
        if body.hasPrefix("^") { return .failure(.htmlFilter) }
        if body.isEmpty { return .failure(.invalidCSSSelector) }
        if hasProceduralOperator(body) { return .failure(.proceduralCosmetic) }
        guard CSSSelectorValidator.isValid(body) else {
            return .failure(kind == .procedural || kind == .proceduralException ? .proceduralCosmetic : .invalidCSSSelector)
        }

        var domains = DomainConstraint.anywhere
        if !domainsText.isEmpty {
            switch DomainListParser.parse(domainsText, separator: ",") {
            case .success(let parsed): domains = parsed
            case .failure(let reason): return .failure(reason)
            }
        }
        let isException = kind == .hidingException || kind == .proceduralException
        return .success(CosmeticRule(text: text, line: line, isException: isException, selector: String(body), domains: domains))
    }
}
