import FilterLists
import Foundation

/// Matches requests and domains against filter lists, fast, and explains every verdict.
///
/// Built from the rules of `FilterLists` (the same rules `pepper compile` turns into WebKit
/// rules), with the same semantics: types, first/third party by registrable domain (Public
/// Suffix List), `$domain`, `$important`, `$badfilter`, `$document` exceptions and the user
/// allowlist. Rules are found through a token index (each rule under its rarest token that is
/// sure to appear in any URL it matches), so a request is compared with a few rules only.
///
/// The engine is a handful of flat arrays: ``write(to:)`` saves it and
/// ``init(contentsOf:)`` loads it back without parsing any list.
public struct FilterEngine: Sendable {
    let data: EngineData
    let regexes: RegexCache
    let publicSuffixes: PublicSuffixList

    /// Builds an engine from parsed lists and the user's allowlist (normalised domains).
    ///
    /// - Parameters:
    ///   - lists: The parsed lists, in order.
    ///   - allowlist: Normalised domains on which nothing is blocked (subdomains included).
    ///   - identifier: Names the inputs (e.g. the compiled manifest's identifier), kept
    ///     in saved files so a stale engine can be recognised.
    public init(lists: [ParsedFilterList], allowlist: [String] = [], identifier: String = "") {
        self.init(storage: EngineBuilder.build(lists: lists, allowlist: allowlist, identifier: identifier))
    }

    init(storage: consuming EngineStorage) {
        self.init(data: EngineData(storage))
    }

    init(data: EngineData) {
        self.data = data
        regexes = RegexCache(data: data)
        publicSuffixes = .shared
    }

    /// The same engine with another user allowlist (normalised domains): its rules are shared,
    /// so an allowlist change costs no rebuild (the saved engine is kept whatever the allowlist,
    /// which is applied when it is loaded).
    public func replacingAllowlist(_ allowlist: [String]) -> FilterEngine {
        FilterEngine(data: EngineData(base: data, allowlistHashes: EngineBuilder.allowlistHashes(allowlist)))
    }

    /// The identifier given when the engine was built.
    public var identifier: String { data.identifier }

    /// Number of request rules (blocks and exceptions; a host blocked by several option-less
    /// rules counts once).
    public var ruleCount: Int { data.rules.count + data.bareBlockHosts.count }

    /// Index statistics, for benchmarks: rules found by host, by token, and tried for every request.
    public var indexStatistics: String {
        let tables = [
            ("important", data.importantHosts, data.importantIndex), ("block", data.blockHosts, data.blockIndex),
            ("exception", data.exceptionHosts, data.exceptionIndex),
        ]
        return tables.map { name, hosts, tokens in
            "\(name): \(hosts.count) hosts, \(tokens.ids.count) by token, \(tokens.fallback.count) without token"
        }.joined(separator: "; ") + "; bare blocks: \(data.bareBlockHosts.count) hosts"
    }

    /// Number of hosts with blocking hostname rules (the DNS-level candidates).
    public var blockedDomainCount: Int { data.blockHosts.count + data.importantHosts.count + data.bareBlockHosts.count }

    /// Number of hosts blocked at the DNS level (with their subdomains): what `pepper dns
    /// serve` reports when it starts.
    public var dnsBlockedDomainCount: Int {
        var count = 0
        for table in [data.blockHosts, data.importantHosts] {
            for slot in table.slots where slot.dnsHead != UInt32.max { count += 1 }
        }
        // A host can have a bare rule and an optioned one: count it once.
        for slot in data.bareBlockHosts.slots where slot.key != 0 {
            if data.blockHosts.slot(for: slot.key).map({ $0.dnsHead != UInt32.max }) == true { continue }
            if data.importantHosts.slot(for: slot.key).map({ $0.dnsHead != UInt32.max }) == true { continue }
            count += 1
        }
        return count
    }

