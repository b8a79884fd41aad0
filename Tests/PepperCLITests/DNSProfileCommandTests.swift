import DNSFilter
import DNSTestSupport
import Foundation
import PepperActions
import PepperFiles
import PepperTestSupport
import Testing

/// `pepper dns certificate` and `pepper dns profile`, run as a person runs them.
@Suite("pepper dns certificate and profile")
struct DNSProfileCommandTests {
    @Test func certificateThenProfileFromTheRunningServer() async throws {
        let home = TestPaths.temporaryDirectory("dns-profile-cli")
        let made = try await PepperProcess.run(["dns", "certificate", "--server-name", "dns.home.arpa", "--ip", "192.168.1.2"], home: home)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("Made a private CA: \(home.path)/dns-tls/ca.pem (Pepper private CA (dns.home.arpa)"))
        #expect(made.stdout.contains("for dns.home.arpa, *.dns.home.arpa, 192.168.1.2, until"))
        #expect(made.stdout.contains("pepper dns serve --server-name dns.home.arpa --tls-listen IP:853 --https-listen IP:443"))
        #expect(made.stdout.contains("install the profile on each device"))
        let again = try await PepperProcess.run(["dns", "certificate", "--server-name", "dns.home.arpa"], home: home)
        #expect(again.status == 0 && again.stdout.contains("Kept the private CA"))

