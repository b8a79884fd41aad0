import DNSFilter
import PepperTestSupport
import Testing

/// The IP/UDP codec of the packet tunnel, checked against packets built by Scapy 2.8 (an
/// independent implementation of IPv4, IPv6 and UDP, checksums included).
@Suite("UDP packets")
struct UDPPacketTests {
    /// Scapy: `IP(src="10.0.0.2", dst="198.18.0.53", id=0x1c46, ttl=64)/UDP(sport=53535, dport=53)/DNS(id=0x1234, rd=1, qd=DNSQR(qname="www.acme.example"))`.
    static let query4 = bytes(
        "4500003e1c46000040118e200a000002c6120035d11f0035002a66ae123401000001000000000000037777770461636d65076578616d706c650000010001")
    /// Scapy: `IPv6(src="fd70:6570:7065::1", dst="fd70:6570:7065::53")/UDP(sport=49152, dport=53)/DNS(id=0xbeef, rd=1, qd=DNSQR(qname="example.org", qtype="AAAA"))`.
    static let query6 = bytes(
        "6000000000251140fd706570706500000000000000000001fd706570706500000000000000000053c00000350025ec29beef01000001000000000000076578616d706c65036f726700001c0001"
    )
    /// The same with a destination-options extension header before UDP.
    static let query6Options = bytes(
        "60000000002d3c40fd706570706500000000000000000001fd7065707065000000000000000000531100010400000000c00000350025ec29beef01000001000000000000076578616d706c65036f726700001c0001"
    )
    /// Scapy: the NXDOMAIN answer to `query4`, IPv4 with ID 0, DF and TTL 64 (what the encoder writes).
    static let answer4 = bytes(
        "4500003e0000400040116a66c61200350a0000020035d11f002ae62a123481830001000000000000037777770461636d65076578616d706c650000010001")
    /// Scapy: `IPv6(src="fd70:6570:7065::53", dst="fd70:6570:7065::1")/UDP(sport=53, dport=49152)/b"\x01\x02\x03"`.
    static let answer6 = bytes("60000000000b1140fd706570706500000000000000000053fd7065707065000000000000000000010035c000000b94bf010203")
    /// Scapy: an IPv4 UDP datagram with more-fragments set.
    static let fragment4 = bytes("450000280007200040118a750a000002c6120035d11f003500145e28000000000000000000000000")
    /// Scapy: an IPv6 UDP datagram behind a fragment header.
    static let fragment6 = bytes(
        "60000000001c2c40fd706570706500000000000000000001fd706570706500000000000000000053110000010000000000010035001458af000000000000000000000000"
    )
    /// Scapy: a TCP SYN to port 53.
    static let tcp = bytes("45000028000700004006aa800a000002c6120035d11f0035000000000000000050022000ee440000")
    /// Scapy: an IPv4 UDP datagram without a checksum (0, allowed over IPv4).
    static let noChecksum4 = bytes("45000028000700004011aa750a000002c6120035d11f003500140000000000000000000000000000")

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    @Test func decodesAnIPv4Query() throws {
        let packet = try UDPPacket(decoding: Self.query4)
        #expect(packet.version == .v4)
        #expect(packet.source == IPAddress("10.0.0.2"))
        #expect(packet.destination == IPAddress("198.18.0.53"))
        #expect(packet.sourcePort == 53535)
        #expect(packet.destinationPort == 53)
        #expect(packet.hopLimit == 64)
        let query = try DNSMessage(decoding: packet.payload)
        #expect(query.header.id == 0x1234)
        #expect(query.questions.first?.name.lowercasedHost == "www.acme.example")
    }

    @Test func decodesIPv6QueriesWithAndWithoutExtensionHeaders() throws {
        for bytes in [Self.query6, Self.query6Options] {
            let packet = try UDPPacket(decoding: bytes)
            #expect(packet.version == .v6)
            #expect(packet.source == IPAddress("fd70:6570:7065::1"))
            #expect(packet.destination == IPAddress("fd70:6570:7065::53"))
            #expect(packet.sourcePort == 49152)
            #expect(packet.destinationPort == 53)
            let query = try DNSMessage(decoding: packet.payload)
            #expect(query.header.id == 0xBEEF)
            #expect(query.questions.first?.type == .aaaa)
        }
    }

