import FilterLists
import Foundation

/// Converts network rules (blocks and `@@` exceptions) into WebKit rules.
///
/// Plain `||domain^` blocks are kept apart (``CompiledRules/blockedHosts``): they are most of
/// EasyList and EasyPrivacy, WebKit compiles them fastest sorted and spelled apart from other
/// rules, and they make every other block on the same host redundant, so those are dropped.
struct NetworkRuleConverter {
    private var compiled: CompiledRules
    private var state: CompilationState
    private var emitted = Set<WebKitRule>()
    private var pairs: [WebKitRule] = []
    /// Domains blocked outright by a plain `||domain^` rule, with the list that named each first.
    private var blockedDomains: [HostKey: Int] = [:]

    private enum Section {
        case blocking, exceptions, important, documentExceptions, hidingExceptions, genericHidingExceptions
    }

    /// Converts the network rules of `lists`, adding them to `compiled` and counting in `state`,
    /// all but the plain domain blocks, which are still being sorted and written on another
    /// thread when this returns: ``PendingDomainBlocks/finish(into:state:)`` adds them.
    static func convert(
        _ lists: [ParsedFilterList], into compiled: inout CompiledRules, state: inout CompilationState
    ) -> PendingDomainBlocks {
        var converter = NetworkRuleConverter(compiled: compiled, state: state)
        let domainBlocks = converter.convert(lists)
        converter.compiled.blocking = converter.pairs + converter.compiled.blocking
        converter.compiled.pairedBlockingCount = converter.pairs.count
        compiled = converter.compiled
        state = converter.state
        return domainBlocks
    }

    private init(compiled: CompiledRules, state: CompilationState) {
        self.compiled = compiled
        self.state = state
    }

    private mutating func convert(_ lists: [ParsedFilterList]) -> PendingDomainBlocks {
        var badfilterKeys = Set<String>()
        var badfilterHeads = Set<UInt64>()
        for list in lists {
            for rule in list.networkRules where rule.isBadfilter {
                badfilterKeys.insert(rule.badfilterKey)
                badfilterHeads.insert(Self.headHash(of: rule.text))
            }
        }
        let isCancelled: @Sendable (NetworkRule) -> Bool = { [badfilterHeads, badfilterKeys] rule in
            // The full key is computed only for rules whose pattern (hashed) a `$badfilter` names.
            !badfilterHeads.isEmpty && badfilterHeads.contains(Self.headHash(of: rule.text)) && badfilterKeys.contains(rule.badfilterKey)
        }
        // The work per rule is done on every core and only reads; what depends on the rules
        // before (which list names a domain first, duplicates) is then decided in list order.

        // Plain `||domain^` blocks: collected first (the first list naming a domain gets it), so that
        // other rules can be checked against them; emitted sorted, which WebKit compiles faster.
        let domains: [[String?]] = lists.map { list in
            [String?].parallelMap(count: list.networkRules.count) { index in
                let rule = list.networkRules[index]
                guard Self.isDomainRuleCandidate(rule), !isCancelled(rule) else { return nil }
                return rule.blockedDomain
            }
        }
        blockedDomains.reserveCapacity(lists.reduce(0) { $0 + $1.networkRules.count })
        for (source, listDomains) in domains.enumerated() {
            for case let domain? in listDomains {
                let key = HostKey(domain)
                if blockedDomains[key] == nil { blockedDomains[key] = source } else { state.skip(source, .duplicate) }
            }
        }
        let blocked = blockedDomains
        // The domain blocks are sorted, checked and written as JSON on another thread while this
        // one converts the other rules (which need only the set of blocked domains).
        let domainBlocks = PendingDomainBlocks()
        DispatchQueue.global().async(group: domainBlocks.group) {
            domainBlocks.box.value = Self.domainBlocks(blocked, sourceCount: lists.count)
        }

        emitted.reserveCapacity(lists.reduce(0) { $0 + $1.networkRules.count })
        for (source, list) in lists.enumerated() {
            let plans = [Plan?].parallelMap(count: list.networkRules.count) { index in
                let rule = list.networkRules[index]
                guard !rule.isBadfilter, domains[source][index] == nil else { return nil }  // domain rules: emitted above
                return Self.plan(rule, blockedDomains: blocked, isCancelled: isCancelled)
            }
            for case let plan? in plans {
                switch plan {
                case .skip(let reason): state.skip(source, reason)
                case .rules(let outputs): apply(outputs, source: source)
                }
            }
        }
        return domainBlocks
    }

