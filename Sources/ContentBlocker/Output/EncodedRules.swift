import Crypto
import Foundation

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
    /// SHA-256 of ``bytes``: what an output identifier takes for any run of these rules (with
    /// the run's bounds), so that rules kept between builds are not hashed again.
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
        self.init(count: rules.count) { index, buffer in
            WebKitRuleJSON.write(rules[rules.startIndex + index], into: &buffer)
        }
    }

    /// The rules blocking each of `hosts` (``CompiledRules/domainBlockingRule(for:)``), written
    /// from the host names: the same bytes as encoding those rules, at a fraction of the cost (no
    /// rule value, no `url-filter` string per host). Each rule's size follows from its host, so
    /// every core writes its share of the rules straight into place in one buffer.
    public init(blockingHosts hosts: [String]) {
        guard !hosts.isEmpty else {
            self.init()
            return
        }
        let template = HostBlockTemplate.shared
        let separator = Self.separator
        // Each rule's size; a host the template cannot spell (none that a list gives) is encoded
        // as a rule, and its size is that of its JSON.
        let sizes = [Int].parallelMap(count: hosts.count) { index in
            hosts[index].utf8.withContiguousStorageIfAvailable { template.size(of: $0) ?? -1 } ?? -1
        }
        var fallbacks: [Int: [UInt8]] = [:]
        var ends: [Int] = []
        ends.reserveCapacity(hosts.count)
        var total = 0
        for (index, size) in sizes.enumerated() {
            var ruleSize = size
            if size < 0 {
                var bytes: [UInt8] = []
                WebKitRuleJSON.write(CompiledRules.domainBlockingRule(for: hosts[index]), into: &bytes)
                fallbacks[index] = bytes
                ruleSize = bytes.count
            }
            total += separator.count + ruleSize
            ends.append(total)
        }
        let (starts, spelledAsRules) = (ends, fallbacks)
        let buffer = [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
            let base = UncheckedPointer(output.baseAddress!)
            forEachChunk(of: hosts.count) { range in
                for index in range {
                    var cursor = base.pointer + (index == 0 ? 0 : starts[index - 1])
                    for byte in separator {
                        cursor.initialize(to: byte)
                        cursor += 1
                    }
                    if sizes[index] < 0, let fallback = spelledAsRules[index] {
                        fallback.withUnsafeBufferPointer { cursor.initialize(from: $0.baseAddress!, count: $0.count) }
                    } else {
                        _ = hosts[index].utf8.withContiguousStorageIfAvailable { template.write(host: $0, to: cursor) }
                    }
                }
            }
            initialized = total
        }
        self.init()
        bytes = buffer[...]
        self.ends = ends
        digest = Array(SHA256.hash(data: buffer))
    }

    /// `count` rules, each written by `write` after its separator, in chunks on every core.
    private init(count: Int, write: @Sendable (Int, inout [UInt8]) -> Void) {
        let chunkSize = 4_096
        let chunks = [EncodedRules].parallelMap(count: (count + chunkSize - 1) / chunkSize, serialBelow: 2) { chunk in
            var part = EncodedRules()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(chunkSize * 160)
            let range = (chunk * chunkSize)..<Swift.min(count, (chunk + 1) * chunkSize)
            part.ends.reserveCapacity(range.count)
            for index in range {
                buffer.append(contentsOf: Self.separator)
                write(index, &buffer)
                part.ends.append(buffer.count)
            }
            part.bytes = buffer[...]
            return part
        }
        self.init()
        guard chunks.count > 1 else {
            if let only = chunks.first {
                bytes = only.bytes
                ends = only.ends
            }
            digest = Array(SHA256.hash(data: bytes))
            return
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunks.reduce(0) { $0 + $1.bytes.count })
        ends.reserveCapacity(count)
        for chunk in chunks {
            let offset = buffer.count
            buffer.append(contentsOf: chunk.bytes)
            ends.append(contentsOf: chunk.ends.lazy.map { $0 + offset })
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

    /// How many rules.
    public var count: Int { ends.count }

    /// The bytes of the rules of `range` as a list holds them after what it holds already: the
    /// list's first rule after a newline, every other after `,` and a newline (as
    /// ``WebKitRuleJSON/write(_:into:)-([WebKitRule],_)`` separates them); `nil` for no rules.
    func bytes(of range: Range<Int>, first: inout Bool) -> ArraySlice<UInt8>? {
        guard !range.isEmpty else { return nil }
        var start = range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1]
        if first {
            // `,\n{…}` without its comma is `\n{…}`.
            start += 1
            first = false
        }
        let base = bytes.startIndex
        return bytes[(base + start)..<(base + ends[range.upperBound - 1])]
    }
}

/// The JSON of a host's blocking rule around the host name, taken once from the rule the
/// general encoder writes for a sample host, so that the fast path cannot spell a rule otherwise.
struct HostBlockTemplate: Sendable {
    /// Everything before the host name.
    let head: [UInt8]
    /// How a `.` of the host name is spelled (an escaped dot, inside a JSON string).
    let dot: [UInt8]
    /// Everything after it.
    let tail: [UInt8]

    static let shared = HostBlockTemplate()

    private init() {
        let sample = Array("pepper-sample-host".utf8)
        var single: [UInt8] = []
        WebKitRuleJSON.write(CompiledRules.domainBlockingRule(for: String(decoding: sample, as: UTF8.self)), into: &single)
        var double: [UInt8] = []
        let dotted = String(decoding: sample + [UInt8(ascii: ".")] + sample, as: UTF8.self)
        WebKitRuleJSON.write(CompiledRules.domainBlockingRule(for: dotted), into: &double)
        let start = single.firstRange(of: sample)!
        head = Array(single[..<start.lowerBound])
        tail = Array(single[start.upperBound...])
        // The dotted rule is the same head and tail around `sample`, the dot's spelling, `sample`.
        dot = Array(double[(head.count + sample.count)..<(double.count - tail.count - sample.count)])
    }

    /// The size of the rule for `host`; `nil` when a byte of it is not one the template knows how
    /// to spell (lower-case letters, digits, `-`, `_` and `.`).
    func size(of host: UnsafeBufferPointer<UInt8>) -> Int? {
        var dots = 0
        for byte in host {
            switch byte {
            case UInt8(ascii: "."):
                dots += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default:
                return nil
            }
        }
        return head.count + host.count + dots * (dot.count - 1) + tail.count
    }

    /// Writes the rule for `host` (whose ``size(of:)`` is not `nil`) at `output`.
    func write(host: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) {
        var cursor = output
        func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard !bytes.isEmpty else { return }
            cursor.initialize(from: bytes.baseAddress!, count: bytes.count)
            cursor += bytes.count
        }
        head.withUnsafeBufferPointer(put)
        var start = host.startIndex
        for index in host.indices where host[index] == UInt8(ascii: ".") {
            put(UnsafeBufferPointer(rebasing: host[start..<index]))
            dot.withUnsafeBufferPointer(put)
            start = index + 1
        }
        put(UnsafeBufferPointer(rebasing: host[start...]))
        tail.withUnsafeBufferPointer(put)
    }
}