    @Test func encodesAnswersByteForByteAsScapy() throws {
        let query = try UDPPacket(decoding: Self.query4)
        var response = DNSMessage.response(to: try DNSMessage(decoding: query.payload), code: .nameError)
        response.header.flags.recursionAvailable = true
        #expect(query.reply(with: response.encoded()).encoded() == Self.answer4)
        let query6 = try UDPPacket(decoding: Self.query6)
        let reply6 = query6.reply(with: [1, 2, 3])
        #expect(reply6.source == query6.destination && reply6.destination == query6.source)
        #expect(reply6.sourcePort == 53 && reply6.destinationPort == 49152)
        #expect(reply6.encoded() == Self.answer6)
    }

    @Test func roundTripsWhatItEncodes() throws {
        for packet in [
            UDPPacket(
                version: .v4, source: IPAddress("192.0.2.1")!, destination: IPAddress("198.51.100.7")!, sourcePort: 1,
                destinationPort: 65535,
                payload: Array(0..<255)),
            UDPPacket(
                version: .v6, source: IPAddress("2001:db8::1")!, destination: IPAddress("2001:db8::2")!, sourcePort: 40000,
                destinationPort: 53, payload: [0xFF]),
            UDPPacket(
                version: .v4, source: IPAddress("10.0.0.1")!, destination: IPAddress("10.0.0.2")!, sourcePort: 9, destinationPort: 9,
                payload: []),
        ] {
            #expect(try UDPPacket(decoding: packet.encoded()) == packet)
        }
    }

    @Test func acceptsAnIPv4DatagramWithoutChecksum() throws {
        let packet = try UDPPacket(decoding: Self.noChecksum4)
        #expect(packet.payload == [UInt8](repeating: 0, count: 12))
    }

    @Test func refusesWhatIsNotOneWholeUDPDatagram() {
        func error(_ bytes: [UInt8]) -> PacketDecodingError? {
            do {
                _ = try UDPPacket(decoding: bytes)
                return nil
            } catch {
                return error
            }
        }
        #expect(error([]) == .truncated)
        #expect(error(Array(Self.query4.prefix(19))) == .truncated)
        #expect(error(Array(Self.query6.prefix(39))) == .truncated)
        #expect(error([0x50] + Array(Self.query4.dropFirst())) == .unsupportedVersion(5))
        #expect(error(Self.fragment4) == .fragmented)
        #expect(error(Self.fragment6) == .fragmented)
        #expect(error(Self.tcp) == .notUDP(protocolNumber: 6))
        // The IPv4 total length says more than there is.
        #expect(error(Array(Self.query4.dropLast())) == .badLength)
        // A flipped bit in the IPv4 header (the TTL).
        var header = Self.query4
        header[8] ^= 1
        #expect(error(header) == .badHeaderChecksum)
        // A flipped bit in the DNS payload, over IPv4 and IPv6.
        var payload4 = Self.query4
        payload4[payload4.count - 3] ^= 0x20
        #expect(error(payload4) == .badUDPChecksum)
        var payload6 = Self.query6
        payload6[payload6.count - 3] ^= 0x20
        #expect(error(payload6) == .badUDPChecksum)
        // IPv6 requires the UDP checksum.
        var zero6 = Self.query6
        zero6[46] = 0
        zero6[47] = 0
        #expect(error(zero6) == .badUDPChecksum)
    }

    /// Every prefix and every single-byte change of the vectors decodes or throws; none traps,
    /// and whatever decodes encodes back to a packet that decodes to the same thing.
    @Test func neverTrapsOnDamagedPackets() throws {
        var random = SplitMix64(seed: 15)
        for vector in [Self.query4, Self.query6, Self.query6Options, Self.fragment6, Self.tcp] {
            for length in 0..<vector.count { _ = try? UDPPacket(decoding: Array(vector.prefix(length))) }
            for _ in 0..<2_000 {
                var damaged = vector
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
                // lint-tests: a damaged packet may be refused; one that decodes must round-trip.
                if let packet = try? UDPPacket(decoding: damaged) {
                    #expect(try UDPPacket(decoding: packet.encoded()) == packet)
                }
            }
        }
    }
}
