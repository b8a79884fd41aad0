import DNSFilter
import DNSTestSupport
import FilterEngine
import FilterLists
import Foundation
import Logging
import NIOCore
import NIOPosix
import Picket
import Testing

@testable import DNSServer

/// The server against real clients: `dig` asks, a dnsmasq on another loopback port is the
/// upstream. Skipped (with a message) when dig or dnsmasq is missing, unless required.
@Suite("DNS server with dig and dnsmasq", .serialized)
struct DNSServerTests {
    static let rules = """
        ||tracker.test^
        @@||ok.tracker.test^
        ||analytics.test^$script,third-party,xmlhttprequest
        """

    /// 8 strings of 250 bytes: an answer over 2 kB, more than UDP carries here.
    static let bigText = (0..<8).map { index in "\"" + String(repeating: Character(UnicodeScalar(UInt8(97 + index))), count: 250) + "\"" }
        .joined(separator: ",")

    static let upstreamRecords = [
        "--address=/example.test/192.0.2.1",
        "--address=/friend.tracker.test/192.0.2.7",
        "--address=/ok.tracker.test/192.0.2.8",
        "--address=/acme.test/192.0.2.9",
        "--host-record=metrics.tracker.test,192.0.2.66",
        "--cname=cloaked.shop.test,metrics.tracker.test",
        "--host-record=www.clean.test,192.0.2.5",
        "--cname=alias.shop.test,www.clean.test",
        "--txt-record=big.example.test,\(bigText)",
        "--edns-packet-max=512",
        "--log-queries",
        "--local-ttl=300",
    ]

    static func ready() -> Bool { DNSTools.ready() }

    static func filter(_ rules: String = rules, allowlist: [String] = [], response: BlockResponse = .nxdomain) throws -> DNSQueryFilter {
        let list = try FilterListParser().parse(rules, name: "test.txt")
        return DNSQueryFilter(engine: FilterEngine(lists: [list], allowlist: allowlist), blockResponse: response, blockTTL: 30)
    }