    /// Bytes held by the engine's arrays (its memory, give or take the array headers).
    public var memoryFootprint: Int {
        func bytes<T>(_ buffer: UnsafeBufferPointer<T>) -> Int { buffer.count * MemoryLayout<T>.stride }
        var total = bytes(data.arena) + bytes(data.rules) + bytes(data.nextRule) + bytes(data.siteHashes) + bytes(data.listNameSpans)
        for table in [data.importantIndex, data.blockIndex, data.exceptionIndex] {
            total += bytes(table.keys) + bytes(table.starts) + bytes(table.counts) + bytes(table.ids) + bytes(table.fallback)
        }
        for table in [data.importantHosts, data.blockHosts, data.exceptionHosts] { total += bytes(table.slots) + bytes(table.filter) }
        total += bytes(data.bareBlockHosts.slots) + bytes(data.bareBlockHosts.filter)
        return total + bytes(data.documentExceptions) + bytes(data.allowlistHashes) + bytes(data.regexLiterals)
    }

    // MARK: Requests

    /// Judges a request.
    ///
    /// - Throws: ``FilterRequestError`` when the URL is not absolute.
    public func match(_ request: FilterRequest) throws(FilterRequestError) -> Verdict {
        var lowered = Self.loweredBytes(request.url)
        guard let hostRange = PreparedURL.hostRange(in: lowered), !hostRange.isEmpty else { throw .notAnAbsoluteURL(request.url) }
        var page = request.sourceURL.map(Self.loweredBytes) ?? []
        let pageHostRange = PreparedURL.hostRange(in: page) ?? 0..<0
        return lowered.withUnsafeMutableBufferPointer { url in
            page.withUnsafeMutableBufferPointer { page in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.maximumTokens) { tokens in
                    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * Self.maximumLabels) { hashes in
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.maximumLabels) { starts in
                            let tokenCount = MatchContext.tokens(of: UnsafeBufferPointer(url), into: tokens)
                            let urlHashes = UnsafeMutableBufferPointer(rebasing: hashes[0..<Self.maximumLabels])
                            let hostCount = HostHash.suffixes(UnsafeBufferPointer(url), hostRange, hashes: urlHashes, starts: starts)
                            var context = MatchContext(
                                data: data, engine: self, url: UnsafeBufferPointer(url), original: request.url, hostRange: hostRange,
                                hostHashes: UnsafeBufferPointer(rebasing: urlHashes[0..<hostCount]),
                                hostStarts: UnsafeBufferPointer(rebasing: starts[0..<hostCount]),
                                page: UnsafeBufferPointer(page), pageHostRange: pageHostRange, type: request.type.rawValue,
                                tokens: UnsafeBufferPointer(rebasing: tokens[0..<tokenCount]),
                                pageSuffixHashes: UnsafeMutableBufferPointer(
                                    rebasing: hashes[Self.maximumLabels..<(2 * Self.maximumLabels)]))
                            return context.verdict()
                        }
                    }
                }
            }
        }
    }

    /// Labels of a host name looked up (a DNS name has at most 127); a longer URL host is
    /// matched by its last 127 labels.
    static let maximumLabels = 128
    /// Distinct tokens of a URL looked up in the index; the rare URL with more is matched on its first 512.
    static let maximumTokens = 512

    @inline(__always)
    static func loweredBytes(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") { bytes[index] += 32 }
        return bytes
    }

    // MARK: Domains

    /// Judges a host name for DNS-level filtering: blocked when it or a parent is blocked by a
    /// hostname rule that makes sense for a whole name (`||domain^` without options or with
    /// `$third-party`, `$document`, third-party rules for some types; hosts files, domain lists,
    /// Tracker Radar and Disconnect trackers: `docs/dns.md`), unless it or a parent is allowed by
    /// an exception without type or by the allowlist. Allocation-free unless a rule is reported.
    public func match(domain: String) -> Verdict {
        let (decision, rule, overridden, allowlistEntry) = resolveDomain(domain)
        if let allowlistEntry {
            return Verdict(decision: .noMatch, rule: MatchedRule(text: "allowlist: \(allowlistEntry)", list: "allowlist", line: 0))
        }
        return Verdict(decision: decision, rule: rule.map(describe), overridden: overridden.map(describe))
    }

    /// A rule found for a host: its id (see ``describe(_:host:)``) and the host it was found
    /// for, which spells a bare rule.
    struct FoundRule {
        var id: UInt32
        var host: String

        static func bare(_ index: Int) -> UInt32 { UInt32(index) | FilterEngine.bareRuleBit }
    }

    /// The decision alone, without building rule descriptions.
    public func domainDecision(_ domain: String) -> Verdict.Decision {
        resolveDomain(domain, describing: false).decision
    }

    /// The decision for a lower-case ASCII host name given as bytes (no trailing dot): the DNS
    /// server's hot path, without any allocation.
    public func domainDecision(lowercasedName name: UnsafeBufferPointer<UInt8>) -> Verdict.Decision {
        guard !name.isEmpty, name.count <= 253 else { return .noMatch }
        return matchDomain(name, describing: false).decision
    }

    /// The decision for a host name, the deciding rule (and the overridden block), or the
    /// allowlist entry that covers it.
    private func resolveDomain(
        _ domain: String, describing: Bool = true
    ) -> (decision: Verdict.Decision, rule: FoundRule?, overridden: FoundRule?, allowlist: String?) {
        var name = domain
        return name.withUTF8 { raw in
            var length = raw.count
            if length > 0 && raw[length - 1] == UInt8(ascii: ".") { length -= 1 }
            guard length > 0, length <= 253 else { return (.noMatch, nil, nil, nil) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
                for index in 0..<length {
                    let byte = raw[index]
                    buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                }
                return matchDomain(UnsafeBufferPointer(buffer), describing: describing)
            }
        }
    }

    /// The decision for a lower-case name; with `describing`, the rules found and their hosts.
    private func matchDomain(
        _ name: UnsafeBufferPointer<UInt8>, describing: Bool
    ) -> (decision: Verdict.Decision, rule: FoundRule?, overridden: FoundRule?, allowlist: String?) {
        let host = 0..<name.count
        var allowlistEntry: Int?
        var allowed: (id: UInt32, start: Int)?
        var blocked: (id: UInt32, start: Int)?
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.maximumLabels) { hashes in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.maximumLabels) { starts in
                let count = HostHash.suffixes(name, host, hashes: hashes, starts: starts)
                for index in 0..<count {
                    let hash = hashes[index]
                    let range = starts[index]..<host.upperBound
                    if !data.allowlistHashes.isEmpty && data.allowlistHashes.binarySearchContains(hash, in: 0..<data.allowlistHashes.count)
                    {
                        allowlistEntry = starts[index]
                        return
                    }
                    if allowed == nil, let rule = dnsRule(in: data.exceptionHosts, hash: hash, name: name, range: range) {
                        allowed = (rule, range.lowerBound)
                    }
                    if blocked == nil {
                        if let rule = dnsRule(in: data.importantHosts, hash: hash, name: name, range: range)
                            ?? dnsRule(in: data.blockHosts, hash: hash, name: name, range: range)
                        {
                            blocked = (rule, range.lowerBound)
                        } else if let slot = data.bareBlockHosts.index(of: hash) {
                            blocked = (FoundRule.bare(slot), range.lowerBound)
                        }
                    }
                }
            }
        }
        if let allowlistEntry { return (.noMatch, nil, nil, String(decoding: name[allowlistEntry...], as: UTF8.self)) }
        guard let blocked else { return (.noMatch, nil, nil, nil) }
        func found(_ rule: (id: UInt32, start: Int)) -> FoundRule? {
            describing ? FoundRule(id: rule.id, host: String(decoding: name[rule.start...], as: UTF8.self)) : nil
        }
        // Without `describing`, only the decision is read: a placeholder rule stands for the found one.
        let placeholder = FoundRule(id: 0, host: "")
        if let allowed { return (.allowed, found(allowed) ?? placeholder, found(blocked) ?? placeholder, nil) }
        return (.blocked, found(blocked) ?? placeholder, nil, nil)
    }

    /// The first DNS-level rule of `table` for exactly this host.
    @inline(__always)
    private func dnsRule(in table: FrozenHostTable, hash: UInt64, name: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> UInt32? {
        guard let slot = table.slot(for: hash), slot.dnsHead != UInt32.max,
            HostBytes.equalsHost(name, range, pattern: data.pattern(data.rules[Int(slot.dnsHead)]))
        else { return nil }
        return slot.dnsHead
    }

    // MARK: Explanations

    /// Ids with this bit set are bare rules (``BareHostTable``), by slot index.
    static let bareRuleBit: UInt32 = 1 << 31

    /// The text, list and line of a rule found for a host.
    func describe(_ rule: FoundRule) -> MatchedRule {
        describe(rule.id, host: rule.host)
    }

    /// The text, list and line of a rule; `host` (the host it was found for) spells a bare rule.
    func describe(_ rule: UInt32, host: @autoclosure () -> String = "") -> MatchedRule {
        if rule & Self.bareRuleBit != 0 {
            let slot = data.bareBlockHosts.slots[Int(rule & ~Self.bareRuleBit)]
            let host = host()
            let text = slot.form == BareHostTable.Form.domain.rawValue ? host : "||" + host + "^"
            return MatchedRule(text: text, list: data.listNames[Int(slot.list)], line: Int(slot.line))
        }
        let record = data.rules[Int(rule)]
        let text =
            record.textLength == 0
            ? "||" + data.string(offset: record.patternOffset, length: record.patternLength)
            : data.string(offset: record.textOffset, length: record.textLength)
        return MatchedRule(text: text, list: data.listNames[Int(record.list)], line: Int(record.line))
    }
}

