/// The IP version of a packet.
public enum IPVersion: UInt8, Sendable, Hashable {
    /// IPv4 (RFC 791).
    case v4 = 4
    /// IPv6 (RFC 8200).
    case v6 = 6
}

/// A UDP datagram (RFC 768) in an IPv4 or IPv6 packet, as a tunnel interface hands packets over
/// (an iOS packet tunnel's flow, a Linux TUN device): what a DNS filter inside a tunnel reads
/// queries from and writes answers into.
///
/// Decoding checks every length and both checksums and throws ``PacketDecodingError`` for
/// anything else (another transport, a fragment, a damaged header); it never traps. Encoding
/// always computes the checksums, the UDP one included (optional over IPv4, but cheap).
public struct UDPPacket: Sendable, Hashable {
    /// IPv4 or IPv6.
    public var version: IPVersion
    /// Where it comes from.
    public var source: IPAddress
    /// Where it goes.
    public var destination: IPAddress
    /// The source port.
    public var sourcePort: UInt16
    /// The destination port.
    public var destinationPort: UInt16
    /// The datagram's payload (a DNS message, for port 53).
    public var payload: [UInt8]
    /// The IPv4 TTL or IPv6 hop limit written when encoding.
    public var hopLimit: UInt8

    /// The UDP protocol number (IPv4 protocol, IPv6 next header).
    public static let protocolNumber: UInt8 = 17
    /// Bytes of a UDP header.
    static let udpHeaderSize = 8

    /// A packet with the given fields; the addresses must be of `version`'s family.
    public init(
        version: IPVersion, source: IPAddress, destination: IPAddress, sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8],
        hopLimit: UInt8 = 64
    ) {
        self.version = version
        self.source = source
        self.destination = destination
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.payload = payload
        self.hopLimit = hopLimit
    }

    /// The answer to this packet: the same version, the endpoints swapped, `payload` inside.
    public func reply(with payload: [UInt8]) -> UDPPacket {
        UDPPacket(
            version: version, source: destination, destination: source, sourcePort: destinationPort, destinationPort: sourcePort,
            payload: payload, hopLimit: 64)
    }

    // MARK: Decoding

    /// Decodes an IPv4 or IPv6 packet carrying UDP.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        guard let first = bytes.first else { throw .truncated }
        switch first >> 4 {
        case 4: self = try Self.decodeIPv4(bytes)
        case 6: self = try Self.decodeIPv6(bytes)
        default: throw .unsupportedVersion(first >> 4)
        }
    }

    private static func decodeIPv4(_ bytes: [UInt8]) throws(PacketDecodingError) -> UDPPacket {
        guard bytes.count >= 20 else { throw .truncated }
        let headerLength = Int(bytes[0] & 0x0F) * 4
        let totalLength = Int(read16(bytes, 2))
        guard headerLength >= 20, totalLength >= headerLength, totalLength <= bytes.count else { throw .badLength }
        guard checksum(bytes[0..<headerLength]) == 0 else { throw .badHeaderChecksum }
        let flagsAndOffset = read16(bytes, 6)
        // More-fragments set, or a non-zero offset: a piece of a datagram, not one.
        guard flagsAndOffset & 0x2000 == 0, flagsAndOffset & 0x1FFF == 0 else { throw .fragmented }
        guard bytes[9] == protocolNumber else { throw .notUDP(protocolNumber: bytes[9]) }
        let source = IPAddress(ipv4: read32(bytes, 12))
        let destination = IPAddress(ipv4: read32(bytes, 16))
        let udp = Array(bytes[headerLength..<totalLength])
        let pseudoHeader = Array(bytes[12..<20]) + [0, protocolNumber] + be16(UInt16(truncatingIfNeeded: udp.count))
        return try decodeUDP(udp, version: .v4, source: source, destination: destination, pseudoHeader: pseudoHeader, hopLimit: bytes[8])
    }

    private static func decodeIPv6(_ bytes: [UInt8]) throws(PacketDecodingError) -> UDPPacket {
        guard bytes.count >= 40 else { throw .truncated }
        let payloadLength = Int(read16(bytes, 4))
        guard 40 + payloadLength <= bytes.count else { throw .badLength }
        let end = 40 + payloadLength
        var nextHeader = bytes[6]
        var offset = 40
        // Hop-by-hop, routing and destination options may come before UDP; a fragment header
        // means a piece of a datagram.
        while nextHeader != protocolNumber {
            switch nextHeader {
            case 0, 43, 60:
                guard offset + 8 <= end else { throw .truncated }
                let length = (Int(bytes[offset + 1]) + 1) * 8
                guard offset + length <= end else { throw .truncated }
                nextHeader = bytes[offset]
                offset += length
            case 44:
                throw .fragmented
            default:
                throw .notUDP(protocolNumber: nextHeader)
            }
        }
        let source = IPAddress(ipv6Bytes: Array(bytes[8..<24]))
        let destination = IPAddress(ipv6Bytes: Array(bytes[24..<40]))
        let udp = Array(bytes[offset..<end])
        let pseudoHeader =
            Array(bytes[8..<40]) + be32(UInt32(truncatingIfNeeded: udp.count)) + [0, 0, 0, protocolNumber]
        return try decodeUDP(udp, version: .v6, source: source, destination: destination, pseudoHeader: pseudoHeader, hopLimit: bytes[7])
    }

    private static func decodeUDP(
        _ udp: [UInt8], version: IPVersion, source: IPAddress, destination: IPAddress, pseudoHeader: [UInt8], hopLimit: UInt8
    ) throws(PacketDecodingError) -> UDPPacket {
        guard udp.count >= udpHeaderSize else { throw .truncated }
        let length = Int(read16(udp, 4))
        // The UDP length must cover its header and agree with what the IP layer carried.
        guard length >= udpHeaderSize, length == udp.count else { throw .badLength }
        let stored = read16(udp, 6)
        if stored == 0 {
            // No checksum: allowed over IPv4 only (RFC 8200 §8.1).
            guard version == .v4 else { throw .badUDPChecksum }
        } else {
            guard checksum(pseudoHeader + udp) == 0 else { throw .badUDPChecksum }
        }
        return UDPPacket(
            version: version, source: source, destination: destination, sourcePort: read16(udp, 0), destinationPort: read16(udp, 2),
            payload: Array(udp[udpHeaderSize...]), hopLimit: hopLimit)
    }

    // MARK: Encoding

    /// The packet's bytes: an IP header (no options, not fragmented) and the UDP datagram with
    /// its checksum.
    public func encoded() -> [UInt8] {
        let udpLength = UInt16(truncatingIfNeeded: Self.udpHeaderSize + payload.count)
        var udp = be16(sourcePort) + be16(destinationPort) + be16(udpLength) + [0, 0] + payload
        switch version {
        case .v4:
            let source = self.source.ipv4Bytes ?? [0, 0, 0, 0]
            let destination = self.destination.ipv4Bytes ?? [0, 0, 0, 0]
            setUDPChecksum(&udp, pseudoHeader: source + destination + [0, Self.protocolNumber] + be16(udpLength))
            var header: [UInt8] = [0x45, 0] + be16(UInt16(truncatingIfNeeded: 20 + udp.count))
            // Identification 0 with don't-fragment set (RFC 6864: the ID only matters for fragments).
            header += [0, 0, 0x40, 0, hopLimit, Self.protocolNumber, 0, 0] + source + destination
            let sum = checksum(header[...])
            header[10] = UInt8(sum >> 8)
            header[11] = UInt8(truncatingIfNeeded: sum)
            return header + udp
        case .v6:
            let source = self.source.ipv6Bytes
            let destination = self.destination.ipv6Bytes
            setUDPChecksum(&udp, pseudoHeader: source + destination + be32(UInt32(udp.count)) + [0, 0, 0, Self.protocolNumber])
            let header: [UInt8] = [0x60, 0, 0, 0] + be16(udpLength) + [Self.protocolNumber, hopLimit] + source + destination
            return header + udp
        }
    }

    private func setUDPChecksum(_ udp: inout [UInt8], pseudoHeader: [UInt8]) {
        var sum = checksum((pseudoHeader + udp)[...])
        // A computed 0 is sent as all ones: 0 means "no checksum" (RFC 768).
        if sum == 0 { sum = 0xFFFF }
        udp[6] = UInt8(sum >> 8)
        udp[7] = UInt8(truncatingIfNeeded: sum)
    }
}

