import Foundation

/// Writes JSON straight into bytes. The `data` and `active-strikes` bodies are assembled from
/// fragments rendered once per content revision, so only numbers that depend on the request
/// (distances, the centre) are written per request; `JSONEncoder` would redo everything.
struct JSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// `"key":` — keys are ASCII literals that need no escaping.
    mutating func key(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x00..<0x20:
                raw("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string, or `null`.
    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    mutating func integer(_ value: Int) {
        // Small strings live inline: no allocation for numbers of up to 15 digits.
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A finite number in its shortest round-tripping form (Swift's `description`).
    mutating func number(_ value: Double) {
        guard value.isFinite else {
            raw("null")
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int(value))
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
