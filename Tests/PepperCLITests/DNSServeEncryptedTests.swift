import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

/// `pepper dns serve --tls-listen --https-listen` as a user runs it: the built binary, its
/// errors, its ready line and status file, kdig and dig +https, the query log and the metrics.
@Suite("pepper dns serve over TLS and HTTPS", .serialized)
struct DNSServeEncryptedTests {
    static let tools = ["dig", "dnsmasq", "kdig", "openssl", "curl"]

    @Test func encryptedListenersNeedANameACertificateAndAKeyThatWork() async throws {
        let home = TestPaths.temporaryDirectory("dns-tls-errors")
        defer { try? FileManager.default.removeItem(at: home) }
        let base = ["dns", "serve", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:9"]
        let noName = try await PepperProcess.run(base + ["--tls-listen", "127.0.0.1:0"], home: home)
        #expect(noName.status == 64 && noName.stderr.contains("need --server-name"), "\(noName.stderr)")
        let badName = try await PepperProcess.run(base + ["--tls-listen", "127.0.0.1:0", "--server-name", "not a name"], home: home)
        #expect(
            badName.status == 64 && badName.stderr.contains("--server-name not a name: 'not a name' is not a host-name label"),
            "\(badName.stderr)")
        let noCertificate = try await PepperProcess.run(base + ["--https-listen", "127.0.0.1:0", "--server-name", "dns.test"], home: home)
        #expect(
            noCertificate.status == 64 && noCertificate.stderr.contains("`pepper dns certificate --server-name dns.test` makes it"),
            "\(noCertificate.stderr)")
        let alone = try await PepperProcess.run(base + ["--server-name", "dns.test"], home: home)
        #expect(alone.status == 64 && alone.stderr.contains("give one of them"), "\(alone.stderr)")
        let badDevice = try await PepperProcess.run(base + ["--device", "my_phone"], home: home)
        #expect(badDevice.status == 64 && badDevice.stderr.contains("only letters, digits and '-'"), "\(badDevice.stderr)")
        let badRate = try await PepperProcess.run(base + ["--rate-burst", "5"], home: home)
        #expect(badRate.status == 64 && badRate.stderr.contains("--rate-burst needs --rate-limit"), "\(badRate.stderr)")

        // A file that is no certificate: a clear error before anything listens.
        let junk = home.appendingPathComponent("junk.pem")
        try "not a certificate\n".write(to: junk, atomically: true, encoding: .utf8)
        let notPEM = try await PepperProcess.run(
            base + ["--tls-listen", "127.0.0.1:0", "--server-name", "dns.test", "--tls-cert", junk.path, "--tls-key", junk.path], home: home
        )
        #expect(notPEM.status == 1 && notPEM.stderr.contains("\(junk.path): not a PEM certificate"), "\(notPEM.stderr)")
        #expect(!notPEM.stderr.contains("Fatal error"))
        // A key of another certificate.
        try #require(DNSTools.ready(["openssl"]), "openssl is needed")
        let one = try await TestCertificateAuthority()
        defer { one.remove() }
        let other = try await TestCertificateAuthority()
        defer { other.remove() }
        let mismatched = try await PepperProcess.run(
            base + [
                "--tls-listen", "127.0.0.1:0", "--server-name", "dns.test", "--tls-cert", one.serverCertificate, "--tls-key",
                other.serverKey,
            ], home: home)
        #expect(mismatched.status == 1 && mismatched.stderr.contains("cannot be used with \(other.serverKey)"), "\(mismatched.stderr)")
    }

    @Test(DNSTools.trait(tools))
    func devicesAreNamedInTheLogTheMetricsAndTheStatus() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        let home = TestPaths.temporaryDirectory("dns-tls")
        defer { try? FileManager.default.removeItem(at: home) }
        let certificates = try await TestCertificateAuthority(names: ["dns.test", "*.dns.test"])
        defer { certificates.remove() }
        let upstream = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1"])
        defer { upstream.stop() }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n".write(to: list, atomically: true, encoding: .utf8)
        let groups = home.appendingPathComponent("groups.json")
        try #"{"groups": [{"name": "kids", "devices": ["tablet"], "lists": ["\#(list.path)"], "allowlist": []}]}"#
            .write(to: groups, atomically: true, encoding: .utf8)
        let (port, tlsPort, httpsPort, metricsPort) = (DNSTools.freePort(), DNSTools.freePort(), DNSTools.freePort(), DNSTools.freePort())
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstream.port)", "--server-name", "dns.test",
                "--tls-listen", "127.0.0.1:\(tlsPort)", "--https-listen", "127.0.0.1:\(httpsPort)", "--tls-cert",
                certificates.serverCertificate, "--tls-key", certificates.serverKey, "--groups", groups.path, "--metrics",
                "127.0.0.1:\(metricsPort)", "--rate-limit", "20", "--rate-burst", "20",
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        #expect(
            serve.log.contains("DNS over TLS on 127.0.0.1:\(tlsPort); DNS over HTTPS on https://127.0.0.1:\(httpsPort)/dns-query"),
            "\(serve.log)")

        // The status file tells the console (and `pepper dns profile`) what devices are given.
        let status = try JSONSerialization.jsonObject(with: Data(contentsOf: home.appendingPathComponent("run/dns.json"))) as? [String: Any]
        let encrypted = status?["encrypted"] as? [String: Any]
        #expect(encrypted?["serverName"] as? String == "dns.test")
        #expect(encrypted?["tlsPort"] as? Int == tlsPort && encrypted?["httpsPort"] as? Int == httpsPort, "\(String(describing: status))")

        let kdig = try #require(DNSTools.path("kdig"))
        let tablet = try await ChildProcess.output(
            kdig,
            ["@127.0.0.1", "-p", "\(tlsPort)", "+tls-ca=\(certificates.caCertificate)", "+tls-hostname=tablet.dns.test", "tracker.test"])
        #expect(tablet.contains("status: NXDOMAIN"), "the kids' group's list: \(tablet)")
        #expect(try await Dig.query("example.test", port: httpsPort, extra: ["+https=/dns-query/phone"]).data == ["192.0.2.1"])
        // Over the rate: REFUSED, counted.
        var refused = 0
        for index in 0..<40 {
            if let reply = await RawDNS.exchange(RawDNS.query("example.test", id: UInt16(index)), port: port, timeout: 2),
                reply[3] & 0x0F == 5
            {
                refused += 1
            }
        }
        #expect(refused >= 10, "\(refused) of 40 refused")

        let metrics = try #require(await RawHTTP.get(port: metricsPort, host: "127.0.0.1", path: "/metrics"))
        #expect(metrics.contains(#"pepper_dns_device_queries_total{device="tablet"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"pepper_dns_queries_total{outcome="blocked",transport="tls"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"pepper_dns_rate_limited_total{transport="udp"} \#(refused)"#), "\(metrics)")

        kill(serve.process.pid, SIGTERM)
        #expect(await serve.process.exited() == 0, "\(serve.log)")
        let log = try await PepperProcess.run(["dns", "log", "--limit", "100"], home: home)
        #expect(log.stdout.contains("tablet (127.0.0.1)\tA\ttracker.test\tblocked\tNXDOMAIN"), "\(log.stdout)")
        #expect(log.stdout.contains("phone (127.0.0.1)\tA\texample.test\tforwarded"), "\(log.stdout)")
    }
}
