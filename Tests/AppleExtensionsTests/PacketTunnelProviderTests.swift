#if !canImport(ObjectiveC)
import AppExtensionSupport
import AppleExtensions
@_spi(ShimTesting) import AppleShims
@_spi(ShimTesting) import AppleTestSupport
import DNSFilter
import DNSTestSupport
import Foundation
import PepperActions
import Picket
import Testing

/// An upstream that answers every A query with 192.0.2.80, or fails, recording the queries.
final class FakeUpstream: DNSUpstream, @unchecked Sendable {
    let queries = Locked<[[UInt8]]>([])
    let failing: Bool

    init(failing: Bool = false) {
        self.failing = failing
    }

    func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        queries.withLock { $0.append(query) }
        if failing { throw DNSUpstreamError.status(502) }
        let message = try DNSMessage(decoding: query)
        var response = DNSMessage.response(to: message)
        response.answers = [.a(message.questions[0].name, IPAddress("192.0.2.80")!, ttl: 300)]
        return response.encoded()
    }

    /// The names asked, in order.
    var names: [String] { queries.current.compactMap { try? DNSMessage(decoding: $0).questions.first?.name.lowercasedHost } }
}

/// Records the tunnel's questions instead of showing them.
final class RecordingAsker: PicketAskNotifier {
    private let questions = Locked<[PicketAskNotification]>([])

    func ask(_ notification: PicketAskNotification) {
        questions.withLock { $0.append(notification) }
    }

    /// Every question asked, in order.
    var asked: [PicketAskNotification] { questions.current }
}

/// The packet tunnel, started and fed packets as iOS does, through a strict packet flow.
@Suite("Packet-tunnel extension")
struct PacketTunnelProviderTests {
    static let client4 = IPAddress("198.18.0.1")!
    static let client6 = IPAddress("fd70:6570:7065::1")!

    /// A DNS query packet from the tunnel's interface to its resolver.
    static func query(_ name: String, id: UInt16, _ type: DNSRecordType = .a, v6: Bool = false, port: UInt16 = 53) throws -> [UInt8] {
        var flags = DNSFlags(rawValue: 0)
        flags.recursionDesired = true
        let message = DNSMessage(header: DNSHeader(id: id, flags: flags), questions: [DNSQuestion(name: try DNSName(name), type: type)])
        let addresses = TunnelAddresses.pepper
        return UDPPacket(
            version: v6 ? .v6 : .v4, source: v6 ? client6 : client4, destination: v6 ? addresses.resolverIPv6 : addresses.resolverIPv4,
            sourcePort: 50_000 + id, destinationPort: port, payload: message.encoded()
        ).encoded()
    }

    /// The answers written back, by DNS ID.
    static func answers(_ written: [Data]) throws -> [UInt16: (packet: UDPPacket, message: DNSMessage)] {
        var result: [UInt16: (UDPPacket, DNSMessage)] = [:]
        for bytes in written {
            let packet = try UDPPacket(decoding: Array(bytes))
            let message = try DNSMessage(decoding: packet.payload)
            result[message.header.id] = (packet, message)
        }
        return result
    }

    struct Running {
        let provider: PacketTunnelProvider
        let system: StrictTunnelSystem
        let notifications: RecordingAsker
        let upstream: FakeUpstream
        var flow: StrictPacketFlow { system.strictFlow }
    }

    /// Starts the provider as iOS does (the completion-handler form) and waits for it.
    static func start(_ shared: SharedContainer, upstream: FakeUpstream = FakeUpstream()) async throws -> Running {
        let notifications = RecordingAsker()
        let provider = PacketTunnelProvider(
            container: shared.container, configuration: DNSTunnel.Configuration(upstream: upstream), notifier: notifications)
        let system = StrictTunnelSystem()
        provider.shimSystem = system
        let started = TunnelStartCompletion()
        provider.startTunnel(options: nil, completionHandler: started.handler)
        #expect(await started.waitForResult() == [nil], "startTunnel must complete once, successfully")
        #expect(await system.strictFlow.waitUntilReading(), "the provider reads packets once started")
        return Running(provider: provider, system: system, notifications: notifications, upstream: upstream)
    }