    /// Runs `body` with a server (on a free port) forwarding to a dnsmasq stub.
    static func withServer(
        filter: DNSQueryFilter? = nil, upstreamDown: Bool = false, picket: PicketGate? = nil,
        _ body: (_ server: DNSServer, _ upstream: Dnsmasq?) async throws -> Void
    ) async throws {
        let dnsmasq = upstreamDown ? nil : try await Dnsmasq(arguments: upstreamRecords)
        let upstreamPort = dnsmasq?.port ?? DNSTools.freePort()
        defer { dnsmasq?.stop() }
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let configuration = DNSServerConfiguration(
            listen: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0),
            upstreams: [.udp(host: IPAddress("127.0.0.1")!, port: upstreamPort)], upstreamTimeout: .milliseconds(400), threads: 2)
        let server = try await DNSServer.start(
            configuration: configuration, filter: try filter ?? Self.filter(allowlist: ["friend.tracker.test"]), logger: logger,
            picket: picket)
        do {
            try await body(server, dnsmasq)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test(DNSTools.trait()) func blockedNamesAndTheirSubdomainsGetNXDOMAIN() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, upstream throws in
            let port = server.localAddress.port
            // The long name makes a query of over 200 bytes (with dig's EDNS cookie): whole
            // datagrams are read, not the first 64 bytes.
            let long = String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63) + "." + String(repeating: "c", count: 40)
            for name in ["tracker.test", "a.b.tracker.test", "www.analytics.test", "\(long).tracker.test"] {
                let answer = try await Dig.query(name, port: port)
                #expect(answer.status == "NXDOMAIN", "\(name): \(answer.output)")
                #expect(answer.flags.contains("qr") && answer.flags.contains("ra"))
            }
            let overTCP = try await Dig.query("tracker.test", "AAAA", port: port, extra: ["+tcp"])
            #expect(overTCP.status == "NXDOMAIN", "\(overTCP.output)")
            #expect(!(upstream?.log.contains("tracker.test from") ?? true), "blocked names never reach the upstream")
        }
    }

    @Test(DNSTools.trait()) func otherNamesAreForwardedAndCached() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, upstream throws in
            let port = server.localAddress.port
            let first = try await Dig.query("www.example.test", port: port)
            #expect(first.status == "NOERROR", "\(first.output)")
            #expect(first.data == ["192.0.2.1"])
            let second = try await Dig.query("WWW.Example.TEST", port: port)
            #expect(second.data == ["192.0.2.1"])
            let ttl = second.answers.first?.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
            #expect(ttl.map { $0 <= 300 && $0 > 290 } == true, "the cached TTL: \(second.output)")
            #expect(second.answers.first?.hasPrefix("WWW.Example.TEST.") == true, "the client's spelling is echoed: \(second.output)")
            let queries = upstream?.log.lowercased().components(separatedBy: "query[a] www.example.test").count ?? 0
            #expect(queries - 1 == 1, "the second answer comes from the cache: \(upstream?.log ?? "")")
            #expect(server.cachedAnswers >= 1)
            let overTCP = try await Dig.query("tcp.example.test", port: port, extra: ["+tcp"])
            #expect(overTCP.data == ["192.0.2.1"], "\(overTCP.output)")
        }
    }

    @Test(DNSTools.trait()) func theAllowlistAndExceptionsWin() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, _ throws in
            let port = server.localAddress.port
            #expect(try await Dig.query("friend.tracker.test", port: port).data == ["192.0.2.7"], "allowlisted")
            #expect(try await Dig.query("ok.tracker.test", port: port).data == ["192.0.2.8"], "@@||ok.tracker.test^")
        }
    }

    @Test(DNSTools.trait()) func cnamesToBlockedNamesAreBlocked() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, _ throws in
            let port = server.localAddress.port
            let cloaked = try await Dig.query("cloaked.shop.test", port: port)
            #expect(cloaked.status == "NXDOMAIN", "CNAME to metrics.tracker.test: \(cloaked.output)")
            let clean = try await Dig.query("alias.shop.test", port: port)
            #expect(clean.status == "NOERROR", "\(clean.output)")
            #expect(clean.answers.contains { $0.contains("CNAME") && $0.contains("www.clean.test.") })
            #expect(clean.data.last == "192.0.2.5")
        }
    }

    @Test(DNSTools.trait()) func largeAnswersComeOverTCPFromTheUpstreamAndToTheClient() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, _ throws in
            let port = server.localAddress.port
            // dnsmasq sends at most 512 bytes over UDP: the full answer needs TCP upstream.
            let overTCP = try await Dig.query("big.example.test", "TXT", port: port, extra: ["+tcp"])
            #expect(overTCP.status == "NOERROR", "\(overTCP.output)")
            #expect(overTCP.output.contains(String(repeating: "h", count: 250)), "all eight strings arrived")
            let truncated = try await Dig.query("big.example.test", "TXT", port: port, extra: ["+ignore", "+bufsize=1232"])
            #expect(truncated.flags.contains("tc"), "too big for UDP: TC, so the client retries over TCP: \(truncated.output)")
            let retried = try await Dig.query("big.example.test", "TXT", port: port)
            #expect(retried.output.contains(String(repeating: "h", count: 250)), "dig retried over TCP by itself")
        }
    }

    @Test(DNSTools.trait()) func anUnreachableUpstreamGivesSERVFAIL() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer(upstreamDown: true) { server, _ throws in
            let port = server.localAddress.port
            let started = Date()
            let answer = try await Dig.query("www.example.test", port: port)
            #expect(answer.status == "SERVFAIL", "\(answer.output)")
            #expect(Date().timeIntervalSince(started) < 3, "two attempts of 400 ms")
            #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN", "blocking needs no upstream")
        }
    }

    @Test(DNSTools.trait()) func malformedPacketsAreDroppedOrRefusedAndTheServerGoesOn() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, _ throws in
            let port = server.localAddress.port
            let header: [UInt8] = [0x77, 0x01, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
            let formerr: [(String, [UInt8])] = [
                ("compression loop", header + [0xC0, 12, 0, 1, 0, 1]),
                ("forward pointer", header + [0xC0, 40, 0, 1, 0, 1]),
                ("label length overflow", header + [64] + Array(repeating: 97, count: 64) + [0, 0, 1, 0, 1]),
                ("label past the end", header + [63, 97, 97]),
                ("count beyond the data", [0x77, 0x01, 0x01, 0x00, 0, 40, 0, 0, 0, 0, 0, 0, 1, 97, 0, 0, 1, 0, 1]),
            ]
            for (label, bytes) in formerr {
                let reply = try #require(await RawDNS.exchange(bytes, port: port, timeout: 2), "\(label): an answer")
                #expect(reply.count == 12, "\(label): a bare FORMERR header")
                #expect(reply[0] == 0x77 && reply[1] == 0x01, "\(label): same ID")
                #expect(reply[3] & 0x0F == 1, "\(label): FORMERR")
            }
            #expect(await RawDNS.exchange([0x77, 0x01, 0x01], port: port, timeout: 0.5) == nil, "a truncated header is dropped")
            var random = SystemRandomNumberGenerator()
            for _ in 0..<300 {
                let bytes = (0..<Int.random(in: 0...700, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                _ = await RawDNS.exchange(bytes, port: port, timeout: 0.01)
            }
            let response = [0x77, 0x01, 0x81, 0x80] + header.dropFirst(4) + [1, 97, 0, 0, 1, 0, 1]
            #expect(await RawDNS.exchange(response, port: port, timeout: 0.5) == nil, "responses are never answered (no reflection)")
            #expect(try await Dig.query("www.example.test", port: port).data == ["192.0.2.1"], "still answering")
            #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN")
        }
    }

    @Test(DNSTools.trait()) func blockResponsesCanBeNullOrRefused() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer(filter: try Self.filter(response: .null)) { server, _ throws in
            let port = server.localAddress.port
            let a = try await Dig.query("tracker.test", port: port)
            #expect(a.status == "NOERROR")
            #expect(a.data == ["0.0.0.0"])
            #expect(a.answers.first?.contains("30") == true, "the block TTL: \(a.output)")
            #expect(try await Dig.query("tracker.test", "AAAA", port: port).data == ["::"])
            server.replaceFilter(try Self.filter(response: .refused))
            #expect(try await Dig.query("tracker.test", port: port).status == "REFUSED")
        }
    }

    @Test(DNSTools.trait()) func theBlockPageExplainsTheBlock() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        var filter = try Self.filter(response: .null)
        filter.nullIPv4 = IPAddress("127.0.0.1")!
        try await Self.withServer(filter: filter) { server, _ throws in
            let page = try await server.startBlockPage(at: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0))
            let port = server.localAddress.port
            #expect(try await Dig.query("ads.tracker.test", port: port).data == ["127.0.0.1"], "null answers point at the block page")
            let blocked = await RawHTTP.get(port: page.localAddress.port, host: "ads.tracker.test")
            #expect(blocked?.hasPrefix("HTTP/1.1 403") == true, "\(blocked ?? "no answer")")
            #expect(blocked?.contains("<b>ads.tracker.test</b> is blocked") == true)
            #expect(blocked?.contains("<code>||tracker.test^</code>") == true, "the rule")
            #expect(blocked?.contains("test.txt, line 1") == true, "the list and line")
            #expect(blocked?.contains("pepper allowlist add ads.tracker.test") == true)
            let notBlocked = await RawHTTP.get(port: page.localAddress.port, host: "www.example.test:8080")
            #expect(notBlocked?.hasPrefix("HTTP/1.1 200") == true)
            #expect(notBlocked?.contains("www.example.test is not blocked") == true, "\(notBlocked ?? "")")
            let hostile = await RawHTTP.get(port: page.localAddress.port, host: "<script>.tracker.test")
            #expect(hostile?.contains("<script>") == false, "the name is escaped")
            await page.shutdown()
        }
    }

    @Test(DNSTools.trait()) func struckEmployersNamesShowTheActionAndProceedAnywayLetsThatClientThrough() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        // The Picket blocklist under the `ask` policy: its domains are block rules too.
        let entry = BlocklistEntry(
            url: "acme.test", employer: "Acme Tools", employerId: "emp_acme", actionType: "strike", actionId: "act_a")
        let matcher = BlocklistMatcher(entries: [entry])
        func lookup(canProceed: Bool) -> PicketGate.Lookup {
            { host in
                matcher.match(host).map {
                    PicketNotice(
                        url: host, employer: $0.employer, employerId: $0.employerId, actionType: $0.actionType, source: "picket-test",
                        canProceed: canProceed)
                }
            }
        }
        let gate = PicketGate(lookup: lookup(canProceed: true), pageAddress: IPAddress("127.0.0.1")!)
        let filter = try Self.filter(Self.rules + "\n||acme.test^\n")
        try await Self.withServer(filter: filter, picket: gate) { server, _ throws in
            let page = try await server.startBlockPage(at: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0))
            defer { Task { await page.shutdown() } }
            let port = server.localAddress.port
            let notice = try await Dig.query("www.acme.test", port: port)
            #expect(notice.data == ["127.0.0.1"], "the employer's name leads to the block page: \(notice.output)")
            #expect(notice.answers.first?.contains("\t10\t") == true || notice.answers.first?.contains(" 10 ") == true, "a short TTL")
            #expect(try await Dig.query("acme.test", "AAAA", port: port).data.isEmpty, "no IPv6 page: no data")
            #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN", "other blocks are unchanged")

            let shown = await RawHTTP.get(port: page.localAddress.port, host: "www.acme.test")
            #expect(shown?.hasPrefix("HTTP/1.1 403") == true, "\(shown ?? "no answer")")
            #expect(shown?.contains("Picket line ahead: Acme Tools") == true && shown?.contains("strike") == true)
            #expect(shown?.contains("Proceed anyway") == true && shown?.contains("picket-test") == true)

            let proceeded = await RawHTTP.get(port: page.localAddress.port, host: "www.acme.test", path: "/proceed", method: "POST")
            #expect(proceeded?.hasPrefix("HTTP/1.1 200") == true, "\(proceeded ?? "no answer")")
            #expect(proceeded?.contains("for 24 hours") == true)
            #expect(try await Dig.query("www.acme.test", port: port).data == ["192.0.2.9"], "this client now reaches the employer")
            #expect(try await Dig.query("acme.test", port: port).data == ["192.0.2.9"], "all of the employer's names")
            let other = try await Dig.query("www.acme.test", port: port, extra: ["-b", "127.0.0.2"])
            #expect(other.data == ["127.0.0.1"], "another client still sees the page: \(other.output)")

            // The `block` policy: the page shows the action with no way through, for everyone.
            gate.replace(lookup: lookup(canProceed: false))
            #expect(try await Dig.query("www.acme.test", port: port).data == ["127.0.0.1"])
            let refused = await RawHTTP.get(port: page.localAddress.port, host: "www.acme.test", path: "/proceed", method: "POST")
            #expect(refused?.hasPrefix("HTTP/1.1 403") == true && refused?.contains("Proceed anyway") == false)
        }
    }

    @Test(DNSTools.trait()) func aNewFilterTakesOverWithoutDroppingQueries() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        try await Self.withServer { server, _ throws in
            let port = server.localAddress.port
            #expect(try await Dig.query("www.example.test", port: port).status == "NOERROR")
            let stop = Date().addingTimeInterval(1.5)
            // Queries keep coming while the engine is swapped back and forth.
            let swapper = Task {
                var index = 0
                while Date() < stop {
                    server.replaceFilter(try Self.filter(index % 2 == 0 ? "||example.test^\n" : Self.rules))
                    index += 1
                    try await Task.sleep(for: .milliseconds(20))
                }
                server.replaceFilter(try Self.filter("||example.test^\n"))
            }
            var answered = 0
            var sent = 0
            while Date() < stop {
                sent += 1
                if let reply = await RawDNS.exchange(RawDNS.query("tracker.test", id: UInt16(sent & 0xFFFF)), port: port, timeout: 1),
                    reply.count >= 12
                {
                    answered += 1
                }
            }
            try await swapper.value
            #expect(answered == sent, "every query answered during reloads (\(answered)/\(sent))")
            #expect(try await Dig.query("www.example.test", port: port).status == "NXDOMAIN", "the new engine decides")
            #expect(try await Dig.query("tracker.test", port: port).status != "NXDOMAIN", "and no longer blocks tracker.test")
        }
    }

    @Test(DNSTools.trait(["dig", "dnsmasq", "dnsperf"])) func dnsperfGetsEveryAnswer() async throws {
        try #require(Self.ready(), "dig and dnsmasq are needed")
        let dnsperf = try #require(DNSTools.path("dnsperf"), "dnsperf is needed")
        try await Self.withServer { server, _ throws in
            let queries = FileManager.default.temporaryDirectory.appendingPathComponent("dnsperf-\(UUID()).txt")
            defer { try? FileManager.default.removeItem(at: queries) }
            let lines = (0..<200).map { $0 % 2 == 0 ? "ads\($0).tracker.test A" : "host\($0 % 10).example.test A" }
            try lines.joined(separator: "\n").write(to: queries, atomically: true, encoding: .utf8)
            let output = try await ChildProcess.output(
                dnsperf, ["-s", "127.0.0.1", "-p", "\(server.localAddress.port)", "-d", queries.path, "-l", "2", "-Q", "2000"])
            #expect(output.contains("Queries lost:         0 "), "\(output)")
            #expect(output.contains("NXDOMAIN"), "\(output)")
        }
    }
}

