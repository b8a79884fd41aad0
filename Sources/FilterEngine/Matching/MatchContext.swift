import FilterLists

/// One request being matched: the URL's bytes and tokens, and what is known about the page.
struct MatchContext {
    let data: EngineData
    let engine: FilterEngine
    let url: UnsafeBufferPointer<UInt8>
    let original: String
    let hostRange: Range<Int>
    /// Hashes of the URL's host and its parents (most specific first), and where each starts.
    let hostHashes: UnsafeBufferPointer<UInt64>
    let hostStarts: UnsafeBufferPointer<Int>
    let page: UnsafeBufferPointer<UInt8>
    let pageHostRange: Range<Int>
    let pageKnown: Bool
    let type: UInt16
    let tokens: UnsafeBufferPointer<UInt32>
    let pageSuffixHashes: UnsafeMutableBufferPointer<UInt64>
    private var pageSuffixCount = -1
    private var party: Int8 = -1  // -1 not computed, 0 first party, 1 third party, 2 page unknown
    /// Where the host of the bare rule found starts in the URL (it spells the rule).
    private var bareHostStart = 0

    init(
        data: EngineData, engine: FilterEngine, url: UnsafeBufferPointer<UInt8>, original: String, hostRange: Range<Int>,
        hostHashes: UnsafeBufferPointer<UInt64>, hostStarts: UnsafeBufferPointer<Int>, page: UnsafeBufferPointer<UInt8>,
        pageHostRange: Range<Int>, type: UInt16, tokens: UnsafeBufferPointer<UInt32>,
        pageSuffixHashes: UnsafeMutableBufferPointer<UInt64>
    ) {
        self.data = data
        self.engine = engine
        self.url = url
        self.original = original
        self.hostRange = hostRange
        self.hostHashes = hostHashes
        self.hostStarts = hostStarts
        self.page = page
        self.pageHostRange = pageHostRange
        pageKnown = !pageHostRange.isEmpty
        self.type = type
        self.tokens = tokens
        self.pageSuffixHashes = pageSuffixHashes
    }

    /// The decision, as `docs/conversion.md` orders rules: blocks, exceptions, important blocks,
    /// `$document` and important exceptions, then the allowlist.
    mutating func verdict() -> Verdict {
        if let important = firstMatch(hosts: data.importantHosts, tokens: data.importantIndex, importantOnly: false) {
            if let override = pageOverride() { return Verdict(decision: .allowed, rule: override, overridden: engine.describe(important)) }
            if let exception = firstMatch(hosts: data.exceptionHosts, tokens: data.exceptionIndex, importantOnly: true) {
                return Verdict(decision: .allowed, rule: engine.describe(exception), overridden: engine.describe(important))
            }
            return Verdict(decision: .blocked, rule: engine.describe(important))
        }
        guard let block = firstMatch(hosts: data.blockHosts, tokens: data.blockIndex, importantOnly: false, bare: data.bareBlockHosts)
        else { return .noMatch }
        let blockHost =
            block & FilterEngine.bareRuleBit == 0
            ? "" : String(decoding: UnsafeBufferPointer(rebasing: url[bareHostStart..<hostRange.upperBound]), as: UTF8.self)
        if let exception = firstMatch(hosts: data.exceptionHosts, tokens: data.exceptionIndex, importantOnly: false) {
            return Verdict(decision: .allowed, rule: engine.describe(exception), overridden: engine.describe(block, host: blockHost))
        }
        if let override = pageOverride() {
            return Verdict(decision: .allowed, rule: override, overridden: engine.describe(block, host: blockHost))
        }
        return Verdict(decision: .blocked, rule: engine.describe(block, host: blockHost))
    }

    /// The allowlist entry or `$document` exception covering the page, if any.
    private mutating func pageOverride() -> MatchedRule? {
        guard pageKnown else { return nil }
        if !data.allowlistHashes.isEmpty {
            var entry: Int?
            withUnsafeTemporaryAllocation(of: Int.self, capacity: pageSuffixHashes.count) { starts in
                let count = HostHash.suffixes(page, pageHostRange, hashes: pageSuffixHashes, starts: starts)
                pageSuffixCount = count
                for index in 0..<count
                where data.allowlistHashes.binarySearchContains(pageSuffixHashes[index], in: 0..<data.allowlistHashes.count) {
                    entry = starts[index]
                    break
                }
            }
            if let entry {
                let site = String(decoding: UnsafeBufferPointer(rebasing: page[entry..<pageHostRange.upperBound]), as: UTF8.self)
                return MatchedRule(text: "allowlist: " + site, list: "allowlist", line: 0)
            }
        }
        for rule in data.documentExceptions {
            let record = data.rules[Int(rule)]
            if sitesAllow(record)
                && PatternMatcher.matches(pattern: data.pattern(record), flags: record.flags, url: page, hostRange: pageHostRange)
            {
                return engine.describe(rule)
            }
        }
        return nil
    }