    @Test func theTunnelRoutesOnlyItsResolverAndPointsEveryNameAtIt() async throws {
        let running = try await Self.start(SharedContainer())
        let settings = try #require(running.system.appliedSettings.first as? NEPacketTunnelNetworkSettings)
        #expect(running.system.appliedSettings.count == 1)
        #expect(settings.ipv4Settings?.addresses == ["198.18.0.1"])
        #expect(settings.ipv4Settings?.includedRoutes?.map(\.destinationAddress) == ["198.18.0.53"])
        #expect(settings.ipv4Settings?.includedRoutes?.map(\.destinationSubnetMask) == ["255.255.255.255"])
        #expect(settings.ipv6Settings?.includedRoutes?.map(\.destinationAddress) == ["fd70:6570:7065::53"])
        #expect(settings.ipv6Settings?.includedRoutes?.map(\.destinationNetworkPrefixLength.intValue) == [128])
        #expect(settings.dnsSettings?.servers == ["198.18.0.53", "fd70:6570:7065::53"])
        #expect(settings.dnsSettings?.matchDomains == [""])
        #expect(settings.mtu?.intValue == 1500)
        #expect(running.flow.isReading, "the provider reads packets once the settings are applied")
        #expect(running.flow.violations.isEmpty, "\(running.flow.violations)")
    }