@Suite("DNS client access")
struct ClientAccessServerTests {
    /// The resolver the server runs, asked as if by a client on another network (no such
    /// address exists on this machine: the socket address is given directly).
    @Test func clientsOutsideLoopbackAreRefusedUnlessAllowed() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let forwarder = try await UpstreamForwarder.make(
            upstreams: [.udp(host: IPAddress("127.0.0.1")!, port: 9)], timeout: .milliseconds(100), group: group, logger: logger)
        func resolver(_ access: ClientAccess) throws -> QueryResolver {
            QueryResolver(
                filters: DNSFilterSet(defaultFilter: try DNSServerTests.filter()), cache: ResponseCache(capacity: 10), forwarder: forwarder,
                access: access,
                logger: logger,
                observer: nil)
        }
        func code(_ step: QueryResolver.Step) -> UInt8? {
            guard case .reply(let bytes) = step, bytes.count >= 12 else { return nil }
            return bytes[3] & 0x0F
        }
        /// A client at `address`, as the UDP and TCP handlers make it.
        func client(_ address: SocketAddress, overTCP: Bool) -> DNSClient {
            DNSClient(address: QueryResolver.address(of: address), transport: overTCP ? .tcp : .udp)
        }
        var query = ByteBuffer()
        query.writeBytes(RawDNS.query("tracker.test"))
        let outsider = try SocketAddress(ipAddress: "192.0.2.5", port: 5353)
        let lan = try SocketAddress(ipAddress: "192.168.1.20", port: 5353)
        let loopback = try SocketAddress(ipAddress: "127.0.0.1", port: 5353)
        let mapped = try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 5353)
        let closed = try resolver(ClientAccess())
        #expect(code(closed.step(query, from: client(outsider, overTCP: false))) == 5, "REFUSED")
        #expect(code(closed.step(query, from: client(lan, overTCP: true))) == 5, "REFUSED over TCP too")
        #expect(code(closed.step(query, from: client(loopback, overTCP: false))) == 3, "loopback: NXDOMAIN for a blocked name")
        #expect(code(closed.step(query, from: client(mapped, overTCP: false))) == 3, "IPv4-mapped loopback")
        let home = try resolver(ClientAccess(allowed: [try CIDRBlock("192.168.1.0/24")]))
        #expect(code(home.step(query, from: client(lan, overTCP: false))) == 3, "inside --allow-clients")
        #expect(code(home.step(query, from: client(outsider, overTCP: false))) == 5, "outside it")
        // A client group's clients are answered, with the group's filter.
        let kids = ClientGroup(
            name: "kids", clients: [try CIDRBlock("192.0.2.0/28")], filter: try DNSServerTests.filter("||other.test^\n"))
        let grouped = QueryResolver(
            filters: DNSFilterSet(defaultFilter: try DNSServerTests.filter(), groups: [kids]), cache: ResponseCache(capacity: 10),
            forwarder: forwarder, access: ClientAccess(), logger: logger, observer: nil)
        var other = ByteBuffer()
        other.writeBytes(RawDNS.query("www.other.test"))
        #expect(code(grouped.step(other, from: client(outsider, overTCP: false))) == 3, "192.0.2.5 is in the group: its list blocks")
        #expect(code(grouped.step(other, from: client(loopback, overTCP: false))) == nil, "loopback: the default filter forwards it")
        #expect(code(grouped.step(query, from: client(lan, overTCP: false))) == 5, "outside the group and --allow-clients: REFUSED")
        await forwarder.close()
        try await group.shutdownGracefully()
    }
}

