import DNSFilter
import Testing

@Suite("DNS message codec")
struct DNSMessageTests {
    static func query(_ name: String, _ type: DNSRecordType = .a, id: UInt16 = 0x1234, edns: EDNS? = nil) throws -> DNSMessage {
        var flags = DNSFlags(rawValue: 0)
        flags.recursionDesired = true
        return DNSMessage(
            header: DNSHeader(id: id, flags: flags), questions: [DNSQuestion(name: try DNSName(name), type: type)], edns: edns)
    }

    @Test func aQueryAsDigSendsItDecodes() throws {
        // `dig example.com A +noedns`, byte for byte.
        let bytes: [UInt8] =
            [0xAB, 0xCD, 0x01, 0x20, 0, 1, 0, 0, 0, 0, 0, 0]
            + [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0, 0, 1, 0, 1]
        let message = try DNSMessage(decoding: bytes)
        #expect(message.header.id == 0xABCD)
        #expect(message.header.flags.recursionDesired)
        #expect(message.header.flags.authenticData)
        #expect(!message.header.flags.isResponse)
        #expect(message.questions == [DNSQuestion(name: try DNSName("example.com"), type: .a)])
        #expect(message.encoded() == bytes, "re-encoding gives the same bytes")
    }

    @Test func namesAreCompressedAndExpandedAgain() throws {
        var response = try Self.query("www.Example.com")
        response.header.flags.isResponse = true
        let name = try DNSName("www.Example.com")
        let target = try DNSName("cdn.example.com")
        response.answers = [
            .cname(name, target: target, ttl: 300),
            .a(target, IPAddress("192.0.2.1")!, ttl: 60),
            DNSRecord(name: target, type: .mx, ttl: 60, data: [0, 10] + (try DNSName("mail.example.com")).wire),
        ]
        let bytes = response.encoded()
        let uncompressed =
            12 + name.wire.count + 4 + (name.wire.count + 10 + target.wire.count) + (target.wire.count + 14)
            + (target.wire.count + 10 + 2 + 18)
        #expect(bytes.count < uncompressed - 30, "suffixes are pointers: \(bytes.count) bytes")
        let decoded = try DNSMessage(decoding: bytes)
        #expect(decoded.answers == response.answers)
        #expect(decoded.answers[0].cnameTarget == target)
        #expect(decoded.questions[0].name.description == "www.Example.com.", "the question keeps its case")
    }

    @Test func ednsIsReadAndWritten() throws {
        let edns = EDNS(udpPayloadSize: 4096, dnssecOK: true, options: [EDNSOption(code: 10, data: Array(0..<8))])
        let message = try Self.query("example.com", .aaaa, edns: edns)
        let decoded = try DNSMessage(decoding: message.encoded())
        #expect(decoded.edns == edns)
        #expect(decoded.additionals.isEmpty, "the OPT record is not an ordinary additional record")
        #expect(decoded.maximumUDPResponseSize == 4096)
        #expect(try Self.query("example.com").maximumUDPResponseSize == 512)
    }

    @Test func largeResponsesAreTruncatedWithTC() throws {
        var response = try Self.query("big.example.test", .txt)
        response.header.flags.isResponse = true
        let name = try DNSName("big.example.test")
        response.answers = (0..<20).map { index in
            DNSRecord(name: name, type: .txt, ttl: 60, data: [200] + Array(repeating: UInt8(65 + index), count: 200))
        }
        let full = response.encoded()
        #expect(full.count > 4000)
        #expect(try DNSMessage(decoding: full).answers.count == 20)
        let cut = response.encoded(maximumSize: 512)
        #expect(cut.count <= 512)
        let decoded = try DNSMessage(decoding: cut)
        #expect(decoded.header.flags.isTruncated)
        #expect(decoded.questions == response.questions)
        #expect(decoded.answers.isEmpty)
        #expect(!(try DNSMessage(decoding: full)).header.flags.isTruncated)
    }