    /// The plain domain blocks, from the domains blocked outright and the list that named each
    /// first.
    fileprivate struct DomainBlocks {
        /// The hosts to block, sorted, without those a parent's block covers.
        var hosts: [String]
        /// Their rules' JSON.
        var encoded: EncodedRules
        /// Per list: how many of its domains are blocked by a rule of their own.
        var emitted: [Int]
        /// Per list: how many of its domains a parent's block covers.
        var covered: [Int]
    }

    private static func domainBlocks(_ blocked: [HostKey: Int], sourceCount: Int) -> DomainBlocks {
        // A dictionary's keys and values come in the same order.
        let hosts = blocked.keys.map(\.host)
        let sources = Array(blocked.values)
        let order = sortedOrder(of: hosts)
        let covered = [Bool].parallelMap(count: order.count) { index in
            isCovered(Substring(hosts[order[index]]), ownDomain: true, in: blocked)
        }
        var blocks = DomainBlocks(
            hosts: [], encoded: EncodedRules(), emitted: Array(repeating: 0, count: sourceCount),
            covered: Array(repeating: 0, count: sourceCount))
        blocks.hosts.reserveCapacity(order.count)
        for (position, index) in order.enumerated() {
            if covered[position] {
                blocks.covered[sources[index]] += 1
            } else {
                blocks.hosts.append(hosts[index])
                blocks.emitted[sources[index]] += 1
            }
        }
        // Written as hosts, not rules (``EncodedRules/init(blockingHosts:)``).
        blocks.encoded = EncodedRules(blockingHosts: blocks.hosts)
        return blocks
    }

    /// What becomes of one rule, decided without the rules before it.
    private enum Plan: Sendable {
        case skip(SkipReason)
        case rules([Output])
    }

    /// One WebKit rule a rule gives.
    private enum Output: Sendable {
        /// A rule for `section` (unless an equal one was emitted before).
        case add(WebKitRule, Section)
        /// A block and the exception that narrows it right after (`$domain=a.com|~b.a.com`).
        case pair(block: WebKitRule, undo: WebKitRule)
    }

    private static func plan(_ rule: NetworkRule, blockedDomains: [HostKey: Int], isCancelled: (NetworkRule) -> Bool) -> Plan {
        if isCancelled(rule) { return .skip(.disabledByBadfilter) }
        if rule.isException && rule.exceptionScope.contains(.genericBlocking) { return .skip(.unsupportedOption("genericblock")) }
        if !rule.isException && !rule.isImportant && rule.resourceTypes.isSubset(of: ResourceTypes.defaultTypes),
            let host = terminatedHost(of: rule), isCovered(host, ownDomain: false, in: blockedDomains)
        {
            return .skip(.coveredByDomainRule)
        }
        switch URLFilterTranslator.urlFilters(for: rule) {
        case .success(let filters):
            return rule.isException ? planException(rule, filters: filters) : .rules(planBlock(rule, filters: filters))
        case .failure(let reason):
            return .skip(reason)
        }
    }

    private mutating func apply(_ outputs: [Output], source: Int) {
        for output in outputs {
            switch output {
            case .add(let rule, let section):
                add(rule, to: section, source: source)
            case .pair(let block, let undo):
                guard emitted.insert(block).inserted else {
                    state.skip(source, .duplicate)
                    continue
                }
                pairs += [block, undo]
                state.emitted(by: source)
            }
        }
    }

