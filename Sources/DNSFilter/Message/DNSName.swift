/// A domain name as DNS carries it: a sequence of labels of 1 to 63 bytes, at most 255 bytes on
/// the wire (RFC 1035 §2.3.4). Stored uncompressed, in wire format, with the case as received
/// (resolvers may randomise case, and a response echoes the question's spelling).
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    /// The wire form: each label preceded by its length, ending with the zero-length root label.
    public private(set) var wire: [UInt8]

    /// The longest name on the wire, terminating zero included.
    public static let maximumWireLength = 255
    /// The longest label.
    public static let maximumLabelLength = 63

    /// The root name (`.`).
    public static let root = DNSName(uncheckedWire: [0])

    /// A name from wire bytes already known to be valid (the decoder's output).
    init(uncheckedWire wire: [UInt8]) {
        self.wire = wire
    }

    /// Why a written name is not a valid DNS name.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// An empty label (`a..b`) or one longer than 63 bytes.
        case badLabel(String)
        /// More than 255 bytes on the wire.
        case tooLong(String)
        /// A `\` escape that is not `\X` or `\DDD` (DDD ≤ 255).
        case badEscape(String)

        public var description: String {
            switch self {
            case .badLabel(let name): return "'\(name.prefix(80))' has an empty label or one longer than 63 bytes"
            case .tooLong(let name): return "'\(name.prefix(80))…' is longer than 255 bytes"
            case .badEscape(let name): return "'\(name.prefix(80))' has a bad \\ escape"
            }
        }
    }

    /// A name from its presentation form (`www.example.com`, with or without the final dot;
    /// `\.` and `\DDD` escapes as in zone files).
    public init(_ text: String) throws(ParseError) {
        if text == "." || text.isEmpty {
            self = .root
            return
        }
        var wire: [UInt8] = []
        wire.reserveCapacity(text.utf8.count + 2)
        var label: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        if bytes.last == UInt8(ascii: ".") && !(bytes.count >= 2 && bytes[bytes.endIndex - 2] == UInt8(ascii: "\\")) {
            bytes = bytes.dropLast()
        }
        func finishLabel() throws(ParseError) {
            guard !label.isEmpty, label.count <= Self.maximumLabelLength else { throw .badLabel(text) }
            wire.append(UInt8(label.count))
            wire.append(contentsOf: label)
            label.removeAll(keepingCapacity: true)
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                try finishLabel()
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.endIndex else { throw .badEscape(text) }
                let next = bytes[index + 1]
                if next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") {
                    guard index + 3 < bytes.endIndex else { throw .badEscape(text) }
                    var value = 0
                    for offset in 1...3 {
                        let digit = bytes[index + offset]
                        guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { throw .badEscape(text) }
                        value = value * 10 + Int(digit - UInt8(ascii: "0"))
                    }
                    guard value <= 255 else { throw .badEscape(text) }
                    label.append(UInt8(value))
                    index += 4
                } else {
                    label.append(next)
                    index += 2
                }
                continue
            }
            label.append(byte)
            index += 1
        }
        try finishLabel()
        wire.append(0)
        guard wire.count <= Self.maximumWireLength else { throw .tooLong(text) }
        self.wire = wire
    }

    /// Whether this is the root name.
    public var isRoot: Bool { wire.count == 1 }

    /// The labels, most specific first.
    public var labels: [ArraySlice<UInt8>] {
        var labels: [ArraySlice<UInt8>] = []
        var index = 0
        while index < wire.count, wire[index] != 0 {
            let length = Int(wire[index])
            labels.append(wire[(index + 1)..<(index + 1 + length)])
            index += 1 + length
        }
        return labels
    }

    /// The name in lower case (ASCII letters only, as DNS compares names: RFC 4343).
    public func lowercased() -> DNSName {
        var copy = self
        copy.wire = DNSName.lowercasedWire(wire)
        return copy
    }

    /// Whether two names are equal as DNS compares them (ASCII case-insensitively).
    public func isEquivalent(to other: DNSName) -> Bool {
        guard wire.count == other.wire.count else { return false }
        for index in wire.indices where DNSName.lower(wire[index]) != DNSName.lower(other.wire[index]) { return false }
        return true
    }

    /// The name as the filter engine reads host names: lower-case, labels joined by dots,
    /// without the final dot (empty for the root). A label with a dot or an unusual byte inside
    /// reads as more labels here, which can only make a block more likely, never less.
    public var lowercasedHostBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(wire.count)
        var index = 0
        while index < wire.count, wire[index] != 0 {
            let length = Int(wire[index])
            if !bytes.isEmpty { bytes.append(UInt8(ascii: ".")) }
            for offset in 1...length { bytes.append(DNSName.lower(wire[index + offset])) }
            index += 1 + length
        }
        return bytes
    }

    /// The host name (`www.example.com`, no final dot), as ``lowercasedHostBytes`` in a String.
    public var lowercasedHost: String { String(decoding: lowercasedHostBytes, as: UTF8.self) }

    /// The presentation form with the final dot (`www.example.com.`), escaping dots inside
    /// labels, backslashes and bytes outside printable ASCII (`\DDD`).
    public var description: String {
        if isRoot { return "." }
        var text = ""
        for label in labels {
            for byte in label {
                switch byte {
                case UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: ";"), UInt8(ascii: "("),
                    UInt8(ascii: ")"), UInt8(ascii: "@"), UInt8(ascii: "$"):
                    text.append("\\")
                    text.append(Character(Unicode.Scalar(byte)))
                case 0x21...0x7E:
                    text.append(Character(Unicode.Scalar(byte)))
                default:
                    let digits = String(byte)
                    text.append("\\" + String(repeating: "0", count: 3 - digits.count) + digits)
                }
            }
            text.append(".")
        }
        return text
    }

    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Lower-cases the label bytes of a wire name (length bytes are at most 63, never letters).
    static func lowercasedWire(_ wire: [UInt8]) -> [UInt8] {
        var copy = wire
        var index = 0
        while index < copy.count, copy[index] != 0 {
            let length = Int(copy[index])
            for offset in 1...length { copy[index + offset] = lower(copy[index + offset]) }
            index += 1 + length
        }
        return copy
    }
}