extension UnsafeBufferPointer where Element == UInt64 {
    @inline(__always)
    func binarySearchContains(_ value: UInt64, in range: Range<Int>) -> Bool {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            let element = self[middle]
            if element == value { return true }
            if element < value { low = middle + 1 } else { high = middle }
        }
        return false
    }
}

/// The compiled regular expressions of regex rules and the literal each requires
/// (NSRegularExpression is immutable and thread-safe once built).
final class RegexCache: @unchecked Sendable {
    private let expressions: [UInt32: (NSRegularExpression, [UInt8])]

    init(data: EngineData) {
        var expressions: [UInt32: (NSRegularExpression, [UInt8])] = [:]
        var index = 0
        let literals = data.regexLiterals
        while index + 2 < literals.count {
            let rule = literals[index]
            let literal = Array(data.arena[Int(literals[index + 1])..<Int(literals[index + 1] + literals[index + 2])])
            let record = data.rules[Int(rule)]
            let source = data.string(offset: record.patternOffset, length: record.patternLength)
            let options: NSRegularExpression.Options = record.flags.contains(.matchCase) ? [] : [.caseInsensitive]
            if let expression = try? NSRegularExpression(pattern: source, options: options) { expressions[rule] = (expression, literal) }
            index += 3
        }
        self.expressions = expressions
    }

    /// Whether the rule's expression matches; the required literal is looked for first in the
    /// lower-cased URL, which rules most requests out cheaply.
    func matches(rule: UInt32, url: String, lowered: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let (expression, literal) = expressions[rule] else { return false }
        if !literal.isEmpty {
            let found = literal.withUnsafeBufferPointer { Self.contains(lowered, $0) }
            if !found { return false }
        }
        return expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }

    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var offset = 1
                while offset < needle.count && haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            index += 1
        }
        return false
    }
}