    /// The indices of `hosts` in the order of ``precedes(_:_:)``, sorting 16-byte keys rather
    /// than strings (moving strings retains and releases them; most hosts differ in their first
    /// 16 bytes).
    static func sortedOrder(of hosts: [String]) -> [Int] {
        var keys = [(UInt64, UInt64, Int)].parallelMap(count: hosts.count) { index in
            var host = hosts[index]
            return host.withUTF8 { bytes in
                var key: (UInt64, UInt64) = (0, 0)
                for position in 0..<Swift.min(16, bytes.count) {
                    let byte = UInt64(bytes[position])
                    if position < 8 { key.0 |= byte << (56 - 8 * position) } else { key.1 |= byte << (120 - 8 * position) }
                }
                return (key.0, key.1, index)
            }
        }
        // Hosts hold no NUL, so a shorter host padded with zeros sorts first, as it should.
        keys.sort { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1 != b.1 { return a.1 < b.1 }
            return precedes(hosts[a.2], hosts[b.2])
        }
        return keys.map(\.2)
    }

    /// `a < b` for host names, by their bytes: the order of `String`'s `<` for ASCII (hosts
    /// are), without its Unicode machinery; for hosts whose first 16 bytes are the same.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let ordered = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
        return (ordered ?? nil) ?? (a < b)
    }

    /// Whether a rule may be a plain `||domain^` block (cheap checks before ``NetworkRule/blockedDomain``).
    private static func isDomainRuleCandidate(_ rule: NetworkRule) -> Bool {
        !rule.isException && !rule.isImportant && !rule.isBadfilter && rule.anchor == .host && !rule.hasExplicitTypes
    }

    /// Whether a plain domain block in `blocked` covers `host` (for a domain rule itself: a
    /// parent's block).
    private static func isCovered(_ host: Substring, ownDomain: Bool, in blocked: [HostKey: Int]) -> Bool {
        guard !blocked.isEmpty else { return false }
        var covered = false
        forEachSuffix(of: host) { suffix in
            if ownDomain && suffix.utf8.count == host.utf8.count { return true }
            covered = blocked[HostKey(suffix)] != nil
            return !covered
        }
        return covered
    }

    /// The host of a `||host/...`, `||host^...` or `||host:port...` pattern; `nil` for other
    /// patterns and for hosts that may continue (`||ads.`).
    private static func terminatedHost(of rule: NetworkRule) -> Substring? {
        guard rule.anchor == .host, !rule.isRegex else { return nil }
        let pattern = Substring(rule.pattern)
        guard let end = pattern.utf8.firstIndex(where: { !DomainName.isHostByte($0) }), end > pattern.startIndex,
            [UInt8(ascii: "/"), UInt8(ascii: "^"), UInt8(ascii: ":")].contains(pattern.utf8[end])
        else { return nil }
        return pattern[..<end]
    }

    /// Calls `body` with `a.b.com`, `b.com`, `com` in turn, until it returns `false`.
    private static func forEachSuffix(of host: Substring, _ body: (Substring) -> Bool) {
        guard body(host) else { return }
        let utf8 = host.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == UInt8(ascii: ".") {
                let next = utf8.index(after: index)
                guard body(host[next...]) else { return }
            }
            index = utf8.index(after: index)
        }
    }

    /// FNV-1a hash of the rule text before its options (a cheap pre-check for `$badfilter`).
    private static func headHash(of text: String) -> UInt64 {
        let utf8 = text.utf8
        let end = utf8.lastIndex(of: UInt8(ascii: "$")) ?? utf8.endIndex
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8[..<end] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    @discardableResult
    private mutating func add(_ rule: WebKitRule, to section: Section, source: Int) -> Bool {
        guard emitted.insert(rule).inserted else {
            state.skip(source, .duplicate)
            return false
        }
        state.emitted(by: source)
        switch section {
        case .blocking: compiled.blocking.append(rule)
        case .exceptions: compiled.exceptions.append(rule)
        case .important: compiled.important.append(rule)
        case .documentExceptions: compiled.documentExceptions.append(rule)
        case .hidingExceptions: compiled.hidingExceptions.append(rule)
        case .genericHidingExceptions: compiled.genericHidingExceptions.append(rule)
        }
        return true
    }

    private static func planBlock(_ rule: NetworkRule, filters: [URLFilter]) -> [Output] {
        let conditions = domainConditions(rule.domains)
        var outputs: [Output] = []
        for filter in filters {
            for trigger in triggers(rule, filter: filter, condition: conditions.primary) {
                let block = WebKitRule(trigger: trigger, action: .block)
                if rule.isImportant {
                    outputs.append(.add(block, .important))
                } else if let narrowing = conditions.exception {
                    // `$domain=a.com|~b.a.com`: block on a.com, then undo it on b.a.com right away,
                    // before any other block, so the exception cancels only this pair's rule.
                    var undo = trigger
                    undo.domainCondition = narrowing
                    outputs.append(.pair(block: block, undo: WebKitRule(trigger: undo, action: .ignorePreviousRules)))
                } else {
                    outputs.append(.add(block, .blocking))
                }
            }
        }
        return outputs
    }

    private static func planException(_ rule: NetworkRule, filters: [URLFilter]) -> Plan {
        let scope = rule.exceptionScope
        if !scope.intersection([.document, .elementHiding, .genericHiding]).isEmpty {
            // Page-level exceptions must match every load of the page (WebKit applies hiding rules
            // matched by any load to the page), so they use a page condition on an every-URL trigger.
            guard let condition = pageCondition(for: rule, filters: filters) else { return .skip(.unsupportedPageException) }
            let exception = WebKitRule(
                trigger: .init(
                    urlFilter: URLFilter.matchAll.pattern, domainCondition: condition,
                    isTopURLCaseSensitive: condition.isTopURL && filters.allSatisfy(\.isCaseSensitive)),
                action: .ignorePreviousRules)
            let section: Section =
                scope.contains(.document)
                ? .documentExceptions : scope.contains(.elementHiding) ? .hidingExceptions : .genericHidingExceptions
            return .rules([.add(exception, section)])
        }
        // A request exception. Exclusions inside `$domain` cannot be kept on an exception (there is
        // no "re-block"), so only the included sites are used: it allows slightly more, never less.
        var domains = rule.domains
        if !domains.included.isEmpty { domains.excluded = [] }
        let condition = domainConditions(domains).primary
        var outputs: [Output] = []
        for filter in filters {
            for trigger in triggers(rule, filter: filter, condition: condition) {
                outputs.append(
                    .add(WebKitRule(trigger: trigger, action: .ignorePreviousRules), rule.isImportant ? .documentExceptions : .exceptions))
            }
        }
        return .rules(outputs)
    }

    /// The pages a page-level exception covers: `if-domain` for `||site^` or `$domain=site`,
    /// `if-top-url` for other patterns; `nil` when WebKit cannot say it (a pattern and `$domain`
    /// together, or `$domain` exclusions).
    static func pageCondition(for rule: NetworkRule, filters: [URLFilter]) -> WebKitRule.DomainCondition? {
        if filters == [.matchAll] {
            guard !rule.domains.included.isEmpty, rule.domains.excluded.isEmpty else { return nil }
            return .ifDomain(rule.domains.included)
        }
        guard rule.domains.isUnconstrained else { return nil }
        if let site = site(of: rule) { return .ifDomain([site]) }
        return .ifTopURL(filters.map(\.pattern))
    }

    /// The site of a `||example.com^` pattern (any options), for page conditions.
    private static func site(of rule: NetworkRule) -> String? {
        guard rule.anchor == .host, !rule.isRegex else { return nil }
        var host = Substring(rule.pattern)
        if host.hasSuffix("^") { host = host.dropLast() }
        guard !host.isEmpty, host.utf8.allSatisfy(DomainName.isHostByte) else { return nil }
        return String(host)
    }

    /// The triggers for a rule: one per WebKit type group.
    static func triggers(_ rule: NetworkRule, filter: URLFilter, condition: WebKitRule.DomainCondition?) -> [WebKitRule.Trigger] {
        let loadType: WebKitRule.LoadType? =
            switch rule.party {
            case .any: nil
            case .first: .firstParty
            case .third: .thirdParty
            }
        return ResourceTypeMapping.targets(for: rule.resourceTypes, explicit: rule.hasExplicitTypes).map { target in
            WebKitRule.Trigger(
                urlFilter: filter.pattern, isCaseSensitive: filter.isCaseSensitive, resourceTypes: target.types, loadType: loadType,
                loadContext: target.loadContext, domainCondition: condition, isTopURLCaseSensitive: condition?.isTopURL ?? false)
        }
    }

    /// The page condition for a `$domain` option, and for mixed include/exclude lists the
    /// condition of the narrow exception that must follow the rule.
    static func domainConditions(
        _ domains: DomainConstraint
    ) -> (primary: WebKitRule.DomainCondition?, exception: WebKitRule.DomainCondition?) {
        if domains.isUnconstrained { return (nil, nil) }
        if domains.included.isEmpty { return (.sites(domains.excluded, included: false), nil) }
        // Only exclusions inside an included site matter (`a.com|~b.a.com`); others are moot.
        let included = Set(domains.included)
        let relevant = domains.excluded.filter { excluded in
            var inside = false
            forEachSuffix(of: Substring(excluded)) { suffix in
                inside = included.contains(String(suffix))
                return !inside
            }
            return inside
        }
        return (.sites(domains.included, included: true), relevant.isEmpty ? nil : .sites(relevant, included: true))
    }
}

