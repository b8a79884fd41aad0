import FilterLists

/// Turns parsed lists into an engine's flat storage: records, arena, host and token indexes.
struct EngineBuilder {
    private var storage = EngineStorage()
    private var tokenCandidates: [UInt32: [(hash: UInt32, length: Int)]] = [:]
    private var hostEntries: [[(hash: UInt64, rule: UInt32, dns: Bool)]] = [[], [], []]
    private var tokenEntries: [[UInt32]] = [[], [], []]
    private var bareEntries: [BareHostSlot] = []

    private enum Category: Int {
        case important = 0, block = 1, exception = 2
    }

    static func build(lists: [ParsedFilterList], allowlist: [String], identifier: String) -> EngineStorage {
        var builder = EngineBuilder()
        builder.storage.identifier = identifier
        let ruleCount = lists.reduce(0) { $0 + $1.networkRules.count }
        builder.storage.rules.reserveCapacity(ruleCount)
        builder.storage.arena.reserveCapacity(ruleCount * 24)
        builder.add(lists)
        builder.storage.allowlistHashes = allowlistHashes(allowlist)
        return builder.finish()
    }

    /// The allowlist as the engine keeps it: sorted hashes of the sites.
    static func allowlistHashes(_ allowlist: [String]) -> [UInt64] {
        Array(Set(allowlist.map { HostHash.of($0) })).sorted()
    }

    private mutating func add(_ lists: [ParsedFilterList]) {
        // `$badfilter` keys are costly to compute: only rules with a badfiltered pattern need one.
        var badfilterKeys = Set<String>()
        var badfilterPatterns = Set<String>()
        for list in lists {
            for rule in list.networkRules where rule.isBadfilter {
                badfilterKeys.insert(rule.badfilterKey)
                badfilterPatterns.insert(rule.pattern)
            }
        }
        for (listIndex, list) in lists.enumerated() {
            let name = Array(list.name.utf8)
            storage.listNames += [storage.store(name), UInt32(name.count)]
            for rule in list.networkRules where !rule.isBadfilter {
                if badfilterPatterns.contains(rule.pattern) && badfilterKeys.contains(rule.badfilterKey) { continue }
                add(rule, list: listIndex)
            }
        }
    }

    private mutating func add(_ rule: NetworkRule, list: Int) {
        // Exceptions that only switch off hiding allow no request: not part of request matching.
        if rule.isException && rule.resourceTypes.isEmpty && !rule.exceptionScope.contains(.document) { return }
        if rule.isException && rule.exceptionScope.contains(.genericBlocking) { return }

        var flags: RuleFlags = []
        if rule.isException { flags.insert(.exception) }
        if rule.isImportant { flags.insert(.important) }
        if rule.isRegex { flags.insert(.regex) }
        if rule.matchCase { flags.insert(.matchCase) }
        if rule.isEndAnchored { flags.insert(.endAnchor) }
        switch rule.anchor {
        case .start: flags.insert(.startAnchor)
        case .host: flags.insert(.hostAnchor)
        case .none: break
        }
        switch rule.party {
        case .first: flags.insert(.firstParty)
        case .third: flags.insert(.thirdParty)
        case .any: break
        }
        let isDocumentException = rule.exceptionScope.contains(.document)
        if isDocumentException { flags.insert(.documentScope) }
        let host = isDocumentException ? nil : Self.hostname(of: rule)
        if let host, !rule.isException, let form = Self.bareForm(of: rule, host: host) {
            bareEntries.append(
                BareHostSlot(key: HostHash.of(host), line: UInt32(clamping: rule.line), list: UInt16(clamping: list), form: form.rawValue))
            return
        }
        if host != nil { flags.insert(.hostname) }
        if host != nil && Self.appliesAtDNSLevel(rule) { flags.insert(.dns) }

        let id = UInt32(storage.rules.count)
        var pattern = rule.pattern.utf8
        let patternOffset = storage.store(pattern)
        let patternLength = UInt32(pattern.count)
        // The text is not stored when it can be rebuilt: `||pattern`, or (domain lists) the
        // pattern's host itself.
        var textOffset: UInt32 = 0
        var textLength: UInt32 = 0
        let text = rule.text.utf8
        if !(text.count == pattern.count + 2 && text.starts(with: "||".utf8) && text.dropFirst(2).elementsEqual(pattern)) {
            if let host, text.elementsEqual(host.utf8) {
                textOffset = patternOffset
                textLength = UInt32(host.utf8.count)
            } else {
                textOffset = storage.store(text)
                textLength = UInt32(text.count)
            }
        }
        let sitesOffset = UInt32(storage.siteHashes.count)
        if !rule.domains.isUnconstrained {
            storage.siteHashes += rule.domains.included.map { HostHash.of($0) }.sorted()
            storage.siteHashes += rule.domains.excluded.map { HostHash.of($0) }.sorted()
        }
        storage.rules.append(
            RuleRecord(
                patternOffset: patternOffset, patternLength: patternLength, textOffset: textOffset, textLength: textLength,
                sitesOffset: sitesOffset, includedCount: UInt16(clamping: rule.domains.included.count),
                excludedCount: UInt16(clamping: rule.domains.excluded.count), line: UInt32(clamping: rule.line),
                list: UInt16(clamping: list), flags: flags, types: Self.types(of: rule, hostname: host).rawValue))
        storage.nextRule.append(UInt32.max)

        if isDocumentException {
            storage.documentExceptions.append(id)
            return
        }
        let category: Category = rule.isException ? .exception : (rule.isImportant ? .important : .block)
        if let host {
            hostEntries[category.rawValue].append((HostHash.of(host), id, flags.contains(.dns)))
            return
        }
        tokenEntries[category.rawValue].append(id)
        if rule.isRegex {
            let literal = RegexLiteral.required(in: rule.pattern, caseSensitive: rule.matchCase)
            storage.regexLiterals += [id, storage.store(literal), UInt32(literal.count)]
            tokenCandidates[id] = Self.safeTokens(literal, flags: [])
        } else {
            pattern = rule.pattern.utf8
            tokenCandidates[id] = Self.safeTokens(Array(pattern), flags: flags)
        }
    }

