import DNSFilter
import DNSTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

@testable import DNSServer

/// `pepper dns serve`'s DNS over TLS and DNS over HTTPS, asked by real clients: `kdig +tls`
/// (knot-dnsutils), `dig +https`, curl's `--doh-url` and raw HTTP through curl; a dnsmasq stub
/// upstream; certificates from a CA made with `openssl` for `dns.test` and `*.dns.test`.
@Suite("DNS over TLS and HTTPS served (kdig, dig, curl)", .serialized)
struct EncryptedListenerTests {
    static let tools = ["dig", "dnsmasq", "kdig", "curl", "openssl"]
    static let serverName = "dns.test"

    /// What the server saw: every answered query's event.
    final class Events: Sendable {
        private let box = NIOLockedValueBox<[QueryEvent]>([])
        func record(_ event: QueryEvent) { box.withLockedValue { $0.append(event) } }
        var all: [QueryEvent] { box.withLockedValue { $0 } }
        func waitFor(_ count: Int) async -> [QueryEvent] {
            for _ in 0..<200 where all.count < count { try? await Task.sleep(for: .milliseconds(10)) }
            return all
        }
    }

    struct Running {
        var server: DNSServer
        var certificates: TestCertificateAuthority
        var events: Events
        var tlsPort: Int { server.tlsAddress!.port }
        var httpsPort: Int { server.httpsAddress!.port }
    }

