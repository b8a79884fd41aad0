import Foundation

/// Host-name normalisation shared by every part of Pepper: lower-case ASCII, IDN labels in
/// punycode (`bücher.example` → `xn--bcher-kva.example`), no trailing dot.
public enum DomainName {
    /// Why a string is not a usable host name.
    public enum Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        /// Empty after trimming.
        case empty
        /// A URL was given where a bare host name belongs.
        case isURL(String)
        /// Wildcards such as `*` or `*.example.com`.
        case wildcard(String)
        /// A host with a port (`example.com:8080`, `10.0.0.1:80`).
        case hasPort(String)
        /// A character that cannot appear in a host name.
        case invalidCharacter(String)
        /// A label that is empty, longer than 63 bytes, or starts/ends with `-`.
        case invalidLabel(String)
        /// Longer than 253 bytes.
        case tooLong(String)
        /// A label that cannot be converted to punycode.
        case invalidIDN(String)

        public var description: String {
            switch self {
            case .empty: return "empty domain"
            case .isURL(let s): return "'\(s)' is a URL; give the bare domain name (e.g. example.com)"
            case .wildcard(let s): return "'\(s)' has a wildcard; a domain already covers its subdomains"
            case .hasPort(let s): return "'\(s)' has a port; give the host name only"
            case .invalidCharacter(let s): return "'\(s)' has characters that cannot appear in a domain name"
            case .invalidLabel(let s): return "'\(s)' has an empty, over-long or badly hyphenated label"
            case .tooLong(let s): return "'\(s)' is longer than 253 characters"
            case .invalidIDN(let s): return "'\(s)' cannot be converted to punycode"
            }
        }
    }

    /// Whether `byte` can appear in a normalised host name (`[a-z0-9._-]`).
    @inline(__always)
    public static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Normalises a host name typed by a person or read from a list.
    ///
    /// Accepts IDN (converted to punycode) and IPv4 addresses; rejects URLs, ports, wildcards
    /// and anything else with a descriptive error.
    public static func normalize(_ input: some StringProtocol) throws(Error) -> String {
        if let host = validatedASCIIHost(input) { return host }
        var host = input.trimmingCharacters(in: .whitespaces)
        guard !host.isEmpty else { throw .empty }
        if host.contains("://") || host.contains("/") { throw .isURL(host) }
        if host.contains("*") { throw .wildcard(host) }
        if host.hasSuffix(".") { host.removeLast() }
        if let colon = host.lastIndex(of: ":") {
            let port = host[host.index(after: colon)...]
            if !port.isEmpty && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) { throw .hasPort(host) }
            throw .invalidCharacter(host)
        }
        if host.utf8.allSatisfy({ $0 < 0x80 }) {
            host = asciiLowercased(host)
        } else {
            host = try idnToASCII(host)
        }
        guard host.utf8.count <= 253 else { throw .tooLong(host) }
        guard host.utf8.allSatisfy(isHostByte) else { throw .invalidCharacter(host) }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-" else {
                throw .invalidLabel(host)
            }
        }
        return host
    }

    /// The input itself when it is already a normalised host name (the common case, checked
    /// without Foundation), else `nil`.
    private static func validatedASCIIHost(_ input: some StringProtocol) -> String? {
        var labelLength = 0
        var previous: UInt8 = UInt8(ascii: ".")
        var count = 0
        for byte in input.utf8 {
            guard isHostByte(byte) else { return nil }
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
                labelLength = 0
            } else {
                if labelLength == 0 && byte == UInt8(ascii: "-") { return nil }
                labelLength += 1
                guard labelLength <= 63 else { return nil }
            }
            previous = byte
            count += 1
        }
        guard count > 0, count <= 253, labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
        return String(input)
    }

    /// Converts a host with non-ASCII labels to its ASCII (punycode) form.
    public static func idnToASCII(_ host: String) throws(Error) -> String {
        // IDNA maps full-width and ideographic dots to '.', and compares case-insensitively.
        let mapped = host.precomposedStringWithCompatibilityMapping.lowercased()
            .replacingOccurrences(of: "\u{3002}", with: ".")
            .replacingOccurrences(of: "\u{FF0E}", with: ".")
            .replacingOccurrences(of: "\u{FF61}", with: ".")
        var labels: [String] = []
        for label in mapped.split(separator: ".", omittingEmptySubsequences: false) {
            if label.utf8.allSatisfy({ $0 < 0x80 }) {
                labels.append(String(label))
            } else {
                do {
                    labels.append("xn--" + (try Punycode.encode(String(label))))
                } catch {
                    throw .invalidIDN(host)
                }
            }
        }
        return labels.joined(separator: ".")
    }

    /// Converts punycode labels back to Unicode for display (`xn--bcher-kva.example` → `bücher.example`).
    public static func toUnicode(_ host: String) -> String {
        host.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.hasPrefix("xn--"), let decoded = try? Punycode.decode(String(label.dropFirst(4))) else {
                return String(label)
            }
            return decoded
        }.joined(separator: ".")
    }

    /// Lower-cases ASCII letters only (host names are compared byte-wise).
    public static func asciiLowercased(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return s }
        return String(decoding: s.utf8.map { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether `host` is a dotted-quad IPv4 address.
    public static func isIPv4Address(_ host: some StringProtocol) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part)! <= 255
            }
    }
}
