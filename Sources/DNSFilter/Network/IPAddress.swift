import Foundation

/// An IPv4 or IPv6 address. IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`, how a dual-stack
/// socket reports IPv4 clients) are IPv4 addresses here, so one CIDR block covers both spellings.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as 128 bits (IPv4 as its IPv4-mapped IPv6 form), high half.
    public let high: UInt64
    /// Low half.
    public let low: UInt64
    /// Whether this is an IPv4 address.
    public let isIPv4: Bool

    private static let mappedPrefix: UInt64 = 0x0000_FFFF

    /// An IPv4 address from its four bytes.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.init(ipv4: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d))
    }

    /// An IPv4 address from its 32 bits in host order.
    public init(ipv4 value: UInt32) {
        high = 0
        low = Self.mappedPrefix << 32 | UInt64(value)
        isIPv4 = true
    }

    /// An IPv6 address from its two 64-bit halves (host order); IPv4-mapped ones become IPv4.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        isIPv4 = high == 0 && low >> 32 == Self.mappedPrefix
    }

    /// An IPv6 address from 16 bytes in network order (a shorter array reads as `::`).
    public init(ipv6Bytes bytes: [UInt8]) {
        guard bytes.count == 16 else {
            self.init(high: 0, low: 0)
            return
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        self.init(high: high, low: low)
    }

    /// Parses `192.0.2.1` or `2001:db8::1` (no zone, no brackets).
    public init?(_ text: String) {
        if text.contains(":") {
            var storage = in6_addr()
            guard inet_pton(AF_INET6, text, &storage) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            self.init(ipv6Bytes: bytes)
        } else {
            var storage = in_addr()
            guard inet_pton(AF_INET, text, &storage) == 1 else { return nil }
            self.init(ipv4: UInt32(bigEndian: storage.s_addr))
        }
    }

    /// The IPv4 value, for IPv4 addresses.
    public var ipv4Value: UInt32? { isIPv4 ? UInt32(truncatingIfNeeded: low) : nil }

    /// The four bytes of an IPv4 address, network order.
    public var ipv4Bytes: [UInt8]? {
        guard let value = ipv4Value else { return nil }
        return [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    /// The 16 bytes of the address (IPv4 as IPv4-mapped), network order.
    public var ipv6Bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool {
        if let value = ipv4Value { return value >> 24 == 127 }
        return high == 0 && low == 1
    }

    /// `0.0.0.0` or `::` (listen on every address).
    public var isUnspecified: Bool { isIPv4 ? ipv4Value == 0 : (high == 0 && low == 0) }

    public var description: String {
        if let bytes = ipv4Bytes { return bytes.map(String.init).joined(separator: ".") }
        var storage = in6_addr()
        withUnsafeMutableBytes(of: &storage) { raw in
            for (index, byte) in ipv6Bytes.enumerated() { raw[index] = byte }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &storage, &text, socklen_t(text.count)) != nil else { return "::" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A block of addresses, `192.168.1.0/24` or `fd00::/8` (an address alone is a block of one).
public struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block.
    public let network: IPAddress
    /// The prefix length (0–32 for IPv4, 0–128 for IPv6).
    public let prefixLength: Int

    /// Why text is not a CIDR block.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The part before `/` is not an IP address.
        case badAddress(String)
        /// The prefix is not a number within the address family's range.
        case badPrefix(String)

        public var description: String {
            switch self {
            case .badAddress(let text):
                return "'\(text)' is not a CIDR block: the address is not IPv4 or IPv6 (e.g. 192.168.1.0/24, fd00::/8)"
            case .badPrefix(let text): return "'\(text)' is not a CIDR block: the prefix length must be 0–32 for IPv4, 0–128 for IPv6"
            }
        }
    }

    /// Parses `ADDRESS/PREFIX` or `ADDRESS`. Host bits after the prefix are cleared
    /// (`192.168.1.7/24` is `192.168.1.0/24`).
    public init(_ text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { throw .badAddress(text) }
        let maximum = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var prefix = maximum
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 0, value <= maximum, parts[1].allSatisfy(\.isASCII) else { throw .badPrefix(text) }
            prefix = value
        }
        // `::ffff:10.0.0.0/104` is an IPv4 block written in IPv6.
        if address.isIPv4 && maximum == 128 {
            guard prefix >= 96 else { throw .badPrefix(text) }
            prefix -= 96
        }
        self.init(network: address, prefixLength: prefix)
    }

    /// A block from its first address and prefix length (host bits are cleared).
    public init(network: IPAddress, prefixLength: Int) {
        let bits = network.isIPv4 ? min(max(prefixLength, 0), 32) + 96 : min(max(prefixLength, 0), 128)
        let (highMask, lowMask) = Self.masks(bits)
        let high = network.high & highMask
        let low = network.low & lowMask
        self.network = network.isIPv4 ? IPAddress(ipv4: UInt32(truncatingIfNeeded: low)) : IPAddress(high: high, low: low)
        self.prefixLength = network.isIPv4 ? bits - 96 : bits
    }

    /// Whether the block holds `address` (IPv4 blocks hold IPv4 addresses only, and the reverse).
    public func contains(_ address: IPAddress) -> Bool {
        guard address.isIPv4 == network.isIPv4 else { return false }
        let (highMask, lowMask) = Self.masks(network.isIPv4 ? prefixLength + 96 : prefixLength)
        return address.high & highMask == network.high && address.low & lowMask == network.low
    }

    private static func masks(_ bits: Int) -> (UInt64, UInt64) {
        let high: UInt64 = bits >= 64 ? .max : (bits == 0 ? 0 : ~(UInt64.max >> UInt64(bits)))
        let low: UInt64 = bits <= 64 ? 0 : (bits >= 128 ? .max : ~(UInt64.max >> UInt64(bits - 64)))
        return (high, low)
    }

    public var description: String { "\(network)/\(prefixLength)" }
}

/// Which clients may use the server: loopback always, other addresses only inside the allowed
/// blocks (`--allow-clients`). An open resolver on the internet is abused for amplification.
public struct ClientAccess: Sendable, Hashable {
    /// The blocks allowed besides loopback.
    public var allowed: [CIDRBlock]

    /// Access for loopback plus `allowed`.
    public init(allowed: [CIDRBlock] = []) {
        self.allowed = allowed
    }

    /// Whether `client` may be answered.
    public func permits(_ client: IPAddress) -> Bool {
        if client.isLoopback { return true }
        for block in allowed where block.contains(client) { return true }
        return false
    }
}

extension IPAddress {
    /// `host` as written before `:PORT` or in a URL's authority: an IPv6 address in brackets
    /// (`[::1]`, RFC 3986 §3.2.2), a name or an IPv4 address as it is. The one place every face
    /// (the DNS upstreams, the servers' "listening on" lines, the console's Host check) writes it.
    public static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
