import DNSFilter
import FilterEngine
import FilterLists
import Testing

@Suite("DNS filtering policy")
struct DNSQueryFilterTests {
    static func filter(_ rules: String, allowlist: [String] = [], response: BlockResponse = .nxdomain) throws -> DNSQueryFilter {
        let list = try FilterListParser().parse(rules, name: "test.txt")
        return DNSQueryFilter(engine: FilterEngine(lists: [list], allowlist: allowlist), blockResponse: response, blockTTL: 42)
    }

    static let rules = """
        ||tracker.test^
        @@||ok.tracker.test^
        ||analytics.test^$script,third-party,xmlhttprequest
        ||links.test^$image
        """

    @Test func namesAndTheirParentsAreJudged() throws {
        let filter = try Self.filter(Self.rules, allowlist: ["friend.tracker.test"])
        #expect(filter.decision(for: try DNSName("tracker.test")) == .block)
        #expect(filter.decision(for: try DNSName("a.b.Tracker.TEST.")) == .block, "subdomains, any case")
        #expect(filter.decision(for: try DNSName("x.ok.tracker.test")) == .allow, "an exception wins")
        #expect(filter.decision(for: try DNSName("friend.tracker.test")) == .forward, "the allowlist wins")
        #expect(filter.isExplicitlyAllowed(try DNSName("www.friend.tracker.test")))
        #expect(!filter.isExplicitlyAllowed(try DNSName("example.test")))
        #expect(filter.decision(for: try DNSName("www.analytics.test")) == .block, "third-party script/XHR host")
        #expect(filter.decision(for: try DNSName("links.test")) == .forward, "images only, any party: a browser rule")
        #expect(filter.decision(for: try DNSName("example.test")) == .forward)
        #expect(filter.decision(for: .root) == .forward)
        #expect(filter.explanation(for: try DNSName("x.tracker.test")).rule?.text == "||tracker.test^")
    }

    @Test func blockedNamesAreAnsweredAsConfigured() throws {
        let query = try DNSMessageTests.query("ads.tracker.test", .a, id: 7, edns: EDNS(udpPayloadSize: 4096))
        let nx = try Self.filter(Self.rules).blockedResponse(to: query)
        #expect(nx.header.id == 7)
        #expect(nx.header.flags.isResponse && nx.header.flags.recursionAvailable && nx.header.flags.recursionDesired)
        #expect(nx.responseCode == .nameError)
        #expect(nx.questions == query.questions)
        #expect(nx.authorities.first?.soa?.minimum == 42, "clients cache the block for the block TTL")
        #expect(nx.edns != nil, "EDNS answered")

        let null = try Self.filter(Self.rules, response: .null)
        let a = null.blockedResponse(to: query)
        #expect(a.responseCode == .noError)
        #expect(a.answers.first?.address == IPAddress("0.0.0.0"))
        #expect(a.answers.first?.ttl == 42)
        let aaaa = null.blockedResponse(to: try DNSMessageTests.query("ads.tracker.test", .aaaa))
        #expect(aaaa.answers.first?.address == IPAddress("::"))
        let txt = null.blockedResponse(to: try DNSMessageTests.query("ads.tracker.test", .txt))
        #expect(txt.answers.isEmpty && txt.responseCode == .noError, "no data for other types")

        let refused = try Self.filter(Self.rules, response: .refused).blockedResponse(to: query)
        #expect(refused.responseCode == .refused)
        #expect(try DNSMessage(decoding: refused.encoded()).responseCode == .refused)

        // RFC 3225 §3: DO copied into the answer's OPT record; RFC 4035 §3.2.2: CD copied.
        var signed = try DNSMessageTests.query("ads.tracker.test", .a, id: 8, edns: EDNS(udpPayloadSize: 4096, dnssecOK: true))
        signed.header.flags.checkingDisabled = true
        let answer = try DNSMessage(decoding: try Self.filter(Self.rules).blockedResponse(to: signed).encoded())
        #expect(answer.edns?.dnssecOK == true && answer.header.flags.checkingDisabled)
        #expect(nx.edns?.dnssecOK == false && !nx.header.flags.checkingDisabled, "nothing set that was not asked")
    }

    @Test func cnameChainsToBlockedNamesAreFound() throws {
        let filter = try Self.filter(Self.rules)
        var response = try DNSMessageTests.query("shop.example", .a)
        response.header.flags.isResponse = true
        let cloaked = try DNSName("metrics.shop.example")
        response.answers = [
            .cname(try DNSName("shop.example"), target: cloaked, ttl: 60),
            .cname(cloaked, target: try DNSName("c1.tracker.test"), ttl: 60),
            .a(try DNSName("c1.tracker.test"), IPAddress("192.0.2.9")!, ttl: 60),
        ]
        #expect(filter.blockedNameInAnswers(of: response) == (try DNSName("c1.tracker.test")))
        response.answers.removeLast(2)
        #expect(filter.blockedNameInAnswers(of: response) == nil)
    }

