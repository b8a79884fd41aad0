import DNSFilter
import DNSTestSupport
import Foundation
import Logging
import Testing

@testable import DNSServer

/// How DNSSEC's bits (DO, CD, AD) and the reply to an unknown opcode pass through the server,
/// against a validating upstream: unbound with trust anchors for two zones BIND serves, one
/// validly signed and one whose signatures expired (`ValidatingUpstream`). `dig` asks the server
/// and unbound itself, and the answers are compared. Skipped (with a message) when dig, named,
/// the DNSSEC tools or unbound are missing, unless required.
@Suite("DNSSEC bits through a validating upstream (BIND and unbound)", .serialized)
struct DNSSECBitsTests {
    static let programs = ["dig"] + ValidatingUpstream.programs

    static func ready() -> Bool { DNSTools.ready(programs) }

    /// Runs `body` with a server (on a free port) forwarding to unbound, and unbound.
    static func withServer(_ body: (_ port: Int, _ upstream: ValidatingUpstream) async throws -> Void) async throws {
        let upstream = try await ValidatingUpstream()
        defer { upstream.stop() }
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let configuration = DNSServerConfiguration(
            listen: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0),
            upstreams: [.udp(host: IPAddress("127.0.0.1")!, port: upstream.port)], upstreamTimeout: .milliseconds(1500), threads: 2)
        let server = try await DNSServer.start(configuration: configuration, filter: try DNSServerTests.filter(), logger: logger)
        do {
            try await body(server.localAddress.port, upstream)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// RFC 3225 §3: the DO bit of a query is copied into its answer — forwarded, cached,
    /// negative, blocked, BADVERS — over UDP and TCP, with the RRSIGs; a query without DO gets
    /// neither, even when an answer with them is cached.
    @Test(DNSTools.trait(DNSSECBitsTests.programs)) func theDOBitIsCopiedIntoEveryAnswer() async throws {
        try #require(Self.ready(), "dig, named, dnssec-keygen, dnssec-signzone and unbound are needed")
        try await Self.withServer { port, upstream in
            for (name, transport) in [("www.good.test", [String]()), ("ns.good.test", ["+tcp"])] {
                let direct = try await Dig.query(name, port: upstream.port, extra: ["+dnssec"] + transport)
                #expect(direct.ednsFlags == ["do"] && direct.answerTypes == ["A", "RRSIG"], "unbound: \(direct.output)")
                for round in ["forwarded", "cached"] {
                    let answer = try await Dig.query(name, port: port, extra: ["+dnssec"] + transport)
                    #expect(answer.status == "NOERROR", "\(name) \(round): \(answer.output)")
                    #expect(answer.ednsFlags == ["do"], "\(name) \(round) \(transport): DO copied: \(answer.output)")
                    #expect(answer.answerTypes == ["A", "RRSIG"], "\(name) \(round): the signature: \(answer.output)")
                    #expect(answer.flags.contains("ad"), "\(name) \(round): validated: \(answer.output)")
                }
            }
            // The same name without DO: the cached answer with its RRSIG is not the one given.
            let plain = try await Dig.query("www.good.test", port: port)
            #expect(plain.ednsFlags == [], "no DO asked, none given: \(plain.output)")
            #expect(plain.answerTypes == ["A"], "no RRSIG for a client that did not ask (RFC 3225 §3): \(plain.output)")
            let negative = try await Dig.query("missing.good.test", port: port, extra: ["+dnssec"])
            #expect(negative.status == "NXDOMAIN" && negative.ednsFlags == ["do"], "\(negative.output)")
            let blocked = try await Dig.query("tracker.test", port: port, extra: ["+dnssec"])
            #expect(blocked.status == "NXDOMAIN" && blocked.ednsFlags == ["do"], "made here, DO copied too: \(blocked.output)")
            let blockedOverTCP = try await Dig.query("tracker.test", port: port, extra: ["+dnssec", "+tcp"])
            #expect(blockedOverTCP.ednsFlags == ["do"], "\(blockedOverTCP.output)")
            let badVersion = try await Dig.query("www.good.test", port: port, extra: ["+dnssec", "+edns=1", "+noednsnegotiation"])
            #expect(badVersion.status == "BADVERS" && badVersion.ednsFlags == ["do"], "\(badVersion.output)")
        }
    }

    /// RFC 4035 §3.2.2: an answer the upstream gave without validating (CD=1) is never given to
    /// a client that relies on the validation (CD=0): that client gets SERVFAIL for bogus data,
    /// as from unbound itself, however many CD=1 answers are cached. The CD=1 answer stays
    /// cached for CD=1 clients.
    @Test(DNSTools.trait(DNSSECBitsTests.programs)) func answersWithCheckingDisabledNeverReachValidatingClients() async throws {
        try #require(Self.ready(), "dig, named, dnssec-keygen, dnssec-signzone and unbound are needed")
        try await Self.withServer { port, upstream in
            let name = "www.bogus.test"
            let directUnchecked = try await Dig.query(name, port: upstream.port, extra: ["+cd"])
            #expect(directUnchecked.data == [ValidatingUpstream.bogusAddress], "unbound, CD=1: \(directUnchecked.output)")
            let directValidated = try await Dig.query(name, port: upstream.port)
            #expect(directValidated.status == "SERVFAIL", "unbound, CD=0: bogus: \(directValidated.output)")
            for extra in [[], ["+dnssec"]] {
                let unchecked = try await Dig.query(name, port: port, extra: ["+cd"] + extra)
                #expect(unchecked.status == "NOERROR" && unchecked.data.first == ValidatingUpstream.bogusAddress, "\(unchecked.output)")
                #expect(unchecked.flags.contains("cd") && !unchecked.flags.contains("ad"), "CD copied, no AD: \(unchecked.output)")
                for transport in [[], ["+tcp"]] {
                    let validated = try await Dig.query(name, port: port, extra: extra + transport)
                    #expect(validated.status == "SERVFAIL", "CD=0 \(extra) \(transport) after a CD=1 answer: \(validated.output)")
                    #expect(validated.answers.isEmpty, "no bogus data: \(validated.output)")
                }
            }
            // The CD=1 answers came from the cache the second time: unbound was not asked again.
            let asked = upstream.queriesLogged(for: name)
            #expect(asked >= 6, "unbound logs the queries it is asked (2 direct, 4 through the server): \(upstream.log)")
            let again = try await Dig.query(name, port: port, extra: ["+cd"])
            #expect(again.data == [ValidatingUpstream.bogusAddress], "\(again.output)")
            #expect(upstream.queriesLogged(for: name) == asked, "the CD=1 answer is cached for CD=1 clients: \(upstream.log)")
            // A validated answer is cached for CD=0 clients as before.
            #expect(try await Dig.query("www.good.test", port: port).data == [ValidatingUpstream.goodAddress])
            let good = upstream.queriesLogged(for: "www.good.test")
            #expect(good >= 2, "the readiness check and the first query: \(upstream.log)")
            #expect(try await Dig.query("www.good.test", port: port).data == [ValidatingUpstream.goodAddress])
            #expect(upstream.queriesLogged(for: "www.good.test") == good, "\(upstream.log)")
        }
    }

    /// RFC 6840 §5.7 and §5.8: a client that asks with AD or DO hears whether the upstream
    /// validated the answer (AD), one that asks with neither does not — as unbound answers
    /// them, whichever client's query filled the cache.
    @Test(DNSTools.trait(DNSSECBitsTests.programs)) func adReachesClientsThatAskWithADOrDO() async throws {
        try #require(Self.ready(), "dig, named, dnssec-keygen, dnssec-signzone and unbound are needed")
        try await Self.withServer { port, upstream in
            // dig sets AD in queries unless told +noadflag. The first query fills the cache.
            let cases: [(extra: [String], ad: Bool)] = [
                (["+noadflag"], false), (["+adflag"], true), (["+adflag", "+tcp"], true), (["+noadflag", "+dnssec"], true),
                (["+adflag", "+dnssec"], true), (["+noadflag"], false), (["+noadflag", "+tcp"], false),
            ]
            for (extra, ad) in cases {
                let direct = try await Dig.query("www.good.test", port: upstream.port, extra: extra)
                #expect(direct.flags.contains("ad") == ad, "unbound \(extra): \(direct.output)")
                let answer = try await Dig.query("www.good.test", port: port, extra: extra)
                #expect(answer.data.first == ValidatingUpstream.goodAddress, "\(extra): \(answer.output)")
                #expect(answer.flags.contains("ad") == ad, "\(extra): AD \(ad ? "given" : "not given"): \(answer.output)")
            }
            let bogus = try await Dig.query("www.bogus.test", port: port, extra: ["+cd", "+adflag"])
            #expect(bogus.status == "NOERROR" && !bogus.flags.contains("ad"), "not validated, no AD: \(bogus.output)")
        }
    }

    /// A query of an opcode other than QUERY gets NOTIMP with its ID, opcode, RD and CD (RFC
    /// 4035 §3.2.2; RFC 6895 §2 expects only RD and CD copied), DO with EDNS, and neither RA nor
    /// AD — unbound leaves RA clear too (it echoes the query's AD; dnsmasq sets RA). Also when
    /// the rest of the message cannot be read.
    @Test(DNSTools.trait(DNSSECBitsTests.programs)) func unknownOpcodesGetNOTIMPWithoutRA() async throws {
        try #require(Self.ready(), "dig, named, dnssec-keygen, dnssec-signzone and unbound are needed")
        try await Self.withServer { port, upstream in
            for opcode in [2, 3, 15] {
                let extra = ["+opcode=\(opcode)", "+cd", "+dnssec", "+adflag"]
                let direct = try await Dig.query("www.good.test", port: upstream.port, extra: extra)
                #expect(direct.status == "NOTIMP" && !direct.flags.contains("ra"), "unbound, opcode \(opcode): \(direct.output)")
                #expect(direct.flags.contains("cd") && direct.flags.contains("rd"), "unbound copies RD and CD: \(direct.output)")
                let answer = try await Dig.query("www.good.test", port: port, extra: extra)
                #expect(answer.status == "NOTIMP", "opcode \(opcode): \(answer.output)")
                #expect(answer.flags.sorted() == ["cd", "qr", "rd"], "opcode \(opcode): \(answer.output)")
                #expect(answer.ednsFlags == ["do"], "opcode \(opcode): \(answer.output)")
            }
            // Opcode 3 with RD and CD, and a question count beyond the data.
            let unreadable: [UInt8] = [0x77, 0x02, 0x19, 0x10, 0, 40, 0, 0, 0, 0, 0, 0, 1, 97, 0, 0, 1, 0, 1]
            let reply = try #require(await RawDNS.exchange(unreadable, port: port, timeout: 2), "an answer")
            #expect(reply.count == 12 && reply[0] == 0x77 && reply[1] == 0x02, "a bare header with the ID: \(reply)")
            #expect(reply[2] == 0x99, "QR, opcode 3, RD: \(reply[2])")
            #expect(reply[3] == 0x14, "no RA, CD, NOTIMP: \(reply[3])")
            #expect(try await Dig.query("www.good.test", port: port).data == [ValidatingUpstream.goodAddress], "still answering")
        }
    }
}
