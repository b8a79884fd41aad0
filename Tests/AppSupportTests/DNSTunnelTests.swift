import AppExtensionSupport
import DNSFilter
import Foundation
import ListSync
import PepperActions
import Picket
import Storage
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An upstream answering from a closure, recording the queries.
final class ScriptedUpstream: DNSUpstream, @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [String] = []
    private let answer: @Sendable (DNSMessage) throws -> [UInt8]

    init(_ answer: @escaping @Sendable (DNSMessage) throws -> [UInt8]) {
        self.answer = answer
    }

    func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        let message = try DNSMessage(decoding: query)
        lock.withLock { asked.append(message.questions.first?.name.lowercasedHost ?? "") }
        return try answer(message)
    }

    var names: [String] { lock.withLock { asked } }

    /// Answers A queries with 192.0.2.80.
    static func address() -> ScriptedUpstream {
        ScriptedUpstream { query in
            var response = DNSMessage.response(to: query)
            response.answers = [.a(query.questions[0].name, IPAddress("192.0.2.80")!, ttl: 60)]
            return response.encoded()
        }
    }
}

/// Records the questions the tunnel asks.
final class RecordingAsker: PicketAskNotifier, @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [PicketAskNotification] = []

    func ask(_ notification: PicketAskNotification) { lock.withLock { asked.append(notification) } }
    var notifications: [PicketAskNotification] { lock.withLock { asked } }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = Date(timeIntervalSince1970: 1_800_000_000)

    var read: @Sendable () -> Date { { [self] in lock.withLock { now } } }
    func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
}

/// The packet tunnel's decisions, without the extension class around them.
@Suite("DNS tunnel")
struct DNSTunnelTests {
    static let client = IPAddress("198.18.0.1")!

    static func query(_ name: String, id: UInt16 = 1, edns: EDNS? = nil) throws -> [UInt8] {
        let message = DNSMessage(
            header: DNSHeader(id: id, flags: DNSFlags(rawValue: 0x0100)), questions: [DNSQuestion(name: try DNSName(name), type: .a)],
            edns: edns)
        return UDPPacket(
            version: .v4, source: client, destination: TunnelAddresses.pepper.resolverIPv4, sourcePort: 4000, destinationPort: 53,
            payload: message.encoded()
        ).encoded()
    }

    static func message(_ outcome: DNSTunnel.Outcome) throws -> DNSMessage {
        guard case .reply(let packet, _) = outcome else { throw CocoaError(.coderInvalidValue) }
        return try DNSMessage(decoding: packet.payload)
    }