    /// Runs `body` with a server answering UDP/TCP, DoT and DoH on free ports.
    static func withServer(
        upstreamRecords: [String] = DNSServerTests.upstreamRecords, filter: DNSQueryFilter? = nil, groups: [ClientGroup] = [],
        devices: DeviceAccess = DeviceAccess(), rateLimit: DNSRateLimit? = nil, connectionsPerClient: Int = 100,
        idleTimeout: TimeAmount = .seconds(30), _ body: (Running) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificateAuthority(names: [serverName, "*." + serverName])
        defer { certificates.remove() }
        let dnsmasq = try await Dnsmasq(arguments: upstreamRecords)
        defer { dnsmasq.stop() }
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let loopback = IPAddress("127.0.0.1")!
        let configuration = DNSServerConfiguration(
            listen: ListenAddress(host: loopback, port: 0), upstreams: [.udp(host: loopback, port: dnsmasq.port)],
            upstreamTimeout: .milliseconds(400), threads: 2,
            encrypted: EncryptedListenersConfiguration(
                serverName: serverName, tlsListen: ListenAddress(host: loopback, port: 0),
                httpsListen: ListenAddress(host: loopback, port: 0),
                certificateFile: certificates.serverCertificate, keyFile: certificates.serverKey),
            devices: devices, rateLimit: rateLimit, connectionsPerClient: connectionsPerClient, idleTimeout: idleTimeout)
        let events = Events()
        let filters = DNSFilterSet(defaultFilter: try filter ?? DNSServerTests.filter(), groups: groups)
        let server = try await DNSServer.start(
            configuration: configuration, filters: filters, logger: logger, observer: { events.record($0) })
        do {
            try await body(Running(server: server, certificates: certificates, events: events))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// `kdig +tls` asking `name` with `serverName` as the TLS server name (SNI), checking the
    /// certificate against the test CA; returns its status (`NXDOMAIN`…) and output.
    static func kdig(_ name: String, port: Int, serverName: String, ca: String) async throws -> (status: String?, output: String) {
        let kdig = try #require(DNSTools.path("kdig"))
        let output = try await ChildProcess.output(
            kdig, ["@127.0.0.1", "-p", "\(port)", "+tls-ca=\(ca)", "+tls-hostname=\(serverName)", "+time=4", "+retry=0", name, "A"])
        let status = output.range(of: "status: ").map { range in String(output[range.upperBound...].prefix { $0.isLetter }) }
        return (status, output)
    }

    /// curl against the DoH listener with the test CA, `dns.test` resolved to 127.0.0.1.
    static func curl(_ arguments: [String], port: Int, ca: String) async throws -> String {
        let curl = try #require(DNSTools.path("curl"))
        return try await ChildProcess.output(
            curl, ["-s", "--max-time", "5", "--cacert", ca, "--resolve", "\(serverName):\(port):127.0.0.1"] + arguments)
    }

    @Test(DNSTools.trait(tools))
    func realClientsAreAnsweredOverTLSAndHTTPSWithTheirDeviceNames() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        try await Self.withServer { running in
            let ca = running.certificates.caCertificate
            // DoT: the device is the first label of the server name; the certificate checks out.
            let blocked = try await Self.kdig("tracker.test", port: running.tlsPort, serverName: "phone.dns.test", ca: ca)
            #expect(blocked.status == "NXDOMAIN", "\(blocked.output)")
            #expect(blocked.output.contains("TLS1.3") || blocked.output.contains("TLS1.2"), "\(blocked.output)")
            let forwarded = try await Self.kdig("example.test", port: running.tlsPort, serverName: "dns.test", ca: ca)
            #expect(forwarded.status == "NOERROR" && forwarded.output.contains("192.0.2.1"), "\(forwarded.output)")

            // DoH with dig: POST (its default) and GET, the device in the path.
            let post = try await Dig.query("tracker.test", port: running.httpsPort, extra: ["+https=/dns-query/laptop"])
            #expect(post.status == "NXDOMAIN", "\(post.output)")
            let get = try await Dig.query("example.test", port: running.httpsPort, extra: ["+https-get=/dns-query/laptop"])
            #expect(get.data == ["192.0.2.1"], "\(get.output)")

            // curl resolving through DoH (HTTP/2): a blocked name cannot be resolved; curl checks the certificate.
            let doh = "https://\(Self.serverName):\(running.httpsPort)/dns-query/curlbox"
            let failed = try await Self.curl(
                ["--doh-url", doh, "-o", "/dev/null", "-w", "%{errormsg}", "http://tracker.test:9/"], port: running.httpsPort, ca: ca)
            #expect(failed.contains("resolve"), "\(failed)")

            let events = await running.events.waitFor(6)
            let seen = Set(events.map { "\($0.device?.value ?? "-") \($0.transport.rawValue) \($0.name) \($0.outcome.rawValue)" })
            #expect(seen.contains("phone tls tracker.test blocked"), "\(seen)")
            #expect(seen.contains("- tls example.test forwarded"), "\(seen)")
            #expect(seen.contains("laptop https tracker.test blocked"), "\(seen)")
            #expect(seen.contains("laptop https example.test forwarded") || seen.contains("laptop https example.test cached"), "\(seen)")
            #expect(seen.contains("curlbox https tracker.test blocked"), "\(seen)")
        }
    }

    @Test(DNSTools.trait(tools))
    func aDeviceGetsItsGroupsListsWhereverItAsksFrom() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        let strict = try DNSServerTests.filter("||example.test^")
        let kids = ClientGroup(name: "kids", clients: [], devices: [try DNSDeviceName("tablet")], filter: strict)
        try await Self.withServer(groups: [kids]) { running in
            let ca = running.certificates.caCertificate
            let tablet = try await Self.kdig("example.test", port: running.tlsPort, serverName: "tablet.dns.test", ca: ca)
            #expect(tablet.status == "NXDOMAIN", "the kids' list blocks it for the tablet: \(tablet.output)")
            let other = try await Self.kdig("example.test", port: running.tlsPort, serverName: "phone.dns.test", ca: ca)
            #expect(other.status == "NOERROR", "another device gets the default lists: \(other.output)")
            let overHTTPS = try await Dig.query("example.test", port: running.httpsPort, extra: ["+https=/dns-query/tablet"])
            #expect(overHTTPS.status == "NXDOMAIN", "\(overHTTPS.output)")
            let plain = try await Dig.query("example.test", port: running.server.localAddress.port)
            #expect(plain.status == "NOERROR", "plain DNS names no device: \(plain.output)")
        }
    }

