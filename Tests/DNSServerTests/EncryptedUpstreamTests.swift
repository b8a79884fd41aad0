import DNSFilter
import DNSTestSupport
import Foundation
import Logging
import PepperTestSupport
import Testing

@testable import DNSServer

/// DNS-over-TLS and DNS-over-HTTPS upstreams, against dnsdist with a certificate from a CA the
/// test makes with `openssl`, in front of a dnsmasq stub. `dig` asks our server.
@Suite("DNS server with encrypted upstreams (dnsdist)", .serialized)
struct EncryptedUpstreamTests {
    static let records = [
        "--address=/example.test/192.0.2.1",
        "--host-record=metrics.tracker.test,192.0.2.66",
        "--cname=cloaked.shop.test,metrics.tracker.test",
        "--txt-record=big.example.test,\(DNSServerTests.bigText)",
        "--log-queries",
    ]

    static func ready() -> Bool { DNSTools.ready(["dig", "dnsmasq", "dnsdist", "openssl"]) }

    /// The test's upstreams: dnsmasq behind dnsdist, both stopped after `body`.
    struct Upstreams {
        var dnsmasq: Dnsmasq
        var dnsdist: Dnsdist
        var certificates: TestCertificateAuthority
    }

    static func withUpstreams(certificateNamesIPAddress: Bool = true, _ body: (Upstreams) async throws -> Void) async throws {
        let certificates = try await TestCertificateAuthority(namesIPAddress: certificateNamesIPAddress)
        defer { certificates.remove() }
        let dnsmasq = try await Dnsmasq(arguments: records, servesTCPInChildren: true)
        defer { dnsmasq.stop() }
        let dnsdist = try await Dnsdist(backendPort: dnsmasq.port, checkName: "health.example.test", certificates: certificates)
        defer { dnsdist.stop() }
        try await body(Upstreams(dnsmasq: dnsmasq, dnsdist: dnsdist, certificates: certificates))
    }