    /// A container with Acme's domains under `policy`.
    static func container(policy: PicketPolicy) throws -> TemporaryContainer {
        let temporary = TemporaryContainer()
        let entry = BlocklistEntry(url: "acme.example", employer: "Acme", employerId: "emp_acme", actionType: "strike", actionId: "act_1")
        let data = MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: Coordinates(lat: 0, lng: 0), radiusMeters: 100, refreshThresholdMeters: 80),
            geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
            blocklist: Blocklist(totalUrls: 1, totalEmployers: 1, urls: [entry]))
        try temporary.container.home.prepare()
        try JSONEncoder().encode(data).write(to: temporary.container.home.listsURL.appendingPathComponent("picket-a"))
        _ = try ListSourceStore(database: temporary.state.database).insert(
            ListSource(name: "picket-a", location: "picket:https://opl.example", format: "picket"))
        try PicketPolicyStore(database: temporary.state.database).setPolicy(policy)
        return temporary
    }

    @Test func dropsAreCountedByReason() async throws {
        let temporary = try Self.container(policy: .block)
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: ScriptedUpstream.address()), notifier: RecordingAsker())
        let elsewhere = UDPPacket(
            version: .v4, source: Self.client, destination: IPAddress("192.0.2.1")!, sourcePort: 1, destinationPort: 53, payload: [0])
        #expect(await tunnel.handle([]) == .dropped(.notUDP(.truncated)))
        #expect(await tunnel.handle(elsewhere.encoded()) == .dropped(.notForResolver))
        var response = try UDPPacket(decoding: try Self.query("example.org"))
        var flags = DNSFlags(rawValue: 0x8180)
        flags.isResponse = true
        response.payload = DNSMessage(header: DNSHeader(id: 1, flags: flags)).encoded()
        #expect(await tunnel.handle(response.encoded()) == .dropped(.notAQuery))
        #expect(await tunnel.drops == [.notUDP(.truncated): 1, .notForResolver: 1, .notAQuery: 1])
    }

    @Test func aQueryWithoutAQuestionIsFORMERR() async throws {
        let tunnel = DNSTunnel(
            container: TemporaryContainer().container, configuration: .init(upstream: ScriptedUpstream.address()),
            notifier: RecordingAsker())
        var packet = try UDPPacket(decoding: try Self.query("example.org"))
        packet.payload = DNSMessage(header: DNSHeader(id: 9, flags: DNSFlags(rawValue: 0x0100))).encoded()
        let outcome = await tunnel.handle(packet.encoded())
        #expect(try Self.message(outcome).responseCode == .formatError)
    }

    @Test func blockedAnswersAreNXDOMAINWithAShortNegativeTTL() async throws {
        let temporary = try Self.container(policy: .block)
        let upstream = ScriptedUpstream.address()
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: upstream, blockTTL: 10), notifier: RecordingAsker())
        let outcome = await tunnel.handle(try Self.query("WWW.Acme.Example", id: 77))
        guard case .reply(_, .blocked(let employer)) = outcome else {
            Issue.record("not blocked: \(outcome)")
            return
        }
        #expect(employer == "emp_acme")
        let answer = try Self.message(outcome)
        #expect(answer.header.id == 77)
        #expect(answer.responseCode == .nameError)
        #expect(answer.authorities.first?.soa?.minimum == 10)
        // The same SOA as the DNS server's block answers (owned by the name, served by pepper.blocked).
        #expect(answer.authorities.first?.soa?.primaryServer == (try DNSName("pepper.blocked")))
        #expect(answer.authorities.first?.name == answer.questions.first?.name)
        #expect(upstream.names.isEmpty)
    }

    @Test func askingIsRepeatedOnlyAfterTheAskInterval() async throws {
        let temporary = try Self.container(policy: .ask)
        let clock = TestClock()
        let asker = RecordingAsker()
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: ScriptedUpstream.address(), askInterval: 600), notifier: asker,
            clock: clock.read)
        #expect(await tunnel.handle(try Self.query("acme.example")).answer == .asked(employerId: "emp_acme", notified: true))
        clock.advance(599)
        #expect(await tunnel.handle(try Self.query("www.acme.example")).answer == .asked(employerId: "emp_acme", notified: false))
        clock.advance(2)
        #expect(await tunnel.handle(try Self.query("acme.example")).answer == .asked(employerId: "emp_acme", notified: true))
        #expect(asker.notifications.count == 2)
        let notification = try #require(asker.notifications.first)
        #expect(notification.identifier == "pepper.picket.ask.emp_acme")
        #expect(notification.title == "Acme: strike in progress")
        #expect(
            notification.userInfo
                == [
                    "host": "acme.example", "employerId": "emp_acme",
                    "app": "iOS does not tell DNS protection which app looked the name up.",
                ])
    }

    @Test func changesInTheSharedStateApplyAfterTheReloadInterval() async throws {
        let temporary = try Self.container(policy: .block)
        let clock = TestClock()
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: ScriptedUpstream.address(), reloadInterval: 30),
            notifier: RecordingAsker(),
            clock: clock.read)
        #expect(await tunnel.handle(try Self.query("acme.example")).answer == .blocked(employerId: "emp_acme"))
        _ = try await temporary.state.setPicketPolicy(.allow, rebuild: false)
        clock.advance(10)
        #expect(
            await tunnel.handle(try Self.query("acme.example")).answer == .blocked(employerId: "emp_acme"), "read again only after 30 s")
        clock.advance(21)
        #expect(await tunnel.handle(try Self.query("acme.example")).answer == .forwarded)
    }

    @Test func anAllowlistedSiteIsForwardedUntilItsEntryLapses() async throws {
        let temporary = try Self.container(policy: .ask)
        let clock = TestClock()
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: ScriptedUpstream.address()), notifier: RecordingAsker(),
            clock: clock.read)
        try AllowlistStore(database: temporary.state.database).add("acme.example", expiresAt: clock.read().addingTimeInterval(86_400))
        #expect(await tunnel.handle(try Self.query("shop.acme.example")).answer == .forwarded)
        clock.advance(86_401)
        #expect(await tunnel.handle(try Self.query("shop.acme.example")).answer == .asked(employerId: "emp_acme", notified: true))
    }

    @Test func upstreamAnswersAreCheckedAndFitTheClientsLimit() async throws {
        let temporary = TemporaryContainer()
        let wrongID = ScriptedUpstream { query in
            var response = DNSMessage.response(to: query)
            response.header.id &+= 1
            return response.encoded()
        }
        let mismatched = DNSTunnel(container: temporary.container, configuration: .init(upstream: wrongID), notifier: RecordingAsker())
        let outcome = await mismatched.handle(try Self.query("example.org"))
        #expect(outcome.answer == .upstreamFailed)
        #expect(try Self.message(outcome).responseCode == .serverFailure)

        let large = ScriptedUpstream { query in
            var response = DNSMessage.response(to: query)
            response.answers = (0..<60).map { .a(query.questions[0].name, IPAddress(ipv4: 192, 0, 2, UInt8($0)), ttl: 60) }
            return response.encoded()
        }
        let tunnel = DNSTunnel(container: temporary.container, configuration: .init(upstream: large), notifier: RecordingAsker())
        let small = try Self.message(await tunnel.handle(try Self.query("big.example")))
        #expect(small.header.flags.isTruncated, "over 512 bytes without EDNS: truncated, so the client asks over TCP")
        let full = try Self.message(await tunnel.handle(try Self.query("big.example", edns: EDNS(udpPayloadSize: 4096))))
        #expect(!full.header.flags.isTruncated)
        #expect(full.answers.count == 60)
    }

    @Test func theGateFollowsThePolicy() throws {
        let notice = { (canProceed: Bool) in
            PicketNotice(
                url: "acme.example", employer: "Acme", employerId: "emp", actionType: "strike", organization: nil, location: nil,
                startDate: nil, endDate: nil, details: nil, source: "s", canProceed: canProceed)
        }
        for policy in PicketPolicy.allCases {
            let entry = BlocklistEntry(url: "acme.example", employer: "Acme", employerId: "emp", actionType: "strike", actionId: "a")
            let data = MobileData(
                version: "1", generatedAt: "", suggestedRefreshInterval: 1,
                cachedRegion: CachedRegion(center: Coordinates(lat: 0, lng: 0), radiusMeters: 1, refreshThresholdMeters: 1),
                geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
                blocklist: Blocklist(totalUrls: 1, totalEmployers: 1, urls: [entry]))
            let index = PicketBlocklistIndex(policy: policy, payloads: [("s", data, nil)])
            let gate = PicketDNSGate(index: index) { $0 == "ok.acme.example" }
            let expected: PicketDNSGate.Decision =
                switch policy {
                case .ask: .ask(notice(true))
                case .block: .block(notice(false))
                case .allow: .forward
                }
            let decision = gate.decision(forHost: "acme.example")
            switch (decision, expected) {
            case (.forward, .forward), (.ask, .ask), (.block, .block): break
            default: Issue.record("\(policy): \(decision) instead of \(expected)")
            }
            #expect(gate.decision(forHost: "ok.acme.example") == .forward, "allowlisted")
            #expect(gate.decision(forHost: "example.org") == .forward)
        }
    }

    @Test func dnsOverHTTPSRequestsAndAnswersFollowRFC8484() throws {
        let upstream = DNSOverHTTPSUpstream(url: URL(string: "https://198.51.100.1/dns-query")!)
        let request = upstream.request(for: [1, 2, 3])
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/dns-message")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/dns-message")
        #expect(request.httpBody == Data([1, 2, 3]))
        func response(_ status: Int, _ type: String?) -> HTTPURLResponse {
            HTTPURLResponse(url: upstream.url, statusCode: status, httpVersion: "HTTP/2", headerFields: type.map { ["Content-Type": $0] })!
        }
        #expect(throws: Never.self) { try DNSOverHTTPSUpstream.check(response(200, "application/dns-message"), bodySize: 40) }
        #expect(throws: Never.self) { try DNSOverHTTPSUpstream.check(response(200, "Application/DNS-Message; charset=x"), bodySize: 40) }
        #expect(throws: DNSUpstreamError.status(503)) {
            try DNSOverHTTPSUpstream.check(response(503, "application/dns-message"), bodySize: 40)
        }
        #expect(throws: DNSUpstreamError.contentType("text/html")) {
            try DNSOverHTTPSUpstream.check(response(200, "text/html"), bodySize: 40)
        }
        #expect(throws: DNSUpstreamError.size(5)) { try DNSOverHTTPSUpstream.check(response(200, "application/dns-message"), bodySize: 5) }
    }
}

extension DNSTunnel.Outcome {
    var answer: DNSTunnel.Answer? {
        guard case .reply(_, let answer) = self else { return nil }
        return answer
    }
}
