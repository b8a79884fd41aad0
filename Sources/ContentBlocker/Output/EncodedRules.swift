import Crypto

/// Rules already written as JSON, one after the other, with where each ends: rule lists are
/// assembled by copying bytes, never by encoding the same rule twice.
///
/// Each rule is stored as a list writes it after another rule — `,` newline, then the rule's
/// JSON object exactly as ``WebKitRuleJSON`` writes it — so that a run of rules is one copy, and
/// a list assembled from these is byte-identical to one encoded from the rules.
public struct EncodedRules: Sendable, Hashable {
    /// `,\n{…}` for each rule, back to back (a slice: rules read from storage share its buffer).
    public private(set) var bytes: ArraySlice<UInt8> = []
    /// Where each rule ends, counted from the start of ``bytes``.
    public private(set) var ends: [Int] = []
    /// SHA-256 of ``bytes``: what an output identifier takes for a whole run of these rules, so
    /// that rules kept between builds are not hashed again.
    public private(set) var digest: [UInt8] = Array(SHA256.hash(data: [UInt8]()))

    /// The separator stored before every rule.
    static let separator: [UInt8] = [UInt8(ascii: ","), 0x0A]

    /// No rules.
    public init() {}

    /// `rules`, encoded.
    public init(_ rules: some Sequence<WebKitRule>) {
        var buffer: [UInt8] = []
        for rule in rules {
            buffer.append(contentsOf: Self.separator)
            WebKitRuleJSON.write(rule, into: &buffer)
            ends.append(buffer.count)
        }
        bytes = buffer[...]
        digest = Array(SHA256.hash(data: buffer))
    }

    /// `rules`, encoded in chunks on every core (the same bytes as ``init(_:)``).
    public init(encodingInParallel rules: ArraySlice<WebKitRule>) {
        let chunkSize = 4_096
        guard rules.count > chunkSize else {
            self.init(rules)
            return
        }
        let chunks = [EncodedRules].parallelMap(count: (rules.count + chunkSize - 1) / chunkSize, serialBelow: 2) { chunk in
            var part = EncodedRules()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(chunkSize * 128)
            for rule in rules[(rules.startIndex + chunk * chunkSize)..<(rules.startIndex + Swift.min(rules.count, (chunk + 1) * chunkSize))]
            {
                buffer.append(contentsOf: Self.separator)
                WebKitRuleJSON.write(rule, into: &buffer)
                part.ends.append(buffer.count)
            }
            part.bytes = buffer[...]
            return part
        }
        self.init()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunks.reduce(0) { $0 + $1.bytes.count })
        ends.reserveCapacity(rules.count)
        for chunk in chunks {
            let offset = buffer.count
            buffer.append(contentsOf: chunk.bytes)
            ends.append(contentsOf: chunk.ends.map { $0 + offset })
        }
        bytes = buffer[...]
        digest = Array(SHA256.hash(data: buffer))
    }

    /// Rules read back from storage with their digest; `nil` when the ends do not describe `bytes`.
    public init?(bytes: ArraySlice<UInt8>, ends: [Int], digest: [UInt8]) {
        var previous = 0
        for end in ends {
            // Every rule holds at least its separator and `{}`.
            guard end >= previous + 4, end <= bytes.count, bytes[bytes.startIndex + previous] == UInt8(ascii: ",") else { return nil }
            previous = end
        }
        guard previous == bytes.count, digest.count == 32 else { return nil }
        self.bytes = bytes
        self.ends = ends
        self.digest = digest
    }

    /// The digest of the rules in `range`: the stored one for all of them.
    func digest(of range: Range<Int>) -> [UInt8] {
        if range == 0..<count { return digest }
        let start = range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1]
        let end = range.isEmpty ? start : ends[range.upperBound - 1]
        return Array(SHA256.hash(data: bytes[(bytes.startIndex + start)..<(bytes.startIndex + end)]))
    }

    /// How many rules.
    public var count: Int { ends.count }

    /// Appends the rules of `range` to a list being written, as
    /// ``WebKitRuleJSON/write(_:into:)-([WebKitRule],_)`` separates them: the list's first rule
    /// after a newline, every other after `,` and a newline.
    func write(_ range: Range<Int>, into output: inout [UInt8], first: inout Bool) {
        guard !range.isEmpty else { return }
        var start = range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1]
        if first {
            output.append(0x0A)
            start += Self.separator.count
            first = false
        }
        let base = bytes.startIndex
        output.append(contentsOf: bytes[(base + start)..<(base + ends[range.upperBound - 1])])
    }
}
