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
        // Request rules and hiding rules are independent: convert them on two cores.
        let network = Box<(CompiledRules, CompilationState)>()
        let cosmetic = Box<(CompiledRules, CompilationState)>()
        let selectorsPerRule = options.selectorsPerRule
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            var state = CompilationState(lists: lists, countingParserSkips: part == 0)
            var compiled = CompiledRules()
            if part == 0 {
                NetworkRuleConverter.convert(lists, into: &compiled, state: &state)
                network.value = (compiled, state)
            } else {
                CosmeticRuleConverter(selectorsPerRule: selectorsPerRule).convert(lists, into: &compiled, state: &state)
                cosmetic.value = (compiled, state)
            }
        }
        var (compiled, state) = network.value!
        let (hiding, hidingState) = cosmetic.value!
        compiled.genericHiding = hiding.genericHiding
        compiled.specificHiding = hiding.specificHiding
        state.merge(hidingState)
        compiled.allowlist = Self.allowlistRules(for: allowlist)
        compiled.reports = state.reports
        return compiled
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