@Suite("DNS response cache")
struct ResponseCacheTests {
    static func response(_ code: DNSResponseCode, answers: [DNSRecord] = [], authorities: [DNSRecord] = []) throws -> DNSMessage {
        var message = try DNSMessage(decoding: RawDNS.query("x.test"))
        message.header.flags.isResponse = true
        message.header.flags.responseCode = code
        message.answers = answers
        message.authorities = authorities
        return message
    }

    @Test func answersLiveForTheirSmallestTTLAndAge() throws {
        let name = try DNSName("x.test")
        let cache = ResponseCache(capacity: 10)
        let key = ResponseCache.Key(DNSQuestion(name: name, type: .a), dnssecOK: false)
        let answer = try Self.response(
            .noError, answers: [.a(name, IPAddress("192.0.2.1")!, ttl: 100), .a(name, IPAddress("192.0.2.2")!, ttl: 30)])
        cache.store(answer, for: key, now: 0)
        #expect(cache.lookup(key, now: 10_000_000_000)?.answers.map(\.ttl) == [90, 20], "TTLs lowered by 10 s")
        #expect(cache.lookup(key, now: 31_000_000_000) == nil, "gone after the smallest TTL")
        #expect(cache.count == 0)
        let upper = ResponseCache.Key(DNSQuestion(name: try DNSName("X.TEST"), type: .a), dnssecOK: false)
        cache.store(answer, for: key, now: 0)
        #expect(cache.lookup(upper, now: 0) != nil, "keys ignore case")
    }

