import Dispatch
import FilterLists

/// Compiles parsed filter lists into WebKit content-blocker rules.
///
/// The compiler is deterministic: the same lists (in the same order) and allowlist always give
/// the same rules in the same order. It never emits a rule WebKit would reject: url-filters are
/// built in WebKit's regex subset, and expressions that cannot be are skipped with a reason.
public struct ContentRuleCompiler: Sendable {
    /// Tuning knobs.
    public struct Options: Sendable, Hashable {
        /// Selectors joined into one `css-display-none` rule (WebKit handles big groups well).
        public var selectorsPerRule: Int

        /// The defaults.
        public init(selectorsPerRule: Int = 1_000) {
            self.selectorsPerRule = selectorsPerRule
        }
    }

    /// The options in use.
    public var options: Options

    /// A compiler with the given options.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Compiles `lists` (in order) with the user's `allowlist` (normalised domains).
    public func compile(_ lists: [ParsedFilterList], allowlist: [String] = []) -> CompiledRules {
        var (compiled, state, domainBlocks) = convert(lists, allowlist: allowlist)
        domainBlocks.finish(into: &compiled, state: &state)
        compiled.reports = state.reports
        return compiled
    }

    /// Compiles `lists` straight to encoded rules, what a build writes and keeps: the same rules
    /// as ``compile(_:allowlist:)``, but the other rules are encoded while the plain domain
    /// blocks are still being sorted and written on another thread, and the rules themselves are
    /// freed on another thread once encoded.
    public func compileEncoded(_ lists: [ParsedFilterList], allowlist: [String] = []) -> EncodedCompiledRules {
        var (compiled, state, domainBlocks) = convert(lists, allowlist: allowlist)
        var parts = EncodedCompiledRules.encode(compiled, parts: RuleListLayout.Part.allCases.filter { $0 != .domainBlocking })
        domainBlocks.finish(into: &compiled, state: &state)
        parts.merge(EncodedCompiledRules.encode(compiled, parts: [.domainBlocking])) { _, domainBlocks in domainBlocks }
        BackgroundRelease.release(consume compiled)
        return EncodedCompiledRules(parts: parts, reports: state.reports)
    }

    /// Every rule but the plain domain blocks, which are still being made when this returns.
    private func convert(
        _ lists: [ParsedFilterList], allowlist: [String]
    ) -> (CompiledRules, CompilationState, PendingDomainBlocks) {
        // Request rules and hiding rules are independent: the hiding rules are converted on
        // another thread while this one converts the request rules (spreading its own work over
        // the cores). Not two iterations of one `concurrentPerform`: work nested in one gets no
        // more threads than its iteration.
        let cosmetic = Box<(CompiledRules, CompilationState)>()
        let selectorsPerRule = options.selectorsPerRule
        let hiding = DispatchGroup()
        DispatchQueue.global().async(group: hiding) {
            var state = CompilationState(lists: lists, countingParserSkips: false)
            var compiled = CompiledRules()
            CosmeticRuleConverter(selectorsPerRule: selectorsPerRule).convert(lists, into: &compiled, state: &state)
            cosmetic.value = (compiled, state)
        }
        var state = CompilationState(lists: lists, countingParserSkips: true)
        var compiled = CompiledRules()
        let domainBlocks = NetworkRuleConverter.convert(lists, into: &compiled, state: &state)
        hiding.wait()
        let (hidingRules, hidingState) = cosmetic.value!
        compiled.genericHiding = hidingRules.genericHiding
        compiled.specificHiding = hidingRules.specificHiding
        state.merge(hidingState)
        compiled.allowlist = Self.allowlistRules(for: allowlist)
        return (compiled, state, domainBlocks)
    }

    /// The rule that switches everything off on allowlisted sites and their subdomains.
    public static func allowlistRules(for domains: [String]) -> [WebKitRule] {
        let sorted = Array(Set(domains)).sorted()
        guard !sorted.isEmpty else { return [] }
        return [
            WebKitRule(
                trigger: .init(urlFilter: URLFilter.matchAll.pattern, domainCondition: .ifDomain(sorted)),
                action: .ignorePreviousRules)
        ]
    }
}

/// Counters shared by the network and cosmetic converters.
struct CompilationState {
    var reports: [SourceReport]

    init(lists: [ParsedFilterList], countingParserSkips: Bool = true) {
        reports = lists.map { list in
            SourceReport(name: list.name, rulesIn: list.ruleCount + list.skippedCount, skipped: countingParserSkips ? list.skipped : [:])
        }
    }

    /// Adds the counts of a state built for the same lists.
    mutating func merge(_ other: CompilationState) {
        for (index, report) in other.reports.enumerated() {
            reports[index].rulesOut += report.rulesOut
            reports[index].skipped.merge(report.skipped, uniquingKeysWith: +)
        }
    }

    mutating func skip(_ source: Int, _ reason: SkipReason) {
        reports[source].skipped[reason, default: 0] += 1
    }

    mutating func emitted(by source: Int) {
        reports[source].rulesOut += 1
    }

    mutating func emitted(by sources: some Sequence<Int>) {
        var seen: [Int] = []
        for source in sources where !seen.contains(source) {
            seen.append(source)
            reports[source].rulesOut += 1
        }
    }
}

/// A slot written by exactly one concurrent iteration and read after all of them finished.
private final class Box<Value>: @unchecked Sendable {
    var value: Value?
}
