import FilterEngine

/// How a blocked name is answered.
public enum BlockResponse: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// NXDOMAIN: the name does not exist (the default; clients give up at once).
    case nxdomain
    /// `0.0.0.0` for A and `::` for AAAA (or the block page's address), NOERROR with no data
    /// for other types: for clients that retry on NXDOMAIN.
    case null
    /// REFUSED: the server will not answer.
    case refused

    public var description: String { rawValue }
}

/// What the filter decides for one name.
public enum DNSFilterDecision: Sendable, Hashable {
    /// A block rule covers the name or a parent, and no exception or allowlist entry does.
    case block
    /// A block rule covers the name but an exception or the allowlist overrides it: forward.
    case allow
    /// No rule covers the name: forward.
    case forward
}

/// The DNS filtering policy, portable (the Linux server and an iOS network extension share it):
/// a name is blocked when it or a parent is blocked at the DNS level by the engine
/// (`FilterEngine.match(domain:)`), unless an exception or the allowlist covers it; blocked
/// names are answered per ``BlockResponse`` with ``blockTTL``. Answers are checked too: a
/// forwarded name whose CNAME chain reaches a blocked name is blocked like that name.
public struct DNSQueryFilter: Sendable {
    /// The engine judging names.
    public let engine: FilterEngine
    /// How blocked names are answered.
    public var blockResponse: BlockResponse
    /// The TTL of block answers (and of the SOA that lets clients cache them negatively).
    public var blockTTL: UInt32
    /// The IPv4 address `null` answers give for A queries (`0.0.0.0`, or the block page's).
    public var nullIPv4: IPAddress
    /// The IPv6 address `null` answers give for AAAA queries (`::`, or the block page's).
    public var nullIPv6: IPAddress

    /// A filter over `engine`.
    public init(
        engine: FilterEngine, blockResponse: BlockResponse = .nxdomain, blockTTL: UInt32 = 60,
        nullIPv4: IPAddress = IPAddress(ipv4: 0), nullIPv6: IPAddress = IPAddress(high: 0, low: 0)
    ) {
        self.engine = engine
        self.blockResponse = blockResponse
        self.blockTTL = blockTTL
        self.nullIPv4 = nullIPv4
        self.nullIPv6 = nullIPv6
    }

    /// The decision for a name (any case, with or without the final dot).
    public func decision(for name: DNSName) -> DNSFilterDecision {
        let host = name.lowercasedHostBytes
        guard !host.isEmpty else { return .forward }
        return host.withUnsafeBufferPointer { Self.map(engine.domainDecision(lowercasedName: $0)) }
    }

    /// The decision for a lower-case host name given as bytes, without the final dot: the hot
    /// path, allocation-free.
    public func decision(lowercasedHost: UnsafeBufferPointer<UInt8>) -> DNSFilterDecision {
        guard !lowercasedHost.isEmpty else { return .forward }
        return Self.map(engine.domainDecision(lowercasedName: lowercasedHost))
    }

    @inline(__always)
    private static func map(_ decision: Verdict.Decision) -> DNSFilterDecision {
        switch decision {
        case .blocked: return .block
        case .allowed: return .allow
        case .noMatch: return .forward
        }
    }

    /// The rule (text, list, line) that blocks or allows a name, for logs and the block page.
    public func explanation(for name: DNSName) -> Verdict {
        engine.match(domain: name.lowercasedHost)
    }

    /// Whether the name is covered by the allowlist or an exception: its answers are passed
    /// through unchecked (the allowlist wins over CNAME blocking too).
    public func isExplicitlyAllowed(_ name: DNSName) -> Bool {
        let verdict = explanation(for: name)
        return verdict.decision == .allowed || verdict.rule?.list == "allowlist"
    }

    /// The first name of a response's answer section, after the question, that the filter
    /// blocks: a CNAME target (`tracker.example.com CNAME x.tracker-cdn.test`) or the owner of
    /// a record further down the chain. `nil` when the answers are clean.
    public func blockedNameInAnswers(of response: DNSMessage) -> DNSName? {
        for record in response.answers {
            if let target = record.cnameTarget, decision(for: target) == .block { return target }
            if record.type == .dname, let target = record.cnameTargetOfDNAME, decision(for: target) == .block { return target }
        }
        return nil
    }