    @Test(DNSTools.trait(tools))
    func unknownDevicesAreRefusedWhenTheOwnerSaysSo() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        let devices = DeviceAccess(known: [try DNSDeviceName("phone")], refuseUnknown: true)
        try await Self.withServer(devices: devices) { running in
            let ca = running.certificates.caCertificate
            let known = try await Self.kdig("example.test", port: running.tlsPort, serverName: "phone.dns.test", ca: ca)
            #expect(known.status == "NOERROR", "\(known.output)")
            let unnamed = try await Self.kdig("example.test", port: running.tlsPort, serverName: "dns.test", ca: ca)
            #expect(unnamed.status == "REFUSED", "even from loopback: \(unnamed.output)")
            let stranger = try await Dig.query("example.test", port: running.httpsPort, extra: ["+https=/dns-query/stranger"])
            #expect(stranger.status == "REFUSED", "\(stranger.output)")
            let plain = try await Dig.query("example.test", port: running.server.localAddress.port)
            #expect(plain.status == "NOERROR", "plain DNS keeps its address rules: \(plain.output)")
        }
    }

    @Test(DNSTools.trait(tools))
    func badHTTPRequestsGetAnHTTPErrorThatSaysWhy() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        try await Self.withServer { running in
            let ca = running.certificates.caCertificate
            let base = "https://\(Self.serverName):\(running.httpsPort)"
            func status(_ arguments: [String]) async throws -> String {
                try await Self.curl(["-o", "/dev/null", "-w", "%{http_code} %{http_version}"] + arguments, port: running.httpsPort, ca: ca)
            }
            #expect(try await status(["\(base)/elsewhere"]) == "404 2")
            #expect(try await status(["\(base)/dns-query/not_a_name"]) == "404 2")
            #expect(try await status(["\(base)/dns-query"]) == "400 2", "GET without dns=")
            #expect(try await status(["\(base)/dns-query?dns=%40%40"]) == "400 2", "not base64url")
            #expect(try await status(["-X", "PUT", "\(base)/dns-query"]) == "405 2")
            #expect(try await status(["-H", "content-type: text/plain", "--data", "x", "\(base)/dns-query"]) == "415 2")
            #expect(
                try await status(["--http1.1", "-H", "content-type: application/dns-message", "--data", "xx", "\(base)/dns-query"])
                    == "400 1.1",
                "a body that is no DNS message, over HTTP/1.1")
            // A good query in base64url (RFC 8484 §4.1's example shape): an answer of the DNS type.
            let query = Data(RawDNS.query("example.test", id: 0)).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let headers = try await Self.curl(
                ["-D", "-", "-o", "/dev/null", "\(base)/dns-query?dns=\(query)"], port: running.httpsPort, ca: ca)
            #expect(headers.hasPrefix("HTTP/2 200"), "\(headers)")
            #expect(headers.lowercased().contains("content-type: application/dns-message"), "\(headers)")
            #expect(headers.lowercased().contains("cache-control: max-age="), "\(headers)")
        }
    }

    @Test(DNSTools.trait(tools))
    func aClientOverItsRateIsRefusedWhileAnotherDeviceIsAnswered() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        // One query a second, five at once: a quick run of twelve gets five answers.
        try await Self.withServer(rateLimit: DNSRateLimit(queriesPerSecond: 1, burst: 5)) { running in
            var codes: [UInt8] = []
            for index in 0..<12 {
                let reply = try #require(
                    await RawDNS.exchange(
                        RawDNS.query("tracker.test", id: UInt16(index)), port: running.server.localAddress.port, timeout: 2))
                codes.append(reply[3] & 0x0F)
            }
            #expect(codes.prefix(5).allSatisfy { $0 == 3 }, "the burst is answered (NXDOMAIN): \(codes)")
            #expect(codes.dropFirst(5).filter { $0 == 5 }.count >= 6, "then REFUSED: \(codes)")
            // A named device is counted on its own, even from the same address.
            let phone = try await Self.kdig(
                "tracker.test", port: running.tlsPort, serverName: "phone.dns.test", ca: running.certificates.caCertificate)
            #expect(phone.status == "NXDOMAIN", "\(phone.output)")
            let logged = running.events.all.filter { $0.device == nil }.count
            #expect(logged <= 6, "refused floods are not logged: \(logged)")
        }
    }

    @Test(DNSTools.trait(tools))
    func connectionsPerClientAreCappedAndIdleOnesClosed() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        try await Self.withServer(connectionsPerClient: 2, idleTimeout: .seconds(1)) { running in
            let port = running.server.localAddress.port
            let first = try TCPProbe(port: port)
            let second = try TCPProbe(port: port)
            try await Task.sleep(for: .milliseconds(200))
            let third = try TCPProbe(port: port)
            #expect(third.closedByPeer(within: 2), "the third connection is closed at once")
            #expect(!first.closedByPeer(within: 0.3) && !second.closedByPeer(within: 0.3), "the first two stay open")
            #expect(running.server.connections.openConnections == 2)
            // Idle for over a second: closed, and their slots given back.
            #expect(first.closedByPeer(within: 3) && second.closedByPeer(within: 3))
            try await Task.sleep(for: .milliseconds(100))
            #expect(running.server.connections.openConnections == 0)
            let answer = try await Dig.query("example.test", port: port, extra: ["+tcp"])
            #expect(answer.data == ["192.0.2.1"], "\(answer.output)")
        }
    }

    @Test(DNSTools.trait(tools))
    func aRenewedCertificateIsUsedByTheNextConnectionAndABrokenOneIsNot() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        try await Self.withServer { running in
            let files = running.certificates
            let before = try await Self.servedSerial(port: running.tlsPort)
            #expect(before == (try await Self.serial(of: files.serverCertificate)))
            // A renewal from another CA: written over the same files, as certbot's deploy hook would.
            let renewed = try await TestCertificateAuthority(names: [Self.serverName, "*." + Self.serverName])
            defer { renewed.remove() }
            try Self.replace(files.serverKey, with: renewed.serverKey)
            try Self.replace(files.serverCertificate, with: renewed.serverCertificate)
            let expected = try await Self.serial(of: renewed.serverCertificate)
            var served = before
            for _ in 0..<40 where served != expected {
                try await Task.sleep(for: .milliseconds(250))
                served = try await Self.servedSerial(port: running.tlsPort)
            }
            #expect(served == expected, "the renewed certificate is served")
            // A broken renewal (a truncated key) is not used: the good pair stays.
            try "-----BEGIN PRIVATE KEY-----\nAAAA\n".write(toFile: files.serverKey, atomically: true, encoding: .utf8)
            try await Task.sleep(for: .seconds(3))
            #expect(try await Self.servedSerial(port: running.tlsPort) == expected)
            let answer = try await Self.kdig("example.test", port: running.tlsPort, serverName: "dns.test", ca: renewed.caCertificate)
            #expect(answer.status == "NOERROR", "\(answer.output)")
        }
    }

    static func replace(_ path: String, with source: String) throws {
        try Data(contentsOf: URL(fileURLWithPath: source)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func serial(of certificate: String) async throws -> String {
        let openssl = try #require(DNSTools.path("openssl"))
        return try await ChildProcess.output(openssl, ["x509", "-noout", "-serial", "-in", certificate])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The serial of the certificate the DoT listener serves now (openssl s_client, a shell
    /// pipe so that its stdin is closed at once).
    static func servedSerial(port: Int) async throws -> String {
        try await ChildProcess.output(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(port) -servername dns.test </dev/null 2>/dev/null | openssl x509 -noout -serial",
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

enum ProbeError: Error {
    case cannotConnect(Int)
}

/// A raw TCP connection that sends nothing: to see when the server closes it.
final class TCPProbe {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw ProbeError.cannotConnect(port)
        }
    }

    /// Whether the peer closed the connection within `seconds` (a read returns end of file or
    /// a reset).
    func closedByPeer(within seconds: Double) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    deinit { close(descriptor) }
}

/// The rate limiter's arithmetic, with a clock the test sets.
@Suite("Client rate limiter")
struct ClientRateLimiterTests {
    @Test func aBurstThenTheRateAndEachClientOnItsOwn() throws {
        let limiter = ClientRateLimiter(queriesPerSecond: 10, burst: 3)
        let one = DNSClient(address: IPAddress("192.0.2.1")!, transport: .udp)
        let two = DNSClient(address: IPAddress("192.0.2.2")!, transport: .udp)
        let start: UInt64 = 1_000_000_000
        #expect((0..<4).map { _ in limiter.admits(one, now: start) } == [true, true, true, false])
        #expect(limiter.admits(two, now: start), "another address has its own bucket")
        #expect(!limiter.admits(one, now: start + 50_000_000), "half a token after 50 ms")
        #expect(limiter.admits(one, now: start + 150_000_000), "a token after 100 ms")
        #expect((0..<5).map { _ in limiter.admits(one, now: start + 10_000_000_000) }.filter { $0 }.count == 3, "refilled to the burst")
    }

    /// Two threads read the clock, then take the lock in the other order: the older time must
    /// not refill the bucket (an unsigned wrap-around let 18–46 % of a flood through, found by
    /// bench/encrypted-dns.sh).
    @Test func anOlderClockReadingAddsNoTokens() throws {
        let limiter = ClientRateLimiter(queriesPerSecond: 1, burst: 2)
        let client = DNSClient(address: IPAddress("192.0.2.1")!, transport: .udp)
        #expect(limiter.admits(client, now: 5_000_000_000) && limiter.admits(client, now: 5_000_000_000))
        #expect(!limiter.admits(client, now: 4_999_999_000), "an older reading: still empty")
        #expect(!limiter.admits(client, now: 5_000_000_001), "and time resumes from the newer one")
        #expect(limiter.admits(client, now: 6_000_000_001), "a second later: one token")
    }

    @Test func ipv6ClientsAreCountedPerSlash64AndDevicesByName() throws {
        let limiter = ClientRateLimiter(queriesPerSecond: 1, burst: 1)
        let a = DNSClient(address: IPAddress("2001:db8:1:2::1")!, transport: .udp)
        let b = DNSClient(address: IPAddress("2001:db8:1:2::ffff")!, transport: .udp)
        let other = DNSClient(address: IPAddress("2001:db8:1:3::1")!, transport: .udp)
        #expect(limiter.admits(a, now: 1) && !limiter.admits(b, now: 1), "one /64, one bucket")
        #expect(limiter.admits(other, now: 1))
        let phone = try DNSDeviceName("phone")
        #expect(limiter.admits(DNSClient(address: IPAddress("192.0.2.9")!, transport: .tls, device: phone), now: 1))
        #expect(
            !limiter.admits(DNSClient(address: IPAddress("198.51.100.9")!, transport: .https, device: phone), now: 1),
            "a device is one client wherever it asks from")
    }

    @Test func aFloodOfAddressesCostsBoundedMemory() {
        let limiter = ClientRateLimiter(queriesPerSecond: 1, burst: 2)
        for index in 0..<200_000 {
            _ = limiter.admits(DNSClient(address: IPAddress(ipv4: UInt32(0x0A00_0000 + index)), transport: .udp), now: 1)
        }
        #expect(limiter.clientCount <= 16 * ClientRateLimiter.maximumClientsPerShard)
    }
}

/// How a DNS-over-HTTPS request is read, without a server.
@Suite("DNS-over-HTTPS requests")
struct DNSOverHTTPSRequestTests {
    @Test func pathsMethodsAndBodiesAreReadOrRefusedWithAReason() throws {
        func head(_ method: HTTPMethod, _ uri: String, type: String? = nil) -> HTTPRequestHead {
            var head = HTTPRequestHead(version: .http2, method: method, uri: uri)
            if let type { head.headers.add(name: "content-type", value: type) }
            return head
        }
        let phone = try DNSDeviceName("phone")
        #expect(
            DNSOverHTTPSHandler.read(head(.GET, "/dns-query/phone?dns=AAABAAABAAAAAAAA"), body: nil, tooLarge: false)
                == .query(ByteBuffer(bytes: [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), device: phone))
        #expect(
            DNSOverHTTPSHandler.read(
                head(.POST, "/dns-query", type: "application/dns-message; x=1"), body: ByteBuffer(bytes: [1, 2]), tooLarge: false)
                == .query(ByteBuffer(bytes: [1, 2]), device: nil))
        guard
            case .error(.payloadTooLarge, _) = DNSOverHTTPSHandler.read(
                head(.POST, "/dns-query", type: "application/dns-message"), body: nil, tooLarge: true)
        else {
            Issue.record("an oversized body is 413")
            return
        }
        guard case .error(.notFound, _) = DNSOverHTTPSHandler.read(head(.GET, "/dns-query/a/b?dns=AAAA"), body: nil, tooLarge: false) else {
            Issue.record("a path with two segments after /dns-query is 404")
            return
        }
        #expect(DNSOverHTTPSHandler.base64URLDecoded("_-8") == [0xFF, 0xEF], "base64url's alphabet, no padding")
        #expect(DNSOverHTTPSHandler.base64URLDecoded("a+b=") == nil, "base64's own alphabet and padding are not base64url")
        #expect(DNSOverHTTPSHandler.base64URLDecoded("abcde") == nil, "a length no encoding has")
        // Every byte value, every length: the same bytes as Foundation's decoder gives.
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            let encoded = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(DNSOverHTTPSHandler.base64URLDecoded(encoded) == (length == 0 ? nil : bytes), "\(length) bytes")
        }
        #expect(DNSOverHTTPSHandler.dnsParameter(of: "/dns-query?ct=x&dns=AAAB&z=1") == "AAAB")
        #expect(DNSOverHTTPSHandler.dnsParameter(of: "/dns-query?xdns=AAAB") == nil)
        #expect(DNSOverHTTPSHandler.cacheControl(for: [1, 2, 3]) == "no-store")
    }
}
