import FilterLists
import Foundation

extension EncodedCompiledRules {
    /// Why stored rules cannot be read back (a file from another version, or cut short).
    public struct StorageError: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The format's tag: a file of another format is not read.
    static let storageMagic = Array("PEPPER-ENCODED-RULES-2\n".utf8)

    /// The rules and counts as bytes: the parts (rule ends, then bytes), then the reports as JSON.
    public func serialized() -> [UInt8] {
        serializedPieces().reduce(into: []) { $0.append(contentsOf: $1) }
    }

    /// ``serialized()`` as pieces to write one after the other: the rules' bytes are not copied.
    public func serializedPieces() -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var output = Self.storageMagic
        func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
        }
        let stored = RuleListLayout.Part.allCases.filter { (parts[$0]?.count ?? 0) > 0 }
        integer(UInt32(stored.count))
        for part in stored {
            let rules = parts[part]!
            integer(UInt8(part.rawValue))
            integer(UInt32(rules.count))
            output.reserveCapacity(output.count + rules.count * 4 + 32)
            for end in rules.ends { integer(UInt32(end)) }
            output.append(contentsOf: rules.digest)
            pieces += [output[...], rules.bytes]
            output = []
        }
        let reports = self.reports.map { StoredReport(name: $0.name, rulesIn: $0.rulesIn, rulesOut: $0.rulesOut, skipped: $0.skipped) }
        let json = (try? JSONEncoder().encode(reports)) ?? Data("[]".utf8)
        integer(UInt32(json.count))
        output.append(contentsOf: json)
        pieces.append(output[...])
        return pieces
    }

    /// Reads rules stored by ``serialized()``; the rules share `bytes`' buffer (nothing is copied).
    public init(serialized bytes: ArraySlice<UInt8>) throws(StorageError) {
        var position = bytes.startIndex
        func take(_ count: Int) throws(StorageError) -> ArraySlice<UInt8> {
            guard count >= 0, position + count <= bytes.endIndex else { throw StorageError(description: "the stored rules are cut short") }
            defer { position += count }
            return bytes[position..<(position + count)]
        }
        func integer<T: FixedWidthInteger>(_: T.Type) throws(StorageError) -> T {
            let raw = try take(MemoryLayout<T>.size)
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: raw) }
            return T(littleEndian: value)
        }
        guard Array(try take(Self.storageMagic.count)) == Self.storageMagic else {
            throw StorageError(description: "not stored rules of this version")
        }
        var parts: [RuleListLayout.Part: EncodedRules] = [:]
        for _ in 0..<(try integer(UInt32.self)) {
            guard let part = RuleListLayout.Part(rawValue: Int(try integer(UInt8.self))), parts[part] == nil else {
                throw StorageError(description: "an unknown or repeated part")
            }
            let count = Int(try integer(UInt32.self))
            let endBytes = try take(count * 4)
            let ends = endBytes.withUnsafeBytes { raw in
                (0..<count).map { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
            let digest = Array(try take(32))
            guard let rules = EncodedRules(bytes: try take(ends.last ?? 0), ends: ends, digest: digest) else {
                throw StorageError(description: "the rules of a part do not match their ends")
            }
            parts[part] = rules
        }
        let json = try take(Int(try integer(UInt32.self)))
        guard position == bytes.endIndex, let reports = try? JSONDecoder().decode([StoredReport].self, from: Data(json)) else {
            throw StorageError(description: "the stored counts cannot be read")
        }
        self.init(parts: parts, reports: reports.map(\.report))
    }
}

/// A ``SourceReport`` as stored beside the rules.
private struct StoredReport: Codable {
    var name: String
    var rulesIn: Int
    var rulesOut: Int
    var skipped: [String: Int]

    init(name: String, rulesIn: Int, rulesOut: Int, skipped: [SkipReason: Int]) {
        self.name = name
        self.rulesIn = rulesIn
        self.rulesOut = rulesOut
        self.skipped = Dictionary(uniqueKeysWithValues: skipped.map { ($0.key.rawValue, $0.value) })
    }

    var report: SourceReport {
        SourceReport(
            name: name, rulesIn: rulesIn, rulesOut: rulesOut,
            skipped: Dictionary(uniqueKeysWithValues: skipped.map { (SkipReason($0.key), $0.value) }))
    }
}