    /// The answer to `query` for a blocked name, per ``blockResponse``: the header's ID, RD
    /// and CD copied, RA set, the question echoed, EDNS answered when the query had it. NXDOMAIN
    /// and NOERROR/no-data answers carry an SOA so clients cache them for ``blockTTL``.
    public func blockedResponse(to query: DNSMessage) -> DNSMessage {
        var response = DNSMessage.response(to: query)
        guard let question = query.questions.first else { return response }
        switch blockResponse {
        case .refused:
            response.header.flags.responseCode = .refused
        case .nxdomain:
            return Self.nameErrorResponse(to: query, ttl: blockTTL)
        case .null:
            if question.type == .a {
                response.answers = [.a(question.name, nullIPv4, ttl: blockTTL)]
            } else if question.type == .aaaa {
                response.answers = [.aaaa(question.name, nullIPv6, ttl: blockTTL)]
            } else {
                response.authorities = [Self.blockSOA(for: question.name, ttl: blockTTL)]
            }
        }
        return response
    }

    /// The NXDOMAIN answer to `query` for a blocked name, with the SOA that lets clients cache
    /// it for `ttl` seconds: what the DNS server and the iPhone's tunnel both answer.
    public static func nameErrorResponse(to query: DNSMessage, ttl: UInt32) -> DNSMessage {
        var response = DNSMessage.response(to: query, code: .nameError)
        if let question = query.questions.first { response.authorities = [blockSOA(for: question.name, ttl: ttl)] }
        return response
    }

    /// A synthetic SOA owned by the blocked name, its minimum (negative TTL) the block TTL.
    private static func blockSOA(for name: DNSName, ttl: UInt32) -> DNSRecord {
        let soa = SOAData(
            primaryServer: DNSName.blockAuthority, responsible: DNSName.blockAuthority, serial: 1, refresh: 3600, retry: 600,
            expire: 86_400, minimum: ttl)
        return .soa(name, soa, ttl: ttl)
    }
}

extension DNSName {
    /// The name of the synthetic SOA of block answers.
    static let blockAuthority = DNSName(uncheckedWire: [6] + Array("pepper".utf8) + [7] + Array("blocked".utf8) + [0])
}

extension DNSRecord {
    /// The target of a DNAME record (the same layout as a CNAME's).
    var cnameTargetOfDNAME: DNSName? {
        guard type == .dname else { return nil }
        var copy = self
        copy.type = .cname
        return copy.cnameTarget
    }
}

extension DNSMessage {
    /// The skeleton of a response to `query`: same ID, opcode, RD and CD (RFC 4035 §3.2.2); QR
    /// and RA set; the question echoed (as the client spelled it); an OPT record when the query
    /// had one, with the query's DO bit (RFC 3225 §3: a responder copies it).
    public static func response(to query: DNSMessage, code: DNSResponseCode = .noError) -> DNSMessage {
        var flags = DNSFlags(rawValue: 0)
        flags.isResponse = true
        flags.opcode = query.header.flags.opcode
        flags.recursionDesired = query.header.flags.recursionDesired
        flags.checkingDisabled = query.header.flags.checkingDisabled
        flags.recursionAvailable = true
        flags.responseCode = code
        return DNSMessage(
            header: DNSHeader(id: query.header.id, flags: flags), questions: Array(query.questions.prefix(1)),
            edns: query.edns.map { EDNS(udpPayloadSize: DNSMessage.advertisedPayloadSize, dnssecOK: $0.dnssecOK) })
    }

    /// The UDP payload size this server advertises and accepts (the DNS Flag Day 2020 value).
    public static let advertisedPayloadSize: UInt16 = 1232

    /// The largest UDP response a client accepts: 512 bytes, or its EDNS payload size (at
    /// least 512, at most 4096).
    public var maximumUDPResponseSize: Int {
        guard let edns else { return 512 }
        return min(max(Int(edns.udpPayloadSize), 512), 4096)
    }
}