    /// The first rule that matches: hostname rules by the URL's host and its parents (most
    /// specific first), then the others by token, then the rules without token.
    private mutating func firstMatch(
        hosts: FrozenHostTable, tokens table: FrozenTokenTable, importantOnly: Bool, bare: FrozenBareHostTable? = nil
    ) -> UInt32? {
        if hosts.count > 0 || (bare?.count ?? 0) > 0 {
            for index in 0..<hostHashes.count {
                // A bare rule blocks every request its types cover (no party, no page limit).
                if let bare, type & Self.bareTypes != 0, let slot = bare.index(of: hostHashes[index]) {
                    bareHostStart = hostStarts[index]
                    return FilterEngine.FoundRule.bare(slot)
                }
                guard var rule = hosts.slot(for: hostHashes[index])?.head else { continue }
                // Confirm the host (hashes can collide), then try each rule of that host.
                guard HostBytes.equalsHost(url, hostStarts[index]..<hostRange.upperBound, pattern: data.pattern(data.rules[Int(rule)]))
                else { continue }
                while true {
                    if matchesOptions(rule, importantOnly: importantOnly) { return rule }
                    let next = data.nextRule[Int(rule)]
                    if next == UInt32.max { break }
                    rule = next
                }
            }
        }
        for token in tokens {
            for rule in table.rules(token: token) where matchesOptions(rule, importantOnly: importantOnly) && matchesPattern(rule) {
                return rule
            }
        }
        for rule in table.fallback where matchesOptions(rule, importantOnly: importantOnly) && matchesPattern(rule) { return rule }
        return nil
    }

    /// The request types of a bare rule: those of `||host^` without options.
    static let bareTypes = ResourceTypes.defaultTypes.union(.document).rawValue

    /// Type, party and `$domain`.
    @inline(__always)
    private mutating func matchesOptions(_ rule: UInt32, importantOnly: Bool) -> Bool {
        let record = data.rules[Int(rule)]
        if importantOnly && !record.flags.contains(.important) { return false }
        guard record.types & type != 0 else { return false }
        if !record.flags.isDisjoint(with: [.thirdParty, .firstParty]) {
            let party = partyOfRequest()
            if party == 0 && record.flags.contains(.thirdParty) { return false }
            if party == 1 && record.flags.contains(.firstParty) { return false }
        }
        return record.includedCount == 0 && record.excludedCount == 0 ? true : sitesAllow(record)
    }

    @inline(__always)
    private func matchesPattern(_ rule: UInt32) -> Bool {
        let record = data.rules[Int(rule)]
        if record.flags.contains(.regex) {
            return engine.regexes.matches(rule: rule, url: original, lowered: url)
        }
        if record.flags.contains(.matchCase) {
            var text = original
            return text.withUTF8 {
                PatternMatcher.matches(pattern: data.pattern(record), flags: record.flags, url: $0, hostRange: hostRange)
            }
        }
        return PatternMatcher.matches(pattern: data.pattern(record), flags: record.flags, url: url, hostRange: hostRange)
    }

    /// `$domain`: the most specific entry matching the page's host decides. Without a known page,
    /// a rule limited to some sites does not apply and a rule excluding some does.
    private mutating func sitesAllow(_ record: RuleRecord) -> Bool {
        let included = Int(record.includedCount)
        let excluded = Int(record.excludedCount)
        if included == 0 && excluded == 0 { return true }
        guard pageKnown else { return included == 0 }
        computePageSuffixes()
        let start = Int(record.sitesOffset)
        for index in 0..<pageSuffixCount {
            let hash = pageSuffixHashes[index]
            if excluded > 0 && data.siteHashes.binarySearchContains(hash, in: (start + included)..<(start + included + excluded)) {
                return false
            }
            if included > 0 && data.siteHashes.binarySearchContains(hash, in: start..<(start + included)) { return true }
        }
        return included == 0
    }

    /// Hashes of the page's host and its parents, most specific first (computed once).
    private mutating func computePageSuffixes() {
        guard pageSuffixCount < 0 else { return }
        pageSuffixCount = withUnsafeTemporaryAllocation(of: Int.self, capacity: pageSuffixHashes.count) { starts in
            HostHash.suffixes(page, pageHostRange, hashes: pageSuffixHashes, starts: starts)
        }
    }

    /// 0: first party, 1: third party (by registrable domain), 2: page unknown (both apply).
    private mutating func partyOfRequest() -> Int8 {
        if party >= 0 { return party }
        guard pageKnown else {
            party = 2
            return 2
        }
        let suffixes = engine.publicSuffixes
        let requestSite = suffixes.registrableDomainStart(in: url, host: hostRange)..<hostRange.upperBound
        let pageSite = suffixes.registrableDomainStart(in: page, host: pageHostRange)..<pageHostRange.upperBound
        var same = requestSite.count == pageSite.count
        var offset = 0
        while same && offset < requestSite.count {
            same = url[requestSite.lowerBound + offset] == page[pageSite.lowerBound + offset]
            offset += 1
        }
        party = same ? 0 : 1
        return party
    }

    /// The distinct token hashes of a lower-cased URL, written into `output`; returns how many.
    static func tokens(of bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt32>) -> Int {
        var count = 0
        var index = 0
        while index < bytes.count && count < output.count {
            guard TokenHash.isTokenByte(bytes[index]) else {
                index += 1
                continue
            }
            let start = index
            var hash: UInt32 = 0x811C_9DC5
            while index < bytes.count && TokenHash.isTokenByte(bytes[index]) {
                hash = (hash ^ UInt32(bytes[index])) &* 0x0100_0193
                index += 1
            }
            if index - start >= 2 {
                if hash == 0 { hash = 1 }
                var seen = false
                for existing in 0..<count where output[existing] == hash {
                    seen = true
                    break
                }
                if !seen {
                    output[count] = hash
                    count += 1
                }
            }
        }
        return count
    }
}
