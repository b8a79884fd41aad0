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
    /// holds most of the rules, and is written from its host names).
    public init(_ compiled: CompiledRules) {
        self.init(parts: Self.encode(compiled, parts: RuleListLayout.Part.allCases), reports: compiled.reports)
    }

    /// The given parts of `compiled`, encoded.
    static func encode(_ compiled: CompiledRules, parts: [RuleListLayout.Part]) -> [RuleListLayout.Part: EncodedRules] {
        Dictionary(
            uniqueKeysWithValues: parts.map { part in
                let rules =
                    part == .domainBlocking
                    ? compiled.encodedBlockedHosts ?? EncodedRules(blockingHosts: compiled.blockedHosts)
                    : EncodedRules(encodingInParallel: compiled.rules(of: part))
                return (part, rules)
            })
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

    /// One rule list, as the runs of encoded rules it is made of: written to a file without
    /// first being copied into one buffer.
    public struct AssembledList: Sendable {
        /// Its JSON, piece after piece (slices of the encoded rules, and the brackets).
        public var pieces: [ArraySlice<UInt8>]
        /// How many rules it holds.
        public var rules: Int
        /// SHA-256 over its runs of rules (each run's part and range, and the digest of that
        /// part's rules): it determines the JSON, and hashes no rule again.
        public var contentDigest: [UInt8]
    }

    /// The lists of at most `maximumRules` rules, assembled.
    public func ruleLists(maximumRules: Int) throws(CompileError) -> [AssembledList] {
        let layout = try RuleListLayout.lists(counts: parts.mapValues(\.count), maximumRules: maximumRules)
        return layout.map { list in
            var pieces: [ArraySlice<UInt8>] = [[UInt8(ascii: "[")]]
            var first = true
            var hasher = SHA256()
            for segment in list {
                guard let rules = parts[segment.part] else { continue }
                if let piece = rules.bytes(of: segment.range, first: &first) { pieces.append(piece) }
                var header: [UInt8] = []
                for value in [segment.part.rawValue, segment.range.lowerBound, segment.range.upperBound] {
                    withUnsafeBytes(of: UInt64(value).littleEndian) { header.append(contentsOf: $0) }
                }
                hasher.update(data: header)
                // The part's digest and the run's bounds determine the run's bytes.
                hasher.update(data: rules.digest)
            }
            pieces.append([0x0A, UInt8(ascii: "]"), 0x0A])
            return AssembledList(pieces: pieces, rules: list.reduce(0) { $0 + $1.range.count }, contentDigest: Array(hasher.finalize()))
        }
    }
}
