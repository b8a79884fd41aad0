/// The 12-byte header of a DNS message (RFC 1035 §4.1.1).
public struct DNSHeader: Sendable, Hashable {
    /// Matches a response to its query.
    public var id: UInt16
    /// QR, opcode, AA, TC, RD, RA, Z, AD, CD and the response code.
    public var flags: DNSFlags
    /// Entries in the question section.
    public var questionCount: UInt16
    /// Records in the answer section.
    public var answerCount: UInt16
    /// Records in the authority section.
    public var authorityCount: UInt16
    /// Records in the additional section (the EDNS OPT record included).
    public var additionalCount: UInt16

    /// A header with the given fields (counts default to zero: the encoder sets them).
    public init(
        id: UInt16, flags: DNSFlags, questionCount: UInt16 = 0, answerCount: UInt16 = 0, authorityCount: UInt16 = 0,
        additionalCount: UInt16 = 0
    ) {
        self.id = id
        self.flags = flags
        self.questionCount = questionCount
        self.answerCount = answerCount
        self.authorityCount = authorityCount
        self.additionalCount = additionalCount
    }

    /// The size of a header on the wire.
    public static let size = 12
}

/// The second 16-bit word of the header, with named accessors for each field.
public struct DNSFlags: Sendable, Hashable {
    /// The word as on the wire.
    public var rawValue: UInt16

    /// Flags from their wire value.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// QR: this message is a response.
    public var isResponse: Bool {
        get { bit(15) }
        set { setBit(15, newValue) }
    }

    /// The kind of query (0 = standard query).
    public var opcode: UInt8 {
        get { UInt8((rawValue >> 11) & 0xF) }
        set { rawValue = (rawValue & ~(0xF << 11)) | (UInt16(newValue & 0xF) << 11) }
    }

    /// AA: the answer comes from an authority for the name.
    public var isAuthoritative: Bool {
        get { bit(10) }
        set { setBit(10, newValue) }
    }

    /// TC: the message was truncated to fit; ask again over TCP.
    public var isTruncated: Bool {
        get { bit(9) }
        set { setBit(9, newValue) }
    }

    /// RD: the client wants recursion.
    public var recursionDesired: Bool {
        get { bit(8) }
        set { setBit(8, newValue) }
    }

    /// RA: the server offers recursion.
    public var recursionAvailable: Bool {
        get { bit(7) }
        set { setBit(7, newValue) }
    }

    /// AD: the data was validated with DNSSEC (RFC 4035).
    public var authenticData: Bool {
        get { bit(5) }
        set { setBit(5, newValue) }
    }

    /// CD: the client does its own DNSSEC validation (RFC 4035).
    public var checkingDisabled: Bool {
        get { bit(4) }
        set { setBit(4, newValue) }
    }

    /// The low four bits of the response code (EDNS adds eight more bits in the OPT record).
    public var responseCode: DNSResponseCode {
        get { DNSResponseCode(rawValue: rawValue & 0xF) }
        set { rawValue = (rawValue & ~0xF) | (newValue.rawValue & 0xF) }
    }

    @inline(__always) private func bit(_ index: UInt16) -> Bool { rawValue & (1 << index) != 0 }

    @inline(__always) private mutating func setBit(_ index: UInt16, _ value: Bool) {
        if value { rawValue |= 1 << index } else { rawValue &= ~(1 << index) }
    }
}

/// A response code (RFC 1035 §4.1.1, RFC 6895).
public struct DNSResponseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code (4 bits in the header; up to 12 bits with EDNS).
    public var rawValue: UInt16

    /// A code from its value.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// NOERROR.
    public static let noError = DNSResponseCode(rawValue: 0)
    /// FORMERR: the query could not be read.
    public static let formatError = DNSResponseCode(rawValue: 1)
    /// SERVFAIL: the server could not answer (here: every upstream failed).
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    /// NXDOMAIN: the name does not exist.
    public static let nameError = DNSResponseCode(rawValue: 3)
    /// NOTIMP: the kind of query is not supported.
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    /// REFUSED: the server will not answer this client or query.
    public static let refused = DNSResponseCode(rawValue: 5)

    public var description: String {
        switch rawValue {
        case 0: return "NOERROR"
        case 1: return "FORMERR"
        case 2: return "SERVFAIL"
        case 3: return "NXDOMAIN"
        case 4: return "NOTIMP"
        case 5: return "REFUSED"
        default: return "RCODE\(rawValue)"
        }
    }
}