extension WebKitRule.DomainCondition {
    /// Most site lists are as `if-top-url` / `unless-top-url` expressions, which WebKit compiles faster
    /// than `if-domain`; beyond this many sites `if-domain` / `unless-domain` is used, which WebKit
    /// turns into the same expressions but which keeps the JSON small (entity lists of thousands of
    /// sites in Tracker Radar data).
    static let topURLSiteLimit = 8

    /// The condition "on these sites" (or "not on these sites") in the cheaper spelling.
    static func sites(_ sites: [String], included: Bool) -> WebKitRule.DomainCondition {
        if sites.count > topURLSiteLimit {
            return included ? .ifDomain(sites) : .unlessDomain(sites)
        }
        let patterns = sites.map(URLFilterTranslator.siteFilter)
        return included ? .ifTopURL(patterns) : .unlessTopURL(patterns)
    }

    var isTopURL: Bool {
        switch self {
        case .ifTopURL, .unlessTopURL: return true
        case .ifDomain, .unlessDomain: return false
        }
    }
}

/// The plain domain blocks while another thread sorts, checks and writes them.
struct PendingDomainBlocks: @unchecked Sendable {
    fileprivate final class Box: @unchecked Sendable {
        var value: NetworkRuleConverter.DomainBlocks?
    }

