import Foundation

/// Parses one network rule line (`@@||example.com^$script,domain=a.com`).
struct NetworkRuleParser {
    /// Parses `text` (already trimmed, non-empty, not a comment).
    static func parse(_ text: String, line: Int) -> Result<NetworkRule, SkipReason> {
        if let fast = parseBareDomainRule(text, line: line) { return .success(fast) }
        var body = Substring(text)
        let isException = body.hasPrefix("@@")
        if isException { body = body.dropFirst(2) }

        var optionsText: Substring?
        if let dollar = OptionsSplitter.optionsStart(in: String(body)) {
            let bodyString = String(body)
            optionsText = Substring(bodyString[bodyString.index(after: dollar)...])
            body = Substring(bodyString[..<dollar])
        }

        var rule = NetworkRule(text: text, line: line, isException: isException, pattern: "")
        if let optionsText {
            if let reason = applyOptions(optionsText, to: &rule) { return .failure(reason) }
        }

        // Regular expressions: /.../
        if body.utf8.count >= 3 && body.hasPrefix("/") && body.hasSuffix("/") {
            let source = String(body.dropFirst().dropLast())
            guard RegexValidator.compiles(source) else { return .failure(.invalidRegex) }
            rule.isRegex = true
            rule.pattern = source
            return .success(rule)
        }

        if body.hasPrefix("||") {
            rule.anchor = .host
            body = body.dropFirst(2)
        } else if body.hasPrefix("|") {
            rule.anchor = .start
            body = body.dropFirst()
        }
        if body.hasSuffix("|") && !body.isEmpty {
            rule.isEndAnchored = true
            body = body.dropLast()
        }
        // Leading and trailing wildcards add nothing to an unanchored match.
        if rule.anchor == .none { while body.hasPrefix("*") { body = body.dropFirst() } }
        if !rule.isEndAnchored { while body.hasSuffix("*") { body = body.dropLast() } }

        guard let pattern = normalizePattern(body, anchor: rule.anchor, matchCase: rule.matchCase) else {
            return .failure(.invalidPattern)
        }
        rule.pattern = pattern
        if pattern.isEmpty && rule.anchor == .host { return .failure(.invalidPattern) }
        if pattern.isEmpty && optionsText == nil { return .failure(.matchesEverything) }
        // A bare pattern of punctuation (`],`, `};`) is a stray line from another format.
        if optionsText == nil && rule.anchor == .none && !pattern.utf8.contains(where: Self.isAlphanumeric) {
            return .failure(.invalidPattern)
        }
        return .success(rule)
    }

    /// The common `||host^` line, without allocating more than the rule text.
    private static func parseBareDomainRule(_ text: String, line: Int) -> NetworkRule? {
        let utf8 = text.utf8
        guard utf8.count > 3, utf8.first == UInt8(ascii: "|"), utf8.last == UInt8(ascii: "^") else { return nil }
        var index = utf8.index(after: utf8.startIndex)
        guard utf8[index] == UInt8(ascii: "|") else { return nil }
        index = utf8.index(after: index)
        let hostStart = index
        let end = utf8.index(before: utf8.endIndex)
        guard hostStart < end else { return nil }
        while index < end {
            guard DomainName.isHostByte(utf8[index]) else { return nil }
            index = utf8.index(after: index)
        }
        return NetworkRule(text: text, line: line, pattern: String(text[hostStart...]), anchor: .host)
    }

    /// Applies `$options` to `rule`; returns why the rule must be skipped, if it must.
    static func applyOptions(_ options: Substring, to rule: inout NetworkRule) -> SkipReason? {
        var included: ResourceTypes = []
        var excluded: ResourceTypes = []
        var scope: NetworkRule.ExceptionScope = []
        for rawOption in options.split(separator: ",", omittingEmptySubsequences: true) {
            var option = rawOption
            var value: Substring?
            if let equals = option.firstIndex(of: "=") {
                value = option[option.index(after: equals)...]
                option = option[..<equals]
            }
            let lowered = DomainName.asciiLowercased(String(option))
            let negated = lowered.hasPrefix("~")
            let name = negated ? String(lowered.dropFirst()) : lowered

            switch name {
            case "third-party", "3p":
                rule.party = negated ? .first : .third
            case "first-party", "1p":
                rule.party = negated ? .third : .first
            case "match-case":
                rule.matchCase = !negated
            case "important":
                rule.isImportant = true
            case "badfilter":
                rule.isBadfilter = true
            case "domain", "from":
                guard let value, !value.isEmpty, !negated else { return .invalidOptionValue }
                switch DomainListParser.parse(value, separator: "|") {
                case .success(let domains): rule.domains = domains
                case .failure(let reason): return reason
                }
            case "all":
                included.formUnion(.all)
            case "elemhide", "ehide":
                scope.insert(.elementHiding)
            case "generichide", "ghide":
                scope.insert(.genericHiding)
            case "genericblock":
                scope.insert(.genericBlocking)
            default:
                guard let type = ResourceTypes.named(name) else {
                    return .unsupportedOption(name)
                }
                if value != nil { return .invalidOptionValue }
                if negated { excluded.formUnion(type) } else { included.formUnion(type) }
                if type == .document && !negated && rule.isException { scope.insert(.document) }
            }
        }
        if !rule.isException,
            let first = [
                ("elemhide", NetworkRule.ExceptionScope.elementHiding), ("generichide", .genericHiding), ("genericblock", .genericBlocking),
            ].first(where: { scope.contains($0.1) })
        {
            return .exceptionOnlyOption(first.0)
        }
        rule.exceptionScope = scope
        if !included.isEmpty || !excluded.isEmpty {
            rule.hasExplicitTypes = true
            rule.resourceTypes = (included.isEmpty ? ResourceTypes.defaultTypes : included).subtracting(excluded)
            if rule.resourceTypes.isEmpty { return .invalidOptionValue }
        } else if !scope.isEmpty {
            // `@@||site^$elemhide` switches off hiding only: it allows no request.
            rule.resourceTypes = []
            rule.hasExplicitTypes = true
        }
        return nil
    }

