/// Writes DNS wire format, compressing names (RFC 1035 §4.1.4): a name, or its longest suffix
/// already written, becomes a pointer to the earlier copy.
struct DNSWireWriter {
    private(set) var bytes: [UInt8]
    /// Name suffixes written uncompressed so far: their hash, where they start, and their
    /// wire bytes to confirm a hash match. Matching is exact, case included, so compression
    /// never changes the spelling of a name (resolvers that randomise case compare it).
    private var suffixes: [(hash: UInt64, offset: Int, wire: ArraySlice<UInt8>)] = []

    /// Pointers have 14 bits: names written beyond this offset cannot be pointed at.
    private static let pointerLimit = 0x4000
    /// Remembered suffixes are capped: beyond that, later names are simply written in full.
    private static let suffixLimit = 256

    init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func append(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }

    /// Overwrites a 16-bit value written earlier (a count or a length).
    mutating func set16(_ value: UInt16, at offset: Int) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    /// Cuts the output back to `count` bytes, forgetting names written after that point.
    mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
        suffixes.removeAll { $0.offset >= count }
    }

    /// Writes a name, as a pointer to an earlier copy of its longest possible suffix when
    /// `compress` is on; its own suffixes become targets for later names either way.
    mutating func name(_ name: DNSName, compress: Bool = true) {
        let wire = name.wire
        guard wire.count > 1 else {
            bytes.append(0)
            return
        }
        let exact = wire
        // Label starts, most specific first.
        var starts: [Int] = []
        var index = 0
        while exact[index] != 0 {
            starts.append(index)
            index += 1 + Int(exact[index])
        }
        var pointer: Int?
        var written = starts.count
        if compress {
            for (position, start) in starts.enumerated() {
                let suffix = exact[start...]
                let hash = Self.hash(suffix)
                if let match = suffixes.first(where: { $0.hash == hash && $0.wire == suffix }) {
                    pointer = match.offset
                    written = position
                    break
                }
            }
        }
        for position in 0..<written {
            let start = starts[position]
            let offset = bytes.count
            if offset < Self.pointerLimit && suffixes.count < Self.suffixLimit {
                let suffix = exact[start...]
                suffixes.append((Self.hash(suffix), offset, suffix))
            }
            let length = Int(wire[start])
            bytes.append(contentsOf: wire[start...(start + length)])
        }
        if let pointer {
            u16(0xC000 | UInt16(pointer))
        } else {
            bytes.append(0)
        }
    }

    @inline(__always)
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