/// Why bytes are not a UDP packet a tunnel can answer.
public enum PacketDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Shorter than its headers.
    case truncated
    /// Neither IPv4 nor IPv6.
    case unsupportedVersion(UInt8)
    /// A length field disagrees with the bytes there are.
    case badLength
    /// The IPv4 header checksum does not add up.
    case badHeaderChecksum
    /// The UDP checksum does not add up (or is missing over IPv6).
    case badUDPChecksum
    /// A fragment of a larger datagram.
    case fragmented
    /// Another transport (TCP is 6, ICMP 1, ICMPv6 58).
    case notUDP(protocolNumber: UInt8)

    public var description: String {
        switch self {
        case .truncated: return "packet truncated"
        case .unsupportedVersion(let version): return "IP version \(version) is not supported"
        case .badLength: return "a length field disagrees with the packet's size"
        case .badHeaderChecksum: return "bad IPv4 header checksum"
        case .badUDPChecksum: return "bad UDP checksum"
        case .fragmented: return "a fragment of a datagram"
        case .notUDP(let number): return "protocol \(number) is not UDP"
        }
    }
}

// MARK: Wire helpers

/// The Internet checksum (RFC 1071) of `bytes`: the ones' complement of the ones' complement sum
/// of its 16-bit words. Over data that includes a correct checksum it is 0.
func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    var sum: UInt32 = 0
    var iterator = bytes.makeIterator()
    while let high = iterator.next() {
        let low = iterator.next() ?? 0
        sum &+= UInt32(high) << 8 | UInt32(low)
    }
    while sum >> 16 != 0 { sum = (sum & 0xFFFF) &+ (sum >> 16) }
    return ~UInt16(truncatingIfNeeded: sum)
}

private func read16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
}

private func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(read16(bytes, offset)) << 16 | UInt32(read16(bytes, offset + 2))
}

private func be16(_ value: UInt16) -> [UInt8] {
    [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)]
}

private func be32(_ value: UInt32) -> [UInt8] {
    be16(UInt16(value >> 16)) + be16(UInt16(truncatingIfNeeded: value))
}