    /// Left when they are done.
    fileprivate let group = DispatchGroup()
    /// Written by that thread, read after it finished.
    fileprivate let box = Box()

    /// Waits for them, and adds them to `compiled` with their counts.
    func finish(into compiled: inout CompiledRules, state: inout CompilationState) {
        group.wait()
        let blocks = box.value!
        compiled.blockedHosts = blocks.hosts
        compiled.encodedBlockedHosts = blocks.encoded
        for source in blocks.emitted.indices {
            state.reports[source].rulesOut += blocks.emitted[source]
            if blocks.covered[source] > 0 { state.reports[source].skipped[.coveredByDomainRule, default: 0] += blocks.covered[source] }
        }
    }
}

/// A host name as a dictionary key, hashed and compared by its bytes, so that part of a longer
/// string (a suffix of a host, the host of a pattern) is looked up without making a `String` of it.
struct HostKey: Hashable, Sendable {
    /// The host name.
    let name: Substring

    init(_ name: String) {
        self.name = Substring(name)
    }

    init(_ name: Substring) {
        self.name = name
    }

    /// The host name as a string (the original one when the key was made from a whole string).
    var host: String { name.startIndex == name.base.startIndex && name.endIndex == name.base.endIndex ? name.base : String(name) }

    static func == (left: HostKey, right: HostKey) -> Bool {
        left.withBytes { a in
            right.withBytes { b in a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
        }
    }

    func hash(into hasher: inout Hasher) {
        withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = name.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(name)
        return copy.withUTF8(body)
    }
}