    @Test func underBlockAStruckEmployersNameIsNXDOMAINAndOthersAreForwarded() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let running = try await Self.start(shared)
        running.flow.inject([try Self.query("www.acme.example", id: 1), try Self.query("example.org", id: 2)])
        let answers = try Self.answers(await running.flow.waitForWrites(2))
        let blocked = try #require(answers[1])
        #expect(blocked.message.responseCode == .nameError)
        #expect(blocked.message.questions.first?.name.lowercasedHost == "www.acme.example")
        #expect(blocked.packet.source == TunnelAddresses.pepper.resolverIPv4 && blocked.packet.destination == Self.client4)
        #expect(blocked.packet.sourcePort == 53 && blocked.packet.destinationPort == 50_001)
        let forwarded = try #require(answers[2])
        #expect(forwarded.message.responseCode == .noError)
        #expect(forwarded.message.answers.first?.address == IPAddress("192.0.2.80"))
        #expect(running.upstream.names == ["example.org"], "the struck employer's name never leaves the device")
        #expect(running.notifications.asked.isEmpty)
        #expect(running.flow.violations.isEmpty, "\(running.flow.violations)")
    }

    @Test func underAllowEveryNameIsForwarded() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .allow)
        let running = try await Self.start(shared)
        running.flow.inject([try Self.query("acme.example", id: 7)])
        let answers = try Self.answers(await running.flow.waitForWrites(1))
        #expect(answers[7]?.message.answers.first?.address == IPAddress("192.0.2.80"))
        #expect(running.upstream.names == ["acme.example"])
    }

    @Test func underAskThePersonIsAskedOnceAndProceedingLetsTheSiteThrough() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .ask)
        let running = try await Self.start(shared)
        running.flow.inject([try Self.query("www.acme.example", id: 1)])
        var answers = try Self.answers(await running.flow.waitForWrites(1))
        #expect(answers[1]?.message.responseCode == .nameError)
        let question = try #require(running.notifications.asked.first)
        #expect(running.notifications.asked.count == 1)
        // What iOS is handed for it: shown now, with the Proceed and Block buttons, and the host for the answer.
        let request = NotificationAsker.request(for: question)
        #expect(request.identifier == question.identifier && request.trigger == nil)
        #expect(request.content.categoryIdentifier == PicketAskNotification.category)
        #expect(request.content.title.contains("Acme"))
        #expect(request.content.userInfo[PicketAskNotification.hostKey] as? String == "www.acme.example")
        #expect(request.content.userInfo[PicketAskNotification.employerKey] as? String == "emp_acme")

        // Asked again within the interval: blocked, but no second notification.
        running.flow.inject([try Self.query("shop.acme.example", id: 2)])
        answers = try Self.answers(await running.flow.waitForWrites(2))
        #expect(answers[2]?.message.responseCode == .nameError)
        #expect(running.notifications.asked.count == 1)

        // "Proceed": the app allowlists the site for 24 hours and tells the tunnel.
        _ = try await shared.state.setBlocking(
            false, onPage: "https://www.acme.example/", until: Date().addingTimeInterval(PicketNotice.proceedDuration))
        let reloaded = Locked(false)
        running.provider.handleAppMessage(Data("reload".utf8)) { _ in reloaded.withLock { $0 = true } }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while !reloaded.current, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        running.flow.inject([try Self.query("www.acme.example", id: 3)])
        answers = try Self.answers(await running.flow.waitForWrites(3))
        #expect(answers[3]?.message.answers.first?.address == IPAddress("192.0.2.80"))
        #expect(running.upstream.names == ["www.acme.example"])
        #expect(running.flow.violations.isEmpty, "\(running.flow.violations)")
    }

    @Test func ipv6QueriesAreAnsweredOverIPv6() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let running = try await Self.start(shared)
        running.flow.inject([try Self.query("acme.example", id: 4, .aaaa, v6: true), try Self.query("example.net", id: 5, .aaaa, v6: true)])
        let answers = try Self.answers(await running.flow.waitForWrites(2))
        #expect(answers[4]?.packet.version == .v6)
        #expect(answers[4]?.packet.destination == Self.client6)
        #expect(answers[4]?.message.responseCode == .nameError)
        #expect(answers[5]?.packet.version == .v6)
        #expect(answers[5]?.message.responseCode == .noError)
        #expect(running.flow.violations.isEmpty, "the strict flow checks each packet's family: \(running.flow.violations)")
    }

    @Test func packetsThatAreNotQueriesToTheResolverAreDropped() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let running = try await Self.start(shared)
        var damaged = try Self.query("example.org", id: 9)
        damaged[damaged.count - 2] ^= 0x01
        let notDNS = UDPPacket(
            version: .v4, source: Self.client4, destination: TunnelAddresses.pepper.resolverIPv4, sourcePort: 5000, destinationPort: 53,
            payload: [1, 2, 3]
        ).encoded()
        running.flow.inject([
            try Self.query("example.org", id: 10, port: 853),  // another port
            Array(try Self.query("example.org", id: 11).prefix(30)),  // truncated
            damaged,  // bad UDP checksum
            notDNS,  // not a DNS message
            [0x45, 0x00],  // garbage
            UDPPacket(
                version: .v4, source: Self.client4, destination: IPAddress("192.0.2.1")!, sourcePort: 5000, destinationPort: 53,
                payload: try DNSMessage(decoding: Array(try UDPPacket(decoding: try Self.query("example.org", id: 12)).payload)).encoded()
            ).encoded(),  // another destination
        ])
        running.flow.inject([try Self.query("example.org", id: 13)])
        let written = await running.flow.waitForWrites(1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(running.flow.written.count == 1, "only the one real query is answered")
        #expect(try Self.answers(written)[13] != nil)
        #expect(running.upstream.names == ["example.org"])
    }

    @Test func aFailingUpstreamIsSERVFAIL() async throws {
        let running = try await Self.start(SharedContainer(), upstream: FakeUpstream(failing: true))
        running.flow.inject([try Self.query("example.org", id: 21)])
        let answers = try Self.answers(await running.flow.waitForWrites(1))
        #expect(answers[21]?.message.responseCode == .serverFailure)
    }

    /// Starts the provider as the system makes it, its upstream read from `configuration` (the
    /// VPN configuration the app saved).
    static func start(
        _ shared: SharedContainer, configuration: [String: Any]?
    ) async -> (PacketTunnelProvider, StrictTunnelSystem, [String?]) {
        let provider = PacketTunnelProvider(container: shared.container, notifier: RecordingAsker())
        let system = StrictTunnelSystem()
        let saved = NETunnelProviderProtocol()
        saved.providerConfiguration = configuration
        system.protocolConfiguration = saved
        provider.shimSystem = system
        let started = TunnelStartCompletion()
        provider.startTunnel(options: nil, completionHandler: started.handler)
        return (provider, system, await started.waitForResult())
    }

    @Test(DNSTools.trait(["dnsmasq"])) func theTunnelForwardsWhereItsConfigurationSaysAndFollowsTheAppsNewChoice() async throws {
        let network = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1", "--log-queries"])
        let other = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.2", "--log-queries"])
        defer {
            network.stop()
            other.stop()
        }
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        // What the app saves: the person's choice (the default) and the network's resolvers it read.
        let resolvers = [ResolverAddress(host: IPAddress("127.0.0.1")!, port: network.port)]
        let saved = TunnelUpstream(choice: .network, networkResolvers: resolvers)
        let (provider, system, started) = await Self.start(shared, configuration: saved.providerConfiguration)
        #expect(started == [nil])
        #expect(await system.strictFlow.waitUntilReading())
        system.strictFlow.inject([try Self.query("www.example.test", id: 1), try Self.query("www.acme.example", id: 2)])
        var answers = try Self.answers(await system.strictFlow.waitForWrites(2))
        #expect(answers[1]?.message.answers.first?.address == IPAddress("192.0.2.1"), "the network's resolver answered")
        #expect(answers[2]?.message.responseCode == .nameError)
        #expect(network.log.contains("query[A] www.example.test"))
        #expect(!network.log.contains("acme.example"), "the struck employer's name never left the device")

        // The app sends another upstream while the tunnel runs (here: other resolvers).
        let chosen = TunnelUpstream(choice: .network, networkResolvers: [ResolverAddress(host: IPAddress("127.0.0.1")!, port: other.port)])
        let applied = Locked(false)
        provider.handleAppMessage(TunnelMessage.upstream(chosen).data) { _ in applied.withLock { $0 = true } }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while !applied.current, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        system.strictFlow.inject([try Self.query("mail.example.test", id: 3)])
        answers = try Self.answers(await system.strictFlow.waitForWrites(3))
        #expect(answers[3]?.message.answers.first?.address == IPAddress("192.0.2.2"), "the new upstream answered, without a restart")
        #expect(other.log.contains("query[A] mail.example.test"))
        #expect(!network.log.contains("mail.example.test"))
        #expect(system.strictFlow.violations.isEmpty, "\(system.strictFlow.violations)")
    }

    @Test func withoutAConfiguredUpstreamTheTunnelDoesNotStart() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let (_, system, started) = await Self.start(shared, configuration: nil)
        #expect(started == [TunnelUpstreamError.notConfigured.description], "no built-in resolver to fall back on")
        #expect(system.appliedSettings.isEmpty && !system.strictFlow.isReading)
        let (_, _, refused) = await Self.start(
            shared, configuration: [TunnelUpstream.Key.choice: "dns-over-https http://1.1.1.1/dns-query"])
        #expect(refused.first??.contains("cannot be used") == true)
        let (_, _, unread) = await Self.start(
            shared, configuration: TunnelUpstream(choice: .network, networkResolvers: []).providerConfiguration)
        #expect(unread == [TunnelUpstreamError.noNetworkResolvers.description])
    }

    @Test func withoutAnAppGroupTheTunnelDoesNotStart() async {
        let provider = PacketTunnelProvider()
        let system = StrictTunnelSystem()
        provider.shimSystem = system
        let started = TunnelStartCompletion()
        provider.startTunnel(options: nil, completionHandler: started.handler)
        let results = await started.waitForResult()
        #expect(results.count == 1)
        #expect(results.first??.isEmpty == false)
        #expect(system.appliedSettings.isEmpty)
        #expect(!system.strictFlow.isReading)
    }
}
#endif
