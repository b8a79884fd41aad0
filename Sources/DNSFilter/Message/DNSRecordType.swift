/// A record type (RFC 1035 §3.2.2 and later registrations). Unknown types are kept as numbers
/// and passed through untouched (RFC 3597).
public struct DNSRecordType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type's number.
    public var rawValue: UInt16

    /// A type from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// An IPv4 address.
    public static let a = DNSRecordType(rawValue: 1)
    /// A name server.
    public static let ns = DNSRecordType(rawValue: 2)
    /// An alias: the canonical name.
    public static let cname = DNSRecordType(rawValue: 5)
    /// The start of a zone of authority; its minimum field bounds negative caching (RFC 2308).
    public static let soa = DNSRecordType(rawValue: 6)
    /// A pointer (reverse lookups).
    public static let ptr = DNSRecordType(rawValue: 12)
    /// A mail exchanger.
    public static let mx = DNSRecordType(rawValue: 15)
    /// Text strings.
    public static let txt = DNSRecordType(rawValue: 16)
    /// An IPv6 address.
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// A service location.
    public static let srv = DNSRecordType(rawValue: 33)
    /// A subtree alias (RFC 6672).
    public static let dname = DNSRecordType(rawValue: 39)
    /// The EDNS pseudo-record (RFC 6891).
    public static let opt = DNSRecordType(rawValue: 41)
    /// A DNSSEC signature.
    public static let rrsig = DNSRecordType(rawValue: 46)
    /// Service binding (RFC 9460).
    public static let svcb = DNSRecordType(rawValue: 64)
    /// HTTPS service binding (RFC 9460): browsers ask for it beside A and AAAA.
    public static let https = DNSRecordType(rawValue: 65)
    /// Every type (a query only).
    public static let any = DNSRecordType(rawValue: 255)

    private static let names: [UInt16: String] = [
        1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA", 33: "SRV", 39: "DNAME", 41: "OPT",
        43: "DS", 46: "RRSIG", 47: "NSEC", 48: "DNSKEY", 64: "SVCB", 65: "HTTPS", 255: "ANY",
    ]

    /// The mnemonic (`AAAA`), or `TYPE<n>` for types without one (RFC 3597 §5).
    public var description: String { Self.names[rawValue] ?? "TYPE\(rawValue)" }

    /// A type from its mnemonic or `TYPE<n>` spelling, case-insensitively.
    public init?(name: String) {
        let upper = name.uppercased()
        if let match = Self.names.first(where: { $0.value == upper }) {
            self.init(rawValue: match.key)
        } else if upper.hasPrefix("TYPE"), let number = UInt16(upper.dropFirst(4)) {
            self.init(rawValue: number)
        } else {
            return nil
        }
    }
}

/// A record class; in practice always IN.
public struct DNSClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The class's number.
    public var rawValue: UInt16

    /// A class from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The Internet.
    public static let internet = DNSClass(rawValue: 1)

    public var description: String { rawValue == 1 ? "IN" : "CLASS\(rawValue)" }
}