    /// Runs `body` with a server forwarding to `upstream` only.
    static func withServer(
        upstream: String, trusting certificates: [String], _ body: (DNSServer) async throws -> Void
    ) async throws {
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let configuration = DNSServerConfiguration(
            listen: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0), upstreams: [try UpstreamAddress(upstream)],
            upstreamTimeout: .milliseconds(1500), threads: 2, trustedCertificates: certificates)
        let server = try await DNSServer.start(configuration: configuration, filter: try DNSServerTests.filter(), logger: logger)
        do {
            try await body(server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Asks 24 names never asked before, all at once; each must be answered. (dig waits 10 s,
    /// not 4: with the whole suite running six tests at once, a DNS-over-HTTPS miss once took
    /// longer than 4 s, while the suite alone answers all 24 in about 3 s.)
    static func expectConcurrentMisses(prefix: String, port: Int) async throws {
        try await withThrowingTaskGroup(of: DigAnswer.self) { group in
            for index in 0..<24 {
                group.addTask { try await Dig.query("\(prefix)\(index).example.test", port: port, extra: ["+time=10"]) }
            }
            for try await answer in group { #expect(answer.data == ["192.0.2.1"], "\(answer.output)") }
        }
    }

    static func tlsUpstream(of server: DNSServer) -> TLSUpstream? {
        guard case .tls(let upstream) = server.resolver.forwarder.upstreams.first else { return nil }
        return upstream
    }

    @Test(DNSTools.trait(["dig", "dnsmasq", "dnsdist", "openssl"])) func dnsOverTLSAnswersOnOneReusedConnection() async throws {
        try #require(Self.ready(), "dig, dnsmasq, dnsdist and openssl are needed")
        try await Self.withUpstreams { upstreams in
            let name = TestCertificateAuthority.serverName
            try await Self.withServer(
                upstream: "tls://127.0.0.1:\(upstreams.dnsdist.tlsPort)#\(name)", trusting: [upstreams.certificates.caCertificate]
            ) { server throws in
                let port = server.localAddress.port
                let first = try await Dig.query("www.example.test", port: port)
                #expect(first.status == "NOERROR", "\(first.output)")
                #expect(first.data == ["192.0.2.1"])
                // An answer of over 2 kB: no truncation over TLS.
                let big = try await Dig.query("big.example.test", "TXT", port: port, extra: ["+tcp"])
                #expect(big.output.contains(String(repeating: "h", count: 250)), "\(big.output)")
                // Filtering still applies to what comes back.
                #expect(try await Dig.query("cloaked.shop.test", port: port).status == "NXDOMAIN", "CNAME to a blocked name")
                #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN")
                // Many queries at once, each a cache miss, share the one connection.
                try await Self.expectConcurrentMisses(prefix: "n", port: port)
                #expect(Self.tlsUpstream(of: server)?.connectionsOpened == 1)
            }
        }
    }

    @Test(DNSTools.trait(["dig", "dnsmasq", "dnsdist", "openssl"])) func dnsOverTLSChecksTheCertificate() async throws {
        try #require(Self.ready(), "dig, dnsmasq, dnsdist and openssl are needed")
        // A certificate for dns.test only, not for the IP address.
        try await Self.withUpstreams(certificateNamesIPAddress: false) { upstreams in
            let ca = upstreams.certificates.caCertificate
            let port = upstreams.dnsdist.tlsPort
            try await Self.withServer(upstream: "tls://127.0.0.1:\(port)#\(TestCertificateAuthority.serverName)", trusting: [ca]) {
                server throws in
                #expect(try await Dig.query("named.example.test", port: server.localAddress.port).data == ["192.0.2.1"])
            }
            // Without a name, the certificate must name the IP address: it does not.
            try await Self.withServer(upstream: "tls://127.0.0.1:\(port)", trusting: [ca]) { server throws in
                let answer = try await Dig.query("no-name.example.test", port: server.localAddress.port)
                #expect(answer.status == "SERVFAIL", "\(answer.output)")
            }
            // A name the certificate does not carry.
            try await Self.withServer(upstream: "tls://127.0.0.1:\(port)#other.test", trusting: [ca]) { server throws in
                let answer = try await Dig.query("wrong-name.example.test", port: server.localAddress.port)
                #expect(answer.status == "SERVFAIL", "\(answer.output)")
            }
            // A CA that is not trusted: the system's roots do not include the test's.
            try await Self.withServer(upstream: "tls://127.0.0.1:\(port)#\(TestCertificateAuthority.serverName)", trusting: []) {
                server throws in
                let answer = try await Dig.query("untrusted.example.test", port: server.localAddress.port)
                #expect(answer.status == "SERVFAIL", "\(answer.output)")
            }
            let log = upstreams.dnsmasq.log
            #expect(log.contains("named.example.test"), "the query with the right name reached the backend")
            #expect(!log.contains("no-name") && !log.contains("wrong-name") && !log.contains("untrusted"), "\(log)")
        }
    }

    @Test(DNSTools.trait(["dig", "dnsmasq", "dnsdist", "openssl"])) func aRestartedTLSUpstreamIsReconnected() async throws {
        try #require(Self.ready(), "dig, dnsmasq, dnsdist and openssl are needed")
        try await Self.withUpstreams { upstreams in
            let tlsPort = upstreams.dnsdist.tlsPort
            // No name: the certificate is checked against the IP address, which it names.
            try await Self.withServer(upstream: "tls://127.0.0.1:\(tlsPort)", trusting: [upstreams.certificates.caCertificate]) {
                server throws in
                let port = server.localAddress.port
                #expect(try await Dig.query("before.example.test", port: port).data == ["192.0.2.1"])
                upstreams.dnsdist.stop()
                let down = try await Dig.query("down.example.test", port: port)
                #expect(down.status == "SERVFAIL", "no upstream: \(down.output)")
                let (backend, certificates, httpsPort) = (upstreams.dnsmasq.port, upstreams.certificates, upstreams.dnsdist.httpsPort)
                let again = try await Dnsdist(
                    backendPort: backend, checkName: "health.example.test", certificates: certificates, tlsPort: tlsPort,
                    httpsPort: httpsPort)
                defer { again.stop() }
                let after = try await Dig.query("after.example.test", port: port)
                #expect(after.data == ["192.0.2.1"], "a new connection to the restarted upstream: \(after.output)")
                #expect((Self.tlsUpstream(of: server)?.connectionsOpened ?? 0) >= 2)
            }
        }
    }

    @Test(DNSTools.trait(["dig", "dnsmasq", "dnsdist", "openssl"])) func dnsOverHTTPSAnswers() async throws {
        try #require(Self.ready(), "dig, dnsmasq, dnsdist and openssl are needed")
        try await Self.withUpstreams { upstreams in
            let url = "https://127.0.0.1:\(upstreams.dnsdist.httpsPort)/dns-query"
            try await Self.withServer(upstream: url, trusting: [upstreams.certificates.caCertificate]) { server throws in
                let port = server.localAddress.port
                let answer = try await Dig.query("www.example.test", port: port)
                #expect(answer.status == "NOERROR", "\(answer.output)")
                #expect(answer.data == ["192.0.2.1"])
                let big = try await Dig.query("big.example.test", "TXT", port: port, extra: ["+tcp"])
                #expect(big.output.contains(String(repeating: "h", count: 250)), "\(big.output)")
                #expect(try await Dig.query("cloaked.shop.test", port: port).status == "NXDOMAIN", "CNAME to a blocked name")
                try await Self.expectConcurrentMisses(prefix: "h", port: port)
            }
            // Not trusted, and a path the server does not serve: both fail cleanly.
            try await Self.withServer(upstream: url, trusting: []) { server throws in
                #expect(try await Dig.query("untrusted.example.test", port: server.localAddress.port).status == "SERVFAIL")
            }
            let wrongPath = "https://127.0.0.1:\(upstreams.dnsdist.httpsPort)/nothing-here"
            try await Self.withServer(upstream: wrongPath, trusting: [upstreams.certificates.caCertificate]) { server throws in
                #expect(try await Dig.query("nopath.example.test", port: server.localAddress.port).status == "SERVFAIL")
            }
        }
    }

    @Test func anUnreadableCertificateFileIsAClearError() async throws {
        var logger = Logger(label: "test.dns")
        logger.logLevel = .critical
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-cert-\(UUID().uuidString).pem")
        try "hello".write(to: bogus, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bogus) }
        let configuration = DNSServerConfiguration(
            listen: ListenAddress(host: IPAddress("127.0.0.1")!, port: 0), upstreams: [try UpstreamAddress("tls://127.0.0.1:853")],
            threads: 1, trustedCertificates: [bogus.path])
        do {
            let server = try await DNSServer.start(configuration: configuration, filter: try DNSServerTests.filter(), logger: logger)
            await server.shutdown()
            Issue.record("a file that holds no certificate was accepted")
        } catch let error as UpstreamError {
            #expect("\(error)".contains(bogus.path), "\(error)")
        }
    }
}