    /// How a block of a whole host is written when it has no option at all (`||host^`, or a
    /// domain list's `host`): such a rule goes to the ``BareHostTable``. `nil` otherwise.
    static func bareForm(of rule: NetworkRule, host: Substring) -> BareHostTable.Form? {
        // Any option (`$third-party`, `$important`…) would appear in the text.
        let text = rule.text.utf8
        let pattern = rule.pattern.utf8
        if text.count == pattern.count + 2 && text.starts(with: "||".utf8) && text.dropFirst(2).elementsEqual(pattern) {
            return .hostAnchor
        }
        return text.elementsEqual(host.utf8) ? .domain : nil
    }

    /// The request types a rule applies to. A hostname rule without type options (`||ads.com^`)
    /// also applies to the top-level document, as in adblock-rust and uBlock Origin ("strict
    /// blocking"). (WebKit blocks a page load matching any rule without types; see docs/engine.md.)
    static func types(of rule: NetworkRule, hostname: Substring?) -> ResourceTypes {
        guard !rule.hasExplicitTypes else { return rule.resourceTypes }
        return hostname != nil ? ResourceTypes.defaultTypes.union(.document) : ResourceTypes.defaultTypes
    }

    /// The host of a hostname rule: `||host^` or `||host` (no path), whatever its options.
    static func hostname(of rule: NetworkRule) -> Substring? {
        guard rule.anchor == .host, !rule.isRegex, !rule.isEndAnchored else { return nil }
        // `||ads` (no `^`) would also match `adserver.com`: only complete hosts qualify.
        let bytes = rule.pattern.utf8
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "^") else { return nil }
        let host = rule.pattern.utf8.dropLast()
        guard host.first != UInt8(ascii: "."), host.last != UInt8(ascii: "."), host.allSatisfy(DomainName.isHostByte) else { return nil }
        return Substring(host)
    }

    /// Whether a hostname rule also applies at the DNS level, where neither the request type nor
    /// the page is known. Not when it is limited to some sites (`$domain=a.test`) or to first-party
    /// loads. Otherwise a block applies when it has no type option (any request), when it blocks
    /// the host's pages (`$document`, `$all`: nothing on the host is wanted), or when it blocks
    /// some kinds of third-party loads (`||google-analytics.com^$script,third-party`: the host is
    /// an embedded service the list does not want any site to load, and a DNS answer is only
    /// ever used by those loads and by visits the rule would not block). A typed rule for every
    /// party (`||link.shop.test^$image`) or for pop-ups only names a host that also serves
    /// wanted content (its links, its pages): it stays a browser rule. An exception applies when
    /// it has no type option or allows whole pages (`$document`); docs/engine.md and docs/dns.md.
    static func appliesAtDNSLevel(_ rule: NetworkRule) -> Bool {
        guard rule.domains.included.isEmpty else { return false }
        if rule.isException { return !rule.hasExplicitTypes || rule.exceptionScope.contains(.document) }
        guard rule.party != .first else { return false }
        guard rule.hasExplicitTypes else { return true }
        if rule.resourceTypes.contains(.document) { return true }
        return rule.party == .third && !rule.resourceTypes.subtracting(.popup).isEmpty
    }

    /// Tokens of a pattern that are sure to appear as whole tokens of any URL it matches: runs of
    /// token bytes bounded by literal non-token bytes, a `^`, or an anchor.
    static func safeTokens(_ pattern: [UInt8], flags: RuleFlags) -> [(hash: UInt32, length: Int)] {
        var tokens: [(UInt32, Int)] = []
        pattern.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                guard TokenHash.isTokenByte(bytes[index]) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count && TokenHash.isTokenByte(bytes[index]) { index += 1 }
                let leftSafe =
                    start == 0 ? (flags.contains(.startAnchor) || flags.contains(.hostAnchor)) : bytes[start - 1] != UInt8(ascii: "*")
                let rightSafe = index == bytes.count ? flags.contains(.endAnchor) : bytes[index] != UInt8(ascii: "*")
                if leftSafe && rightSafe && index - start >= 2 {
                    tokens.append((TokenHash.hash(bytes, start..<index), index - start))
                }
            }
        }
        return tokens
    }

    private mutating func finish() -> EngineStorage {
        // The least frequent safe token of each rule keeps buckets small.
        var frequency: [UInt32: Int] = [:]
        for candidates in tokenCandidates.values {
            for (hash, _) in candidates { frequency[hash, default: 0] += 1 }
        }
        func token(for rule: UInt32) -> UInt32 {
            var best: (hash: UInt32, score: Int, length: Int)?
            for (hash, length) in tokenCandidates[rule] ?? [] {
                let score = frequency[hash, default: 0]
                if best == nil || score < best!.score || (score == best!.score && length > best!.length) {
                    best = (hash, score, length)
                }
            }
            return best?.hash ?? 0
        }
        storage.importantIndex = TokenTable(entries: tokenEntries[Category.important.rawValue].map { (token(for: $0), $0) })
        storage.blockIndex = TokenTable(entries: tokenEntries[Category.block.rawValue].map { (token(for: $0), $0) })
        storage.exceptionIndex = TokenTable(entries: tokenEntries[Category.exception.rawValue].map { (token(for: $0), $0) })
        storage.importantHosts = HostTable(entries: hostEntries[Category.important.rawValue], next: &storage.nextRule)
        storage.blockHosts = HostTable(entries: hostEntries[Category.block.rawValue], next: &storage.nextRule)
        storage.exceptionHosts = HostTable(entries: hostEntries[Category.exception.rawValue], next: &storage.nextRule)
        storage.bareBlockHosts = BareHostTable(entries: bareEntries)
        return storage
    }
}