    /// Lower-cases the pattern (unless `$match-case`), converts an IDN host to punycode and
    /// percent-encodes other non-ASCII; `nil` when it has characters no URL can contain.
    static func normalizePattern(_ body: Substring, anchor: NetworkRule.Anchor, matchCase: Bool) -> String? {
        var ascii = true
        for byte in body.utf8 {
            if byte >= 0x80 {
                ascii = false
                continue
            }
            guard isPatternByte(byte) else { return nil }
        }
        var pattern = String(body)
        if !ascii {
            pattern = encodeNonASCII(body, hostFirst: anchor == .host)
        }
        if !matchCase {
            pattern = DomainName.asciiLowercased(pattern)
        } else if anchor == .host {
            // Hosts are case-insensitive even under `$match-case`; URLs carry them in lower case.
            let hostEnd = pattern.firstIndex(where: { "/^:*?|".contains($0) }) ?? pattern.endIndex
            pattern = DomainName.asciiLowercased(String(pattern[..<hostEnd])) + pattern[hostEnd...]
        }
        // `**` is the same as `*`.
        if pattern.utf8.count > 1 && zip(pattern.utf8, pattern.utf8.dropFirst()).contains(where: { $0 == 42 && $1 == 42 }) {
            pattern = String(decoding: collapseStars(Array(pattern.utf8)), as: UTF8.self)
        }
        return pattern
    }

    private static func collapseStars(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        for byte in bytes where !(byte == UInt8(ascii: "*") && result.last == UInt8(ascii: "*")) { result.append(byte) }
        return result
    }

    @inline(__always)
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Characters a URL pattern may contain: URL characters plus `*`, `^` and `|`.
    @inline(__always)
    static func isPatternByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~:/?#[]@!$&'()*+,;=%^|".utf8.contains(byte)
        }
    }

    private static func encodeNonASCII(_ body: Substring, hostFirst: Bool) -> String {
        var host = Substring("")
        var rest = body
        if hostFirst {
            let end = body.firstIndex(where: { "/^:*?|".contains($0) }) ?? body.endIndex
            host = body[..<end]
            rest = body[end...]
        }
        var result = ""
        if !host.isEmpty {
            result = (try? DomainName.idnToASCII(String(host))) ?? percentEncode(host)
        }
        result += percentEncode(rest)
        return result
    }

    private static func percentEncode(_ text: Substring) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte < 0x80 {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }
}

/// Parses domain lists: `a.com|~b.a.com` (network options) and `a.com,~b.a.com` (cosmetic rules).
enum DomainListParser {
    static func parse(_ list: Substring, separator: Character) -> Result<DomainConstraint, SkipReason> {
        var constraint = DomainConstraint()
        var droppedInclusion = false
        for rawEntry in list.split(separator: separator, omittingEmptySubsequences: true) {
            var entry = rawEntry
            let excluded = entry.hasPrefix("~")
            if excluded { entry = entry.dropFirst() }
            if entry.utf8.contains(UInt8(ascii: "*")) || entry.hasPrefix("/") {
                // `example.*` (any public suffix) and `/regex/` have no WebKit equivalent. Dropping
                // an included site only narrows the rule; dropping an exclusion would widen it.
                if excluded { return .failure(.unsupportedDomainSyntax) }
                droppedInclusion = true
                continue
            }
            let host: String
            do {
                host = try DomainName.normalize(entry)
            } catch {
                return .failure(.invalidDomain)
            }
            if excluded { constraint.excluded.append(host) } else { constraint.included.append(host) }
        }
        if constraint.included.isEmpty && droppedInclusion { return .failure(.unsupportedDomainSyntax) }
        if constraint.isUnconstrained { return .failure(.invalidDomain) }
        return .success(constraint)
    }
}

/// Checks that a regular expression compiles (ICU syntax, close to JavaScript's).
enum RegexValidator {
    static func compiles(_ source: String) -> Bool {
        (try? NSRegularExpression(pattern: source, options: [])) != nil
    }
}
