import AppExtensionSupport
import AppSupport
import DNSFilter
import DNSTestSupport
import Foundation
import PepperActions
import Screens
import Storage
import Testing

/// Where the phone's DNS protection sends the names it does not answer itself: the person's
/// choice, stored and checked through PepperActions, carried to the tunnel in its configuration,
/// and used — against real DNS servers (dnsmasq, and dnsdist speaking DNS over HTTP).
@Suite("Tunnel upstream")
struct TunnelUpstreamTests {
    static let resolver = ResolverAddress(host: IPAddress("192.0.2.53")!)

    @Test func theChoiceIsStoredAndCheckedThroughPepperActions() throws {
        let temporary = TemporaryContainer()
        let state = temporary.state
        #expect(try state.dnsUpstreamChoice() == .network, "the network's resolvers unless the person chooses")

        // A DNS-over-HTTPS server: https only, a host, the path defaulting to /dns-query.
        let encrypted = try state.setDNSUpstream(kind: .dnsOverHTTPS, address: " https://dns.example.net ")
        #expect(encrypted == .dnsOverHTTPS(URL(string: "https://dns.example.net/dns-query")!))
        #expect(try PreferenceStore(database: state.database).value(.dnsUpstream) == "dns-over-https https://dns.example.net/dns-query")
        #expect(try state.dnsUpstreamChoice() == encrypted)
        for bad in ["http://dns.example.net/dns-query", "dns.example.net/dns-query", "https://", "https://bad host/q", "tls://9.9.9.9", ""]
        {
            #expect(throws: ActionError.self, "\(bad)") { try state.setDNSUpstream(kind: .dnsOverHTTPS, address: bad) }
        }
        let plainHTTP = #expect(throws: ActionError.self) {
            try state.setDNSUpstream(kind: .dnsOverHTTPS, address: "http://dns.example.net")
        }
        #expect(
            plainHTTP?.description
                == "give the server's DNS-over-HTTPS address, such as https://dns.example.net/dns-query (it does not start with https://)")
        #expect(try state.dnsUpstreamChoice() == encrypted, "a refused address changes nothing")

        // The person's own Pepper: IP:PORT on their network, not the phone itself.
        let pepper = try state.setDNSUpstream(kind: .pepper, address: "192.168.1.10:5335")
        #expect(pepper == .pepper(try ListenAddress("192.168.1.10:5335")))
        #expect(try state.setDNSUpstream(kind: .pepper, address: "[fd00::10]:53").address == "[fd00::10]:53")
        for bad in [
            "192.168.1.10", "pepper.lan:5335", "127.0.0.1:5335", "[::1]:5335", "0.0.0.0:5335", "192.168.1.10:0", "192.168.1.10:99999",
        ] {
            let error = #expect(throws: ActionError.self, "\(bad)") { try state.setDNSUpstream(kind: .pepper, address: bad) }
            guard case .invalidField("address", .dnsServerAddressNeeded)? = error else {
                Issue.record("\(bad): \(String(describing: error))")
                continue
            }
        }
        let loopback = #expect(throws: ActionError.self) { try state.setDNSUpstream(kind: .pepper, address: "127.0.0.1:5335") }
        #expect(loopback?.description.contains("127.0.0.1 is the phone itself, not the machine that runs pepper dns serve") == true)

        // Back to the network's resolvers: nothing is stored for the default.
        #expect(try state.setDNSUpstream(kind: .network, address: "ignored") == .network)
        #expect(try PreferenceStore(database: state.database).value(.dnsUpstream) == nil)
        // A stored value is checked again when read (it comes from outside the process).
        try PreferenceStore(database: state.database).set(.dnsUpstream, "cloudflare")
        #expect(throws: ActionError.invalidField(field: "kind", problem: .unknownChoice(["network", "dns-over-https", "pepper"]))) {
            try state.dnsUpstreamChoice()
        }
        #expect(throws: ActionError.self) { try DNSUpstreamChoice(stored: "dns-over-https http://1.1.1.1/dns-query") }
    }

    @Test func theTunnelsConfigurationCarriesTheChoiceAndTheNetworksResolvers() throws {
        // The network's resolvers as the system gives them, link-local IPv6 with its interface.
        #expect(ResolverAddress("192.168.1.1") == ResolverAddress(host: IPAddress("192.168.1.1")!))
        #expect(ResolverAddress("192.168.1.1:5353")?.port == 5353)
        #expect(ResolverAddress("fe80::1%4") == ResolverAddress(host: IPAddress("fe80::1")!, scope: 4))
        #expect(ResolverAddress("[fe80::1%4]:53")?.description == "fe80::1%4")
        #expect(ResolverAddress("[fe80::1%4]:5300")?.description == "[fe80::1%4]:5300")
        #expect(ResolverAddress("[2001:db8::1]:5300")?.description == "[2001:db8::1]:5300")
        for bad in ["", "resolver.lan", "192.168.1.1:0", "192.168.1.1%4", "fe80::1%en0", "[fe80::1"] {
            #expect(ResolverAddress(bad) == nil, "\(bad)")
        }

        let read = ["192.168.1.1", "fe80::1%4", "192.168.1.1"].compactMap(ResolverAddress.init)
        let upstream = TunnelUpstream(choice: .network, networkResolvers: TunnelUpstream.usableResolvers(read))
        #expect(upstream.networkResolvers.map(\.description) == ["192.168.1.1", "fe80::1%4"], "in order, once each")
        // Round trip through the tunnel's configuration (property-list values) and the app message (JSON).
        let configuration = upstream.providerConfiguration
        #expect(configuration[TunnelUpstream.Key.choice] as? String == "network")
        #expect(configuration[TunnelUpstream.Key.networkResolvers] as? [String] == ["192.168.1.1", "fe80::1%4"])
        #expect(try TunnelUpstream(providerConfiguration: configuration) == upstream)
        let pepper = TunnelUpstream(choice: .pepper(try ListenAddress("192.168.1.10:5335")), networkResolvers: [Self.resolver])
        #expect(TunnelMessage(data: TunnelMessage.upstream(pepper).data) == .upstream(pepper))
        #expect(TunnelMessage(data: Data("reload".utf8)) == .reload)
        #expect(TunnelMessage(data: Data("{}".utf8)) == .reload, "anything unreadable is only a reload")

        // Read while the tunnel runs, the system names the tunnel itself: those are dropped, and
        // the resolvers read before are kept.
        let whileRunning = ["198.18.0.53", "fd70:6570:7065::53"].compactMap(ResolverAddress.init)
        #expect(TunnelUpstream.usableResolvers(whileRunning, previous: [Self.resolver]) == [Self.resolver])
        #expect(TunnelUpstream.usableResolvers([], previous: [Self.resolver]) == [Self.resolver])

        #expect(throws: TunnelUpstreamError.notConfigured) { try TunnelUpstream(providerConfiguration: nil) }
        #expect(throws: TunnelUpstreamError.notConfigured) { try TunnelUpstream(providerConfiguration: ["other": 1]) }
        #expect(throws: TunnelUpstreamError.badResolver("resolver.lan")) {
            try TunnelUpstream(providerConfiguration: [
                TunnelUpstream.Key.choice: "network", TunnelUpstream.Key.networkResolvers: ["resolver.lan"],
            ])
        }
        #expect(throws: TunnelUpstreamError.self) {
            try TunnelUpstream(providerConfiguration: [TunnelUpstream.Key.choice: "dns-over-https http://example.net/q"])
        }
        #expect(TunnelUpstreamError.notConfigured.description.contains("turn DNS protection off and on again"))
        // The network's resolvers chosen but none read: refused, rather than failing every name.
        #expect(throws: TunnelUpstreamError.noNetworkResolvers) { try TunnelUpstream(choice: .network, networkResolvers: []).checked() }
        #expect(try upstream.checked() == upstream)
        #expect(
            try TunnelUpstream(choice: .pepper(try ListenAddress("192.168.1.10:5335")), networkResolvers: []).checked().networkResolvers
                .isEmpty)
    }

    @Test func eachChoiceMakesItsOwnUpstreamAndNoneIsBuiltIn() throws {
        let network = TunnelUpstream(choice: .network, networkResolvers: [Self.resolver]).upstream()
        #expect((network as? PlainDNSUpstream)?.servers == [Self.resolver], "the network's resolvers, and only them")

        let byAddress = TunnelUpstream(
            choice: .dnsOverHTTPS(URL(string: "https://192.0.2.9/dns-query")!), networkResolvers: [Self.resolver])
        #expect(
            (byAddress.upstream() as? DNSOverHTTPSUpstream)?.url.absoluteString == "https://192.0.2.9/dns-query", "an address: no lookup")

        let byName = TunnelUpstream(
            choice: .dnsOverHTTPS(URL(string: "https://dns.example.net/dns-query")!), networkResolvers: [Self.resolver])
        let bootstrapped = try #require(byName.upstream() as? BootstrappedUpstream)
        #expect(bootstrapped.serverName == "dns.example.net")
        #expect((bootstrapped.bootstrap as? PlainDNSUpstream)?.servers == [Self.resolver], "its own name through the network's resolvers")
        #expect((bootstrapped.upstream as? DNSOverHTTPSUpstream)?.url.absoluteString == "https://dns.example.net/dns-query")

        let own = TunnelUpstream(choice: .pepper(try ListenAddress("192.168.1.10:5335")), networkResolvers: [Self.resolver]).upstream()
        #expect((own as? PlainDNSUpstream)?.servers == [ResolverAddress(host: IPAddress("192.168.1.10")!, port: 5335)])

        // What each says leaves the phone.
        #expect(DNSUpstreamChoice.network.privacyStatement.contains("unencrypted, to the resolvers of the network you are on"))
        #expect(
            DNSUpstreamChoice.dnsOverHTTPS(URL(string: "https://dns.example.net/dns-query")!).privacyStatement.contains(
                "encrypted, to dns.example.net, which sees the names and your IP address. Its own name, dns.example.net, is looked up through the network's resolvers."
            ))
        #expect(!DNSUpstreamChoice.dnsOverHTTPS(URL(string: "https://192.0.2.9/dns-query")!).privacyStatement.contains("Its own name"))
        // The tunnel's lookup and the sentence about it follow one answer (serverNameToLookUp).
        for address in ["https://192.0.2.9/dns-query", "https://dns.example.net/dns-query", "https://[2001:db8::1]/dns-query"] {
            let choice = DNSUpstreamChoice.dnsOverHTTPS(URL(string: address)!)
            let looksUp = TunnelUpstream(choice: choice, networkResolvers: [Self.resolver]).upstream() is BootstrappedUpstream
            #expect(looksUp == choice.privacyStatement.contains("Its own name"), "\(address)")
            #expect(looksUp == (choice.serverNameToLookUp != nil), "\(address)")
        }
        #expect(
            DNSUpstreamChoice.pepper(try ListenAddress("192.168.1.10:5335")).privacyStatement.contains(
                "unencrypted, to your Pepper at 192.168.1.10:5335"))
        for choice in [DNSUpstreamChoice.network, .pepper(try ListenAddress("192.168.1.10:5335"))] {
            #expect(
                choice.privacyStatement.hasPrefix(
                    "Names of struck employers' sites under the ask and block policies are answered on the phone and never sent."))
        }
    }

    /// A DNS query for `name` as a device sends it (ID `id`).
    static func query(_ name: String, id: UInt16) throws -> [UInt8] {
        var flags = DNSFlags(rawValue: 0)
        flags.recursionDesired = true
        return DNSMessage(header: DNSHeader(id: id, flags: flags), questions: [DNSQuestion(name: try DNSName(name), type: .a)]).encoded()
    }

    /// The addresses of the answer the tunnel wrote for `packet`.
    static func addresses(_ outcome: DNSTunnel.Outcome) throws -> [IPAddress] {
        try DNSTunnelTests.message(outcome).answers.compactMap(\.address)
    }

    @Test(DNSTools.trait(["dnsmasq", "dnsdist"])) func theTunnelForwardsToTheNetworksResolversAndToADNSOverHTTPSServerOnlyWhenChosen()
        async throws
    {
        // "The network": a resolver that says 192.0.2.1; "the DNS-over-HTTPS server": another, behind dnsdist, that says 192.0.2.2.
        let network = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1", "--log-queries"])
        let behind = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.2", "--address=/check.test/192.0.2.3", "--log-queries"])
        let encrypted = try await PlainDNSOverHTTP(backendPort: behind.port, checkName: "check.test")
        defer {
            encrypted.stop()
            network.stop()
            behind.stop()
        }
        let temporary = TemporaryContainer()
        let resolvers = [ResolverAddress(host: IPAddress("127.0.0.1")!, port: network.port)]
        let viaNetwork = TunnelUpstream(choice: .network, networkResolvers: resolvers)
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: viaNetwork.upstream()), notifier: RecordingAsker())

        let first = await tunnel.handle(try DNSTunnelTests.query("www.example.test", id: 41))
        #expect(first.answer == .forwarded)
        #expect(try Self.addresses(first) == [IPAddress("192.0.2.1")!], "the network's resolver answered")
        #expect(try DNSTunnelTests.message(first).header.id == 41, "with the device's own query ID")
        #expect(network.log.contains("query[A] www.example.test"))
        #expect(!behind.log.contains("www.example.test"), "nothing went to the DNS-over-HTTPS server")

        // The person chooses the DNS-over-HTTPS server (the app sends the tunnel the new upstream).
        let viaHTTPS = TunnelUpstream(choice: .dnsOverHTTPS(encrypted.url), networkResolvers: resolvers)
        await tunnel.forward(to: viaHTTPS.upstream())
        let second = await tunnel.handle(try DNSTunnelTests.query("mail.example.test", id: 42))
        #expect(second.answer == .forwarded)
        #expect(try Self.addresses(second) == [IPAddress("192.0.2.2")!], "the chosen server answered")
        #expect(behind.log.contains("query[A] mail.example.test"))
        #expect(!network.log.contains("mail.example.test"), "and the network's resolver saw nothing of it")
    }

    @Test(DNSTools.trait(["dnsmasq"])) func thePlainUpstreamTriesTheNextServerAndChecksTheAnswer() async throws {
        let server = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1"])
        defer { server.stop() }
        let silent = try SilentUDPSocket()
        let live = ResolverAddress(host: IPAddress("127.0.0.1")!, port: server.port)
        let dead = ResolverAddress(host: IPAddress("127.0.0.1")!, port: silent.port)
        let upstream = PlainDNSUpstream(servers: [dead, live], timeout: 0.5)
        let started = ContinuousClock.now
        let answer = try DNSMessage(decoding: try await upstream.resolve(try Self.query("example.test", id: 7)))
        #expect(answer.header.id == 7 && answer.answers.compactMap(\.address) == [IPAddress("192.0.2.1")!])
        #expect(ContinuousClock.now - started >= .milliseconds(450), "the silent server was given its time first")
        await #expect(throws: PlainDNSError.timeout(dead)) {
            try await PlainDNSUpstream(servers: [dead], timeout: 0.3).resolve(try Self.query("example.test", id: 8))
        }
        await #expect(throws: PlainDNSError.noServer) {
            try await PlainDNSUpstream(servers: []).resolve(try Self.query("example.test", id: 9))
        }
        #expect(silent.received > 0, "the silent server was asked")

        // An answer is taken only with the query's ID and question (RFC 5452).
        let query = try Self.query("example.test", id: 0x1234)
        var response = DNSMessage.response(to: try DNSMessage(decoding: query))
        #expect(PlainDNSUpstream.answers(query, response.encoded()))
        response.header.id = 0x1235
        #expect(!PlainDNSUpstream.answers(query, response.encoded()))
        let other = DNSMessage.response(to: try DNSMessage(decoding: try Self.query("other.test", id: 0x1234)))
        #expect(!PlainDNSUpstream.answers(query, other.encoded()))
        #expect(!PlainDNSUpstream.answers(query, query), "a query is not an answer")
    }

    @Test(DNSTools.trait(["dnsmasq"])) func theSettingsSayWhatLeavesThePhoneAndTestTheServer() async throws {
        let temporary = TemporaryContainer()
        let screen = ProtectionSettingsScreen(state: temporary.state)
        var state = try await screen.load()
        #expect(state.alertMode == .overlay && state.upstream == .network && state.privacy == DNSUpstreamChoice.network.privacyStatement)

        let refused = await screen.setUpstream(kind: "pepper", address: "127.0.0.1:5335")
        #expect(refused.isError && refused.field == "address")
        #expect(refused.text.hasPrefix("Give your Pepper's address as IP:PORT on your network"))
        #expect(await screen.setUpstream(kind: "cloudflare", address: "").isError)

        // A server that answers, and one that does not: both are saved, the second with a warning.
        let answered = await screen.setUpstream(kind: "pepper", address: "192.168.1.10:5335") { _ in .answered(milliseconds: 12) }
        #expect(answered.kind == .success)
        #expect(
            answered.text
                == "DNS protection sends the names it does not answer to your Pepper at 192.168.1.10:5335. It answered a test query in 12 ms."
        )
        let silent = await screen.setUpstream(kind: "dns-over-https", address: "https://dns.example.net/dns-query") { _ in
            .failed("timeout")
        }
        #expect(silent.kind == .warning && silent.text.contains("It did not answer a test query (timeout)"))
        state = try await screen.load()
        #expect(state.upstream == .dnsOverHTTPS(URL(string: "https://dns.example.net/dns-query")!))
        #expect(state.privacy.contains("encrypted, to dns.example.net"))
        #expect(await screen.setAlertMode("banner").kind == .success)
        #expect(try await screen.load().alertMode == .banner)
        #expect(await screen.setAlertMode("loud").field == "alerts")

        // The app's probe: the tunnel's own upstream code, against a real server.
        let server = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1"])
        defer { server.stop() }
        let probe = await DNSUpstreamProbe.probe(.pepper(ListenAddress(host: IPAddress("127.0.0.1")!, port: server.port)))
        guard case .answered(let milliseconds) = probe else {
            Issue.record("dnsmasq answers the test query: \(probe)")
            return
        }
        #expect(milliseconds >= 0 && milliseconds < 4_000)
        let silentSocket = try SilentUDPSocket()
        let unanswered = await DNSUpstreamProbe.probe(
            .pepper(ListenAddress(host: IPAddress("127.0.0.1")!, port: silentSocket.port)), timeout: 0.3)
        #expect(unanswered == .failed("127.0.0.1:\(silentSocket.port) did not answer in time"))
    }
}

/// A UDP socket on a loopback port that reads what it is sent and never answers.
final class SilentUDPSocket: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32
    private let thread: Thread
    private let counter: Counter

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw CocoaError(.fileWriteUnknown) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let counter = Counter()
        thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 2048)
            while true {
                let read = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if read < 0 { return }
                counter.add()
            }
        }
        self.counter = counter
        thread.start()
    }

    /// Datagrams read so far.
    var received: Int { counter.value }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