        // A running server serving both (the status `pepper dns serve` writes), given the home's
        // certificate by --tls-cert: the home's CA goes in the profile.
        try DNSServerStatus(
            listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
            encrypted: EncryptedDNSEndpoint(serverName: "dns.home.arpa", httpsPort: 443, tlsPort: 853)
        ).write(home: PepperHome(url: home))
        let output = home.appendingPathComponent("phone.mobileconfig")
        let profile = try await PepperProcess.run(["dns", "profile", "--device", "phone", "--output", output.path], home: home)
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(
            profile.stdout.contains("(DNS over HTTPS to https://dns.home.arpa/dns-query/phone; with Pepper private CA (dns.home.arpa))"))
        #expect(profile.stdout.contains("Android Private DNS:  phone.dns.home.arpa (with a certificate from a public CA)"))
        let checked = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestPaths.repository.appendingPathComponent("scripts/check-dns-profile.py").path, output.path])
        #expect(checked.status == 0 && checked.stdout.contains("root certificate Pepper private CA (dns.home.arpa)"), "\(checked.stdout)")

        // To standard output, the addresses on standard error.
        let piped = try await PepperProcess.run(
            ["dns", "profile", "--device", "laptop", "--protocol", "tls", "--no-ca", "--output", "-"], home: home)
        #expect(piped.status == 0 && piped.stdout.hasPrefix("<?xml") && piped.stdout.contains("<string>laptop.dns.home.arpa</string>"))
        #expect(!piped.stdout.contains("com.apple.security.root") && piped.stderr.contains("DNS over TLS:         laptop.dns.home.arpa"))
    }

    /// The certificates `pepper dns certificate` makes, served by the real `pepper dns serve` (by
    /// default, without --tls-cert and --tls-key) and
    /// verified by the clients against the private CA alone: kdig over TLS as a device
    /// (`phone.dns.test`, the wildcard), curl over HTTPS; then the profile of that running server.
    @Test(DNSTools.trait(DNSServeEncryptedTests.tools))
    func theHomesCertificateServesDNSOverTLSAndHTTPS() async throws {
        try #require(DNSTools.ready(DNSServeEncryptedTests.tools), "\(DNSServeEncryptedTests.tools) are needed")
        let home = TestPaths.temporaryDirectory("dns-profile-serve")
        defer { try? FileManager.default.removeItem(at: home) }
        let made = try await PepperProcess.run(["dns", "certificate", "--server-name", "dns.test", "--ip", "127.0.0.1"], home: home)
        #expect(made.status == 0, "\(made.stderr)")
        let tlsFiles = home.appendingPathComponent("dns-tls")
        let ca = tlsFiles.appendingPathComponent("ca.pem").path
        let upstream = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1"])
        defer { upstream.stop() }
        let (port, tlsPort, httpsPort) = (DNSTools.freePort(), DNSTools.freePort(), DNSTools.freePort())
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstream.port)", "--server-name", "dns.test", "--tls-listen",
                "127.0.0.1:\(tlsPort)", "--https-listen", "127.0.0.1:\(httpsPort)",
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        // Without --tls-cert and --tls-key it serves the home's, and says that devices need the CA.
        let status = try JSONSerialization.jsonObject(with: Data(contentsOf: home.appendingPathComponent("run/dns.json"))) as? [String: Any]
        #expect(status?["privateCA"] as? String == ca, "\(String(describing: status))")

        let kdig = try #require(DNSTools.path("kdig"))
        let overTLS = try await ChildProcess.output(
            kdig, ["@127.0.0.1", "-p", "\(tlsPort)", "+tls-ca=\(ca)", "+tls-hostname=phone.dns.test", "example.test"])
        #expect(overTLS.contains("status: NOERROR") && overTLS.contains("192.0.2.1"), "\(overTLS)")
        // A name the certificate does not cover fails the client's check.
        let wrongName = try await ChildProcess.output(
            kdig, ["@127.0.0.1", "-p", "\(tlsPort)", "+tls-ca=\(ca)", "+tls-hostname=phone.other.test", "example.test"])
        #expect(!wrongName.contains("192.0.2.1"), "\(wrongName)")

        let query = Data(RawDNS.query("example.test")).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let answer = home.appendingPathComponent("answer.bin")
        let overHTTPS = try await ChildProcess.output(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", ca, "--resolve", "dns.test:\(httpsPort):127.0.0.1", "-H", "accept: application/dns-message", "-o",
                answer.path,
                "-w", "%{http_code} %{content_type}", "https://dns.test:\(httpsPort)/dns-query/phone?dns=\(query)",
            ])
        #expect(overHTTPS == "200 application/dns-message", "\(overHTTPS)")
        let bytes = try [UInt8](Data(contentsOf: answer))
        #expect(bytes.count > 12 && bytes[7] >= 1 && Array(bytes.suffix(4)) == [192, 0, 2, 1], "\(bytes)")

        // The profile of this running server: its HTTPS port, and the home's CA that issued its certificate.
        let profile = try await PepperProcess.run(["dns", "profile", "--device", "phone", "--output", "-"], home: home)
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(profile.stdout.contains("<string>https://dns.test:\(httpsPort)/dns-query/phone</string>"), "\(profile.stdout)")
        #expect(profile.stdout.contains("<string>com.apple.security.root</string>"))
        #expect(profile.stderr.contains("DNS over TLS:         phone.dns.test"), "\(profile.stderr)")
    }

    @Test func refusalsSayWhatToDo() async throws {
        let home = TestPaths.temporaryDirectory("dns-profile-cli")
        let none = try await PepperProcess.run(["dns", "profile", "--device", "phone"], home: home)
        #expect(none.status == 1 && none.stderr.contains("--server-name HOST --tls-listen IP:853 --https-listen IP:443"), "\(none.stderr)")
        let badDevice = try await PepperProcess.run(["dns", "profile", "--device", "my_phone", "--server-name", "dns.example"], home: home)
        #expect(badDevice.status == 1 && badDevice.stderr.contains("A device name has only letters, digits and '-'"), "\(badDevice.stderr)")
        let both = try await PepperProcess.run(["dns", "profile", "--device", "phone", "--ca", "/etc/hostname", "--no-ca"], home: home)
        #expect(both.status == 64 && both.stderr.contains("--ca and --no-ca cannot be given together"))
        let badName = try await PepperProcess.run(["dns", "certificate", "--server-name", "dns"], home: home)
        #expect(badName.status == 1 && badName.stderr.contains("dns is one label"), "\(badName.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("dns-tls").path))
        let help = try await PepperProcess.run(["dns", "profile", "--help"], home: home)
        #expect(help.stdout.contains("Example: pepper dns profile --device phone") && help.stdout.contains("--protocol <protocol>"))
    }
}