    @Test func malformedPacketsThrowTypedErrors() throws {
        let header: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        let cases: [(String, [UInt8], DNSDecodingError)] = [
            ("empty", [], .truncated),
            ("truncated header", [0, 1, 1, 0, 0], .truncated),
            ("count beyond the data", [0, 1, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1], .truncated),
            ("pointer to itself", header + [0xC0, 12, 0, 1, 0, 1], .badPointer),
            ("forward pointer", header + [0xC0, 14, 0, 1, 0, 1, 0], .badPointer),
            ("label runs past the end", header + [63, 97, 97, 0, 1, 0, 1], .truncated),
            ("label length 64 (reserved bits)", header + [64] + Array(repeating: 97, count: 64) + [0, 0, 1, 0, 1], .unsupportedLabelType),
            ("extended label type 0x80", header + [0x80, 0, 0, 1, 0, 1], .unsupportedLabelType),
            (
                "name over 255 bytes",
                header + Array(repeating: [63] + Array(repeating: UInt8(97), count: 63), count: 5).flatMap { $0 } + [0, 0, 1, 0, 1],
                .nameTooLong
            ),
        ]
        for (label, bytes, expected) in cases {
            #expect(throws: expected, "\(label)") { try DNSMessage(decoding: bytes) }
        }
    }

    @Test func pointerChainsMustGoBackwardsEveryTime() throws {
        // Two names: the second points at the first, the first (in an answer) points forward at
        // the second: each pointer alone is plausible, together they loop.
        var bytes: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]
        bytes += [1, 97, 0xC0, 29, 0, 1, 0, 1]  // question "a" + pointer to offset 29 (forward)
        bytes += [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]  // answer owned by the question name
        #expect(throws: DNSDecodingError.badPointer) { try DNSMessage(decoding: bytes) }
        var loop: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]
        loop += [1, 97, 0xC0, 14]  // "a" then a pointer to the pointer itself
        loop += [0, 1, 0, 1]
        #expect(throws: DNSDecodingError.badPointer) { try DNSMessage(decoding: loop) }
    }

    @Test func optRecordsAreChecked() throws {
        let edns = EDNS()
        var message = try Self.query("example.com", edns: edns)
        var bytes = message.encoded()
        // A second OPT: the additional count says two, the record appears twice.
        let opt = Array(bytes[(bytes.count - 11)...])
        bytes[11] = 2
        bytes += opt
        #expect(throws: DNSDecodingError.badOPT) { try DNSMessage(decoding: bytes) }
        message.edns = nil
        #expect(try DNSMessage(decoding: message.encoded()).edns == nil)
    }

    @Test func recordDataWithNamesMustFillItsLength() throws {
        var response = try Self.query("example.com", .cname)
        response.header.flags.isResponse = true
        response.answers = [.cname(try DNSName("example.com"), target: try DNSName("other.test"), ttl: 5)]
        var bytes = response.encoded()
        // Claim one more data byte than the CNAME's name takes, and supply it.
        let lengthOffset = bytes.count - (try DNSName("other.test")).wire.count - 2
        bytes[lengthOffset + 1] += 1
        bytes.append(0)
        #expect(throws: DNSDecodingError.badRecordData(.cname)) { try DNSMessage(decoding: bytes) }
    }

    @Test func namesParseFromText() throws {
        #expect(try DNSName("Example.COM.").description == "Example.COM.")
        #expect(try DNSName("example.com").lowercasedHost == "example.com")
        #expect(try DNSName("A.b").lowercased().description == "a.b.")
        #expect(try DNSName(".").isRoot)
        #expect(try DNSName("a\\.b.c").labels.count == 2)
        #expect(try DNSName("a\\.b.c").description == "a\\.b.c.")
        #expect(try DNSName("x\\032y").description == "x\\032y.")
        #expect(throws: DNSName.ParseError.self) { try DNSName("a..b") }
        #expect(throws: DNSName.ParseError.self) { try DNSName(String(repeating: "a", count: 64) + ".test") }
        #expect(throws: DNSName.ParseError.self) {
            try DNSName(Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: "."))
        }
        #expect(throws: DNSName.ParseError.self) { try DNSName("a\\999") }
        #expect(try DNSName("A.test").isEquivalent(to: try DNSName("a.TEST")))
    }
}