    /// RFC 4035 §3.2.2 and RFC 3225 §3: an answer to a CD=1 query (not validated upstream) is
    /// never a CD=0 query's, and one asked with DO (with RRSIGs) never a query's without DO.
    @Test func answersToCDAndDOQueriesAreKeptApart() throws {
        let name = try DNSName("x.test")
        let question = DNSQuestion(name: name, type: .a)
        let cache = ResponseCache(capacity: 10)
        let plain = ResponseCache.Key(question, dnssecOK: false, checkingDisabled: false)
        let unchecked = ResponseCache.Key(question, dnssecOK: false, checkingDisabled: true)
        let signed = ResponseCache.Key(question, dnssecOK: true, checkingDisabled: false)
        cache.store(try Self.response(.noError, answers: [.a(name, IPAddress("192.0.2.66")!, ttl: 100)]), for: unchecked, now: 0)
        #expect(cache.lookup(unchecked, now: 0)?.answers.first?.address == IPAddress("192.0.2.66"))
        #expect(cache.lookup(plain, now: 0) == nil, "not validated: never for a CD=0 query")
        cache.store(try Self.response(.noError, answers: [.a(name, IPAddress("192.0.2.1")!, ttl: 100)]), for: signed, now: 0)
        #expect(cache.lookup(plain, now: 0) == nil, "asked with DO: never for a query without DO")
        #expect(cache.lookup(signed, now: 0)?.answers.first?.address == IPAddress("192.0.2.1"))
        #expect(cache.lookup(unchecked, now: 0)?.answers.first?.address == IPAddress("192.0.2.66"), "each kept")
    }

