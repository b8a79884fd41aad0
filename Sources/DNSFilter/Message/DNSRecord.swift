/// An entry of the question section.
public struct DNSQuestion: Sendable, Hashable {
    /// The name asked about.
    public var name: DNSName
    /// The type asked for.
    public var type: DNSRecordType
    /// The class (IN).
    public var recordClass: DNSClass

    /// A question with the given fields.
    public init(name: DNSName, type: DNSRecordType, recordClass: DNSClass = .internet) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
    }
}

/// A resource record. The data is kept as bytes, uncompressed: names inside the data of the
/// types that may carry compressed names (CNAME, NS, PTR, MX, SOA, SRV, …) are expanded when
/// read, so records can be copied into any message. Every other type passes through untouched.
public struct DNSRecord: Sendable, Hashable {
    /// The owner name.
    public var name: DNSName
    /// The type.
    public var type: DNSRecordType
    /// The class.
    public var recordClass: DNSClass
    /// Seconds the record may be cached.
    public var ttl: UInt32
    /// The record data (RDATA), uncompressed.
    public var data: [UInt8]

    /// A record with the given fields.
    public init(name: DNSName, type: DNSRecordType, recordClass: DNSClass = .internet, ttl: UInt32, data: [UInt8]) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }

    /// An A record.
    public static func a(_ name: DNSName, _ address: IPAddress, ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .a, ttl: ttl, data: address.ipv4Bytes ?? [0, 0, 0, 0])
    }

    /// An AAAA record.
    public static func aaaa(_ name: DNSName, _ address: IPAddress, ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .aaaa, ttl: ttl, data: address.ipv6Bytes)
    }

    /// A CNAME record.
    public static func cname(_ name: DNSName, target: DNSName, ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .cname, ttl: ttl, data: target.wire)
    }

    /// An SOA record.
    public static func soa(_ name: DNSName, _ soa: SOAData, ttl: UInt32) -> DNSRecord {
        var data = soa.primaryServer.wire + soa.responsible.wire
        for value in [soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum] {
            data += [
                UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value),
            ]
        }
        return DNSRecord(name: name, type: .soa, ttl: ttl, data: data)
    }

    /// The address of an A or AAAA record.
    public var address: IPAddress? {
        if type == .a && data.count == 4 { return IPAddress(ipv4: data[0], data[1], data[2], data[3]) }
        if type == .aaaa && data.count == 16 { return IPAddress(ipv6Bytes: data) }
        return nil
    }

    /// The target of a CNAME record.
    public var cnameTarget: DNSName? {
        guard type == .cname else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = DNSWireReader(raw)
            guard let name = try? reader.name(), reader.remaining == 0 else { return nil }
            return name
        }
    }

    /// The fields of an SOA record.
    public var soa: SOAData? {
        guard type == .soa else { return nil }
        return data.withUnsafeBytes { raw -> SOAData? in
            var reader = DNSWireReader(raw)
            guard let primary = try? reader.name(), let responsible = try? reader.name(), reader.remaining == 20,
                let serial = try? reader.u32(), let refresh = try? reader.u32(), let retry = try? reader.u32(),
                let expire = try? reader.u32(), let minimum = try? reader.u32()
            else { return nil }
            return SOAData(
                primaryServer: primary, responsible: responsible, serial: serial, refresh: refresh, retry: retry, expire: expire,
                minimum: minimum)
        }
    }

    // MARK: Data layouts

    /// The parts of a record's data, for the types whose data holds names.
    enum Field {
        case name
        case fixed(Int)
    }

    /// The layout of the data of types that carry names (RFC 1035, 1183, 2163, 2230, 2782, 6672),
    /// or `nil` for data passed through as bytes.
    static func layout(of type: DNSRecordType) -> [Field]? {
        switch type.rawValue {
        case 2, 3, 4, 5, 7, 8, 9, 12, 39: return [.name]  // NS, MD, MF, CNAME, MB, MG, MR, PTR, DNAME
        case 6: return [.name, .name, .fixed(20)]  // SOA
        case 14, 17: return [.name, .name]  // MINFO, RP
        case 15, 18, 21, 36: return [.fixed(2), .name]  // MX, AFSDB, RT, KX
        case 26: return [.fixed(2), .name, .name]  // PX
        case 33: return [.fixed(6), .name]  // SRV
        default: return nil
        }
    }

    /// Whether names in the data may be compressed when writing: only for the types of
    /// RFC 1035 (RFC 3597 §4 forbids it for the others).
    static func compressesData(_ type: DNSRecordType) -> Bool {
        switch type.rawValue {
        case 2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 15: return true
        default: return false
        }
    }
}

/// The fields of an SOA record; `minimum` bounds how long a negative answer may be cached.
public struct SOAData: Sendable, Hashable {
    /// MNAME: the zone's primary server.
    public var primaryServer: DNSName
    /// RNAME: the mailbox of the person responsible.
    public var responsible: DNSName
    /// The zone's serial number.
    public var serial: UInt32
    /// Seconds between refreshes by secondaries.
    public var refresh: UInt32
    /// Seconds before a failed refresh is retried.
    public var retry: UInt32
    /// Seconds after which secondaries stop answering.
    public var expire: UInt32
    /// The TTL of negative answers (RFC 2308).
    public var minimum: UInt32

    /// An SOA with the given fields.
    public init(
        primaryServer: DNSName, responsible: DNSName, serial: UInt32, refresh: UInt32, retry: UInt32, expire: UInt32, minimum: UInt32
    ) {
        self.primaryServer = primaryServer
        self.responsible = responsible
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }
}

/// EDNS(0) parameters, carried by the OPT pseudo-record (RFC 6891).
public struct EDNS: Sendable, Hashable {
    /// The largest UDP response the sender can receive.
    public var udpPayloadSize: UInt16
    /// The upper eight bits of a 12-bit response code.
    public var extendedResponseCode: UInt8
    /// The EDNS version (0).
    public var version: UInt8
    /// DO: the sender wants DNSSEC records.
    public var dnssecOK: Bool
    /// The other flag bits (zero by the standard), kept as received.
    public var otherFlags: UInt16
    /// Options (cookies, client subnet, padding, …), passed through as bytes.
    public var options: [EDNSOption]

    /// EDNS parameters with the given fields.
    public init(
        udpPayloadSize: UInt16 = 1232, extendedResponseCode: UInt8 = 0, version: UInt8 = 0, dnssecOK: Bool = false,
        otherFlags: UInt16 = 0, options: [EDNSOption] = []
    ) {
        self.udpPayloadSize = udpPayloadSize
        self.extendedResponseCode = extendedResponseCode
        self.version = version
        self.dnssecOK = dnssecOK
        self.otherFlags = otherFlags
        self.options = options
    }
}

/// One EDNS option.
public struct EDNSOption: Sendable, Hashable {
    /// The option code.
    public var code: UInt16
    /// The option's bytes.
    public var data: [UInt8]

    /// An option with the given fields.
    public init(code: UInt16, data: [UInt8]) {
        self.code = code
        self.data = data
    }
}
