import Crypto
import Foundation

/// Compiled rules with every rule already encoded as JSON (``EncodedRules`` per part of
/// ``RuleListLayout``), and the per-source counts: what the incremental compile keeps between
/// builds. Laying these out and assembling the lists copies bytes only, so a build whose lists
/// did not change (an allowlist change) costs a copy of the JSON, not a conversion.
public struct EncodedCompiledRules: Sendable, Hashable {
    /// The rules of each part that has any.
    public private(set) var parts: [RuleListLayout.Part: EncodedRules]
    /// Per-source counts.
    public var reports: [SourceReport]

    /// `compiled`, encoded (each part in chunks on every core: one part, the domain rules,
    /// holds most of the rules).
    public init(_ compiled: CompiledRules) {
        let all = RuleListLayout.Part.allCases
        let encoded = all.map { EncodedRules(encodingInParallel: compiled.rules(of: $0)) }
        parts = Dictionary(uniqueKeysWithValues: zip(all, encoded).filter { $0.1.count > 0 })
        reports = compiled.reports
    }

    /// Parts read back from storage.
    public init(parts: [RuleListLayout.Part: EncodedRules], reports: [SourceReport]) {
        self.parts = parts.filter { $0.value.count > 0 }
        self.reports = reports
    }

    /// The same rules with the user's allowlist (normalised domains) in place of the one they have.
    public func withAllowlist(_ domains: [String]) -> EncodedCompiledRules {
        var copy = self
        let rules = EncodedRules(ContentRuleCompiler.allowlistRules(for: domains))
        copy.parts[.allowlist] = rules.count > 0 ? rules : nil
        return copy
    }

    /// One assembled rule list.
    public struct AssembledList: Sendable {
        /// Its JSON.
        public var json: [UInt8]
        /// How many rules it holds.
        public var rules: Int
        /// SHA-256 over its runs of rules (each run's part, range and digest): it determines the
        /// JSON, and costs nothing for the runs kept from an earlier build.
        public var contentDigest: [UInt8]
    }

    /// The lists of at most `maximumRules` rules, assembled.
    public func ruleLists(maximumRules: Int) throws(CompileError) -> [AssembledList] {
        let layout = try RuleListLayout.lists(counts: parts.mapValues(\.count), maximumRules: maximumRules)
        let parts = self.parts
        let assembled = Slots<AssembledList>(count: layout.count)
        // Each list is assembled on its own core.
        DispatchQueue.concurrentPerform(iterations: layout.count) { index in
            let list = layout[index]
            var output: [UInt8] = []
            output.reserveCapacity(list.reduce(0) { total, segment in total + (parts[segment.part]?.bytes.count ?? 0) } + 8)
            output.append(UInt8(ascii: "["))
            var first = true
            var hasher = SHA256()
            for segment in list {
                guard let rules = parts[segment.part] else { continue }
                rules.write(segment.range, into: &output, first: &first)
                var header: [UInt8] = []
                for value in [segment.part.rawValue, segment.range.lowerBound, segment.range.upperBound] {
                    withUnsafeBytes(of: UInt64(value).littleEndian) { header.append(contentsOf: $0) }
                }
                hasher.update(data: header)
                hasher.update(data: rules.digest(of: segment.range))
            }
            output.append(contentsOf: [0x0A, UInt8(ascii: "]"), 0x0A])
            assembled.set(
                index, AssembledList(json: output, rules: list.reduce(0) { $0 + $1.range.count }, contentDigest: Array(hasher.finalize())))
        }
        return assembled.values
    }
}

/// Slots written by concurrent iterations, each by one, read after all of them finished.
final class Slots<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value?]

    init(count: Int) {
        storage = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: Value) {
        lock.withLock { storage[index] = value }
    }

    var values: [Value] { lock.withLock { storage.map { $0! } } }
}
