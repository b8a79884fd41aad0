/// Why bytes are not a DNS message. The server answers FORMERR when it can read the header,
/// and drops the packet otherwise.
public enum DNSDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message ends in the middle of a field.
    case truncated
    /// A label length byte with the reserved top bits `01` or `10` (RFC 6891 §5 retired them).
    case unsupportedLabelType
    /// A compression pointer that does not point strictly before every earlier one of the same
    /// name (a loop, or a forward pointer).
    case badPointer
    /// A name longer than 255 bytes on the wire.
    case nameTooLong
    /// A record's data does not have the layout its type requires.
    case badRecordData(DNSRecordType)
    /// A second OPT record, or one outside the additional section or not owned by the root.
    case badOPT

    public var description: String {
        switch self {
        case .truncated: return "message truncated"
        case .unsupportedLabelType: return "unsupported label type"
        case .badPointer: return "compression pointer loops or points forward"
        case .nameTooLong: return "name longer than 255 bytes"
        case .badRecordData(let type): return "malformed \(type) record data"
        case .badOPT: return "misplaced or repeated OPT record"
        }
    }
}

/// Reads DNS wire format from a buffer, checking every bound. Names may be compressed
/// (RFC 1035 §4.1.4): a pointer must point strictly before the previous jump of the same name,
/// so following pointers always terminates; labels are at most 63 bytes and names 255.
struct DNSWireReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    @inline(__always)
    mutating func u8() throws(DNSDecodingError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    @inline(__always)
    mutating func u16() throws(DNSDecodingError) -> UInt16 {
        guard position + 2 <= bytes.count else { throw .truncated }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    @inline(__always)
    mutating func u32() throws(DNSDecodingError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw .truncated }
        defer { position += 4 }
        return UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16 | UInt32(bytes[position + 2]) << 8
            | UInt32(bytes[position + 3])
    }

    mutating func bytes(_ count: Int) throws(DNSDecodingError) -> [UInt8] {
        guard count >= 0, position + count <= bytes.count else { throw .truncated }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    mutating func skip(_ count: Int) throws(DNSDecodingError) {
        guard count >= 0, position + count <= bytes.count else { throw .truncated }
        position += count
    }

    /// Reads a possibly compressed name and returns it uncompressed; the position moves past the
    /// name's bytes at this place (past the first pointer, if any).
    mutating func name() throws(DNSDecodingError) -> DNSName {
        var wire: [UInt8] = []
        wire.reserveCapacity(32)
        try name(into: &wire)
        return DNSName(uncheckedWire: wire)
    }

    /// Appends an uncompressed name to `wire`.
    mutating func name(into wire: inout [UInt8]) throws(DNSDecodingError) {
        try walkName { wire.append(contentsOf: $0) }
    }

    /// Skips a name (validating it like ``name()``, without copying it).
    mutating func skipName() throws(DNSDecodingError) {
        try walkName { _ in }
    }

    /// Follows a possibly compressed name, checking every bound, and hands each label (with
    /// its length byte, the final empty one included) to `label`; the position moves past the
    /// name's bytes at this place (past the first pointer, if any).
    @inline(__always)
    private mutating func walkName(_ label: (UnsafeRawBufferPointer.SubSequence) -> Void) throws(DNSDecodingError) {
        var cursor = position
        var jumped = false
        // Every pointer must land strictly before this bound, which moves back with each jump.
        var bound = position
        var length = 0
        while true {
            guard cursor < bytes.count else { throw .truncated }
            let byte = bytes[cursor]
            switch byte & 0xC0 {
            case 0x00:
                let labelLength = Int(byte)
                guard cursor + 1 + labelLength <= bytes.count else { throw .truncated }
                length += 1 + labelLength
                guard length <= DNSName.maximumWireLength else { throw .nameTooLong }
                label(bytes[cursor..<(cursor + 1 + labelLength)])
                cursor += 1 + labelLength
                if labelLength == 0 {
                    if !jumped { position = cursor }
                    return
                }
            case 0xC0:
                guard cursor + 1 < bytes.count else { throw .truncated }
                let target = Int(byte & 0x3F) << 8 | Int(bytes[cursor + 1])
                guard target < bound else { throw .badPointer }
                if !jumped {
                    position = cursor + 2
                    jumped = true
                }
                bound = target
                cursor = target
            default:
                throw .unsupportedLabelType
            }
        }
    }
}