    @Test func negativeAnswersLiveForTheSOAMinimum() throws {
        let soa = DNSRecord.soa(
            try DNSName("test"),
            SOAData(
                primaryServer: try DNSName("ns.test"), responsible: try DNSName("h.test"), serial: 1, refresh: 1, retry: 1, expire: 1,
                minimum: 15),
            ttl: 600)
        #expect(ResponseCache.lifetime(of: try Self.response(.nameError, authorities: [soa])) == 15)
        #expect(ResponseCache.lifetime(of: try Self.response(.noError, authorities: [soa])) == 15, "no data")
        #expect(ResponseCache.lifetime(of: try Self.response(.nameError)) == nil, "no SOA: not cached")
        #expect(ResponseCache.lifetime(of: try Self.response(.serverFailure, authorities: [soa])) == nil)
    }

    @Test func theCacheIsBounded() throws {
        let cache = ResponseCache(capacity: 64)
        for index in 0..<1000 {
            let name = try DNSName("n\(index).test")
            cache.store(
                try Self.response(.noError, answers: [.a(name, IPAddress("192.0.2.1")!, ttl: 300)]),
                for: .init(DNSQuestion(name: name, type: .a), dnssecOK: false), now: 0)
            #expect(cache.count <= 64)
        }
        #expect(cache.count > 32)
    }
}