    @Test func addressesAndBlocksParse() throws {
        #expect(IPAddress("127.0.0.1")?.isLoopback == true)
        #expect(IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("::ffff:127.0.0.2")?.isLoopback == true, "IPv4-mapped, as dual-stack sockets report")
        #expect(IPAddress("192.0.2.1")?.isLoopback == false)
        #expect(IPAddress("300.1.1.1") == nil)
        #expect(IPAddress("2001:db8::1")?.description == "2001:db8::1")

        let lan = try CIDRBlock("192.168.1.7/24")
        #expect(lan.description == "192.168.1.0/24")
        #expect(lan.contains(IPAddress("192.168.1.200")!))
        #expect(!lan.contains(IPAddress("192.168.2.1")!))
        #expect(lan.contains(IPAddress("::ffff:192.168.1.9")!))
        let v6 = try CIDRBlock("fd00::/8")
        #expect(v6.contains(IPAddress("fd12:3456::1")!))
        #expect(!v6.contains(IPAddress("fe80::1")!))
        #expect(!v6.contains(IPAddress("10.0.0.1")!))
        #expect(try CIDRBlock("0.0.0.0/0").contains(IPAddress("203.0.113.5")!))
        #expect(throws: CIDRBlock.ParseError.self) { try CIDRBlock("192.168.1.0/33") }
        #expect(throws: CIDRBlock.ParseError.self) { try CIDRBlock("example.com/24") }
        #expect(throws: CIDRBlock.ParseError.self) { try CIDRBlock("10.0.0.0/-1") }

        let loopbackOnly = ClientAccess()
        #expect(loopbackOnly.permits(IPAddress("127.0.0.1")!))
        #expect(loopbackOnly.permits(IPAddress("127.8.9.10")!))
        #expect(loopbackOnly.permits(IPAddress("::1")!))
        #expect(!loopbackOnly.permits(IPAddress("192.168.1.5")!), "outside loopback: refused by default")
        #expect(!loopbackOnly.permits(IPAddress("::")!))
        let home = ClientAccess(allowed: [lan, v6])
        #expect(home.permits(IPAddress("192.168.1.5")!))
        #expect(home.permits(IPAddress("fd00::5")!))
        #expect(!home.permits(IPAddress("10.1.1.1")!))
    }

    @Test func listenAndUpstreamAddressesParse() throws {
        #expect(try ListenAddress("127.0.0.1:5335") == ListenAddress(host: IPAddress("127.0.0.1")!, port: 5335))
        #expect(try ListenAddress("[::1]:53").description == "[::1]:53")
        #expect(try ListenAddress("localhost:53") == ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 53))
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress("dns.example:53") }
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress("127.0.0.1:70000") }
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress("127.0.0.1") }
        #expect(try UpstreamAddress("9.9.9.9") == .udp(host: IPAddress("9.9.9.9")!, port: 53))
        #expect(try UpstreamAddress("127.0.0.1:15354") == .udp(host: IPAddress("127.0.0.1")!, port: 15354))
        #expect(try UpstreamAddress("[2620:fe::fe]:5353") == .udp(host: IPAddress("2620:fe::fe")!, port: 5353))
        #expect(try UpstreamAddress("tls://dns.quad9.net") == .tls(host: "dns.quad9.net", port: 853, serverName: nil))
        #expect(try UpstreamAddress("https://dns.example/dns-query").description == "https://dns.example/dns-query")
        #expect(throws: UpstreamAddress.ParseError.self) { try UpstreamAddress("dns.example") }
        #expect(throws: UpstreamAddress.ParseError.self) { try UpstreamAddress("1.2.3.4:0") }
        #expect(throws: UpstreamAddress.ParseError.self) { try UpstreamAddress("ftp://1.2.3.4") }
    }

    @Test func eachClientGetsTheFilterOfTheNarrowestGroupHoldingIt() throws {
        let base = try Self.filter("||base.test^\n")
        let house = try Self.filter("||house.test^\n")
        let kids = try Self.filter("||kids.test^\n")
        let twin = try Self.filter("||twin.test^\n")
        let phones = try Self.filter("||phones.test^\n")
        let set = DNSFilterSet(
            defaultFilter: base,
            groups: [
                ClientGroup(name: "house", clients: [try CIDRBlock("192.168.1.0/24"), try CIDRBlock("fd00::/8")], filter: house),
                ClientGroup(name: "kids", clients: [try CIDRBlock("192.168.1.64/26")], filter: kids),
                ClientGroup(name: "twin", clients: [try CIDRBlock("192.168.1.64/26")], filter: twin),
                ClientGroup(name: "phones", clients: [try CIDRBlock("fd00:1::/32")], filter: phones),
            ])
        func group(_ address: String) -> String? { set.group(for: IPAddress(address)!)?.name }
        #expect(group("192.168.1.10") == "house")
        #expect(group("192.168.1.70") == "kids", "narrower than house; first of the two equal /26 blocks")
        #expect(group("::ffff:192.168.1.70") == "kids", "an IPv4-mapped client is the IPv4 client")
        #expect(group("fd00:1::5") == "phones")
        #expect(group("fd00:2::5") == "house")
        #expect(group("10.0.0.1") == nil)
        #expect(set.filter(for: IPAddress("192.168.1.70")!).decision(for: try DNSName("kids.test")) == .block)
        #expect(set.filter(for: IPAddress("192.168.1.70")!).decision(for: try DNSName("house.test")) == .forward)
        #expect(set.filter(for: IPAddress("10.0.0.1")!).decision(for: try DNSName("base.test")) == .block, "no group: the default")
        #expect(DNSFilterSet(defaultFilter: base).filter(for: IPAddress("192.168.1.70")!).decision(for: try DNSName("base.test")) == .block)
    }
}