/// The literal text a regular expression requires, for a quick check before running it.
enum RegexLiteral {
    /// The longest run of literal characters every match must contain; empty when unsure
    /// (alternations, for instance).
    static func required(in source: String, caseSensitive: Bool) -> [UInt8] {
        let bytes = Array(source.utf8)
        if bytes.contains(UInt8(ascii: "|")) { return [] }
        var best: [UInt8] = []
        var current: [UInt8] = []
        var index = 0
        var depth = 0
        func flush() {
            if current.count > best.count { best = current }
            current = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return [] }
                let next = bytes[index + 1]
                let isLetter =
                    (next >= UInt8(ascii: "a") && next <= UInt8(ascii: "z")) || (next >= UInt8(ascii: "A") && next <= UInt8(ascii: "Z"))
                let isDigit = next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")
                if isLetter || isDigit {
                    flush()  // \\d, \\w, \\b, backreferences...
                } else if depth == 0 {
                    current.append(next)
                }
                index += 2
                continue
            case UInt8(ascii: "("):
                flush()
                depth += 1
            case UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            case UInt8(ascii: "["):
                flush()
                while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    index += 1
                }
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "{"):
                // The previous character is optional.
                if !current.isEmpty { current.removeLast() }
                flush()
                if byte == UInt8(ascii: "{") {
                    while index < bytes.count && bytes[index] != UInt8(ascii: "}") { index += 1 }
                }
            case UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "$"):
                flush()
            default:
                if depth == 0 { current.append(byte) } else { flush() }
            }
            index += 1
        }
        flush()
        if !caseSensitive { best = best.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 } }
        return best
    }
}
