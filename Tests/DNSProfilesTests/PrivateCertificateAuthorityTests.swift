import DNSFilter
import DNSProfiles
import Foundation
import PepperFiles
import PepperTestSupport
import Testing

/// The private CA of `pepper dns certificate`, checked by real openssl: the chain verifies for a
/// TLS server, the names and addresses match, and what must be refused is.
@Suite("Private CA and server certificates", .enabled(if: OpenSSL.path != nil, "openssl is needed"))
struct PrivateCertificateAuthorityTests {
    @Test("The server certificate verifies against the CA for a TLS server, for the server, its devices and its addresses")
    func chainVerifies() async throws {
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-ca")))
        let made = try files.make(serverName: "DNS.Example", addresses: ["192.0.2.53", "2001:db8::53"])
        #expect(made.newCertificateAuthority && !made.replacedCertificateAuthority)
        #expect(made.server.dnsNames == ["dns.example", "*.dns.example"])

        let verified = try await OpenSSL.run([
            "verify", "-CAfile", files.caCertificate.path, "-purpose", "sslserver", files.serverCertificate.path,
        ])
        #expect(verified.status == 0 && verified.stdout.contains(": OK"), "\(verified.stdout)\(verified.stderr)")
        for (host, matches) in [("dns.example", true), ("phone.dns.example", true), ("a.b.dns.example", false), ("other.example", false)] {
            let checked = try await OpenSSL.run(["x509", "-in", files.serverCertificate.path, "-noout", "-checkhost", host])
            #expect(checked.stdout.contains("does match") == matches, "\(host): \(checked.stdout)")
        }
        for (ip, matches) in [("192.0.2.53", true), ("2001:db8::53", true), ("192.0.2.54", false)] {
            let checked = try await OpenSSL.run(["x509", "-in", files.serverCertificate.path, "-noout", "-checkip", ip])
            #expect(checked.stdout.contains("does match") == matches, "\(ip): \(checked.stdout)")
        }

        // The CA as devices see it: its name, a CA that signs certificates, for 10 years.
        let ca = try await OpenSSL.run(["x509", "-in", files.caCertificate.path, "-noout", "-subject", "-ext", "basicConstraints,keyUsage"])
        #expect(ca.stdout.contains("CN = Pepper private CA (dns.example)"), "\(ca.stdout)")
        #expect(ca.stdout.contains("CA:TRUE") && ca.stdout.contains("Certificate Sign, CRL Sign"), "\(ca.stdout)")
        let authority = made.certificateAuthority.certificate
        #expect(abs(authority.notValidAfter.timeIntervalSince(authority.notValidBefore) - 3_650 * 86_400) < 1)
        // Apple's limit for a TLS server certificate: 825 days.
        let server = made.server.certificate
        #expect(server.notValidAfter.timeIntervalSince(server.notValidBefore) <= 825 * 86_400)
        #expect(server.notValidAfter.timeIntervalSince(server.notValidBefore) > 824 * 86_400)
        let usage = try await OpenSSL.run([
            "x509", "-in", files.serverCertificate.path, "-noout", "-ext", "extendedKeyUsage,basicConstraints",
        ])
        #expect(usage.stdout.contains("TLS Web Server Authentication") && usage.stdout.contains("CA:FALSE"), "\(usage.stdout)")

        // Each key is its certificate's, and only its owner may read it.
        for (key, certificate) in [(files.caKey, files.caCertificate), (files.serverKey, files.serverCertificate)] {
            let fromKey = try await OpenSSL.run(["pkey", "-in", key.path, "-pubout"])
            let fromCertificate = try await OpenSSL.run(["x509", "-in", certificate.path, "-noout", "-pubkey"])
            #expect(fromKey.status == 0 && fromKey.stdout == fromCertificate.stdout)
            #expect(try permissions(key) == 0o600)
            #expect(try permissions(certificate) == 0o644)
        }
        #expect(try permissions(files.directory) == 0o700)
    }

    @Test("A new server certificate keeps the CA devices trust; --replace-ca makes a new one that the old certificate does not chain to")
    func reissueKeepsTheCA() async throws {
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-ca")))
        _ = try files.make(serverName: "dns.example")
        let firstCA = try Data(contentsOf: files.caCertificate)
        let firstServer = try Data(contentsOf: files.serverCertificate)

        let again = try files.make(serverName: "dns.example", addresses: ["192.0.2.1"])
        #expect(!again.newCertificateAuthority)
        #expect(try Data(contentsOf: files.caCertificate) == firstCA)
        #expect(try Data(contentsOf: files.serverCertificate) != firstServer)
        #expect(
            try await OpenSSL.run(["verify", "-CAfile", files.caCertificate.path, "-purpose", "sslserver", files.serverCertificate.path])
                .status == 0)
        #expect(
            try await OpenSSL.run(["x509", "-in", files.serverCertificate.path, "-noout", "-checkip", "192.0.2.1"]).stdout.contains(
                "does match"))

        let keptServer = TestPaths.temporaryDirectory("dns-ca-old").appendingPathComponent("server.pem")
        try FileManager.default.copyItem(at: files.serverCertificate, to: keptServer)
        let replaced = try files.make(serverName: "dns.example", replaceCertificateAuthority: true)
        #expect(replaced.newCertificateAuthority && replaced.replacedCertificateAuthority)
        #expect(try Data(contentsOf: files.caCertificate) != firstCA)
        #expect(try await OpenSSL.run(["verify", "-CAfile", files.caCertificate.path, files.serverCertificate.path]).status == 0)
        #expect(try await OpenSSL.run(["verify", "-CAfile", files.caCertificate.path, keptServer.path]).status != 0)
    }

    @Test("Refused with the reason, and nothing written: a bad server name or address, an existing CA, a missing or mismatched key")
    func refusals() throws {
        let home = TestPaths.temporaryDirectory("dns-ca")
        let files = DNSCertificateFiles(home: PepperHome(url: home))
        for name in ["dns", "192.0.2.1", "bad_name.example", "", "-a.example", "a..example"] {
            #expect(throws: DNSCertificateError.self, "\(name)") { try files.make(serverName: name) }
        }
        #expect(throws: DNSCertificateError.invalidServerName(.singleLabel("dns"))) { try files.make(serverName: "dns") }
        #expect(throws: DNSCertificateError.invalidAddress("300.1.1.1")) {
            try files.make(serverName: "dns.example", addresses: ["300.1.1.1"])
        }
        #expect(throws: DNSCertificateError.noCertificateAuthority(files.directory.path)) {
            try files.issueServerCertificate(serverName: "dns.example")
        }
        #expect(!FileManager.default.fileExists(atPath: files.directory.path), "a refusal writes nothing")

        _ = try files.make(serverName: "dns.example")
        #expect(throws: DNSCertificateError.certificateAuthorityExists(files.directory.path)) {
            try files.createCertificateAuthority(serverName: "dns.example")
        }
        let server = try Data(contentsOf: files.serverCertificate)

        // Another key in the CA's place: refused, and the server certificate stays as it was.
        let caKey = try Data(contentsOf: files.caKey)
        try FileManager.default.removeItem(at: files.caKey)
        try FileManager.default.copyItem(at: files.serverKey, to: files.caKey)
        #expect(throws: DNSCertificateError.keyMismatch(certificate: files.caCertificate.path, key: files.caKey.path)) {
            try files.make(serverName: "dns.example")
        }
        #expect(try Data(contentsOf: files.serverCertificate) == server)

        // No key at all, then a certificate that is not one.
        try FileManager.default.removeItem(at: files.caKey)
        #expect(throws: DNSCertificateError.self) { try files.make(serverName: "dns.example") }
        try caKey.write(to: files.caKey)
        try Data("not a certificate".utf8).write(to: files.caCertificate)
        let unreadable = #expect(throws: DNSCertificateError.self) { try files.make(serverName: "dns.example") }
        #expect(unreadable.map { "\($0)" }?.contains("ca.pem: not a PEM certificate") == true, "\(String(describing: unreadable))")
        #expect(try Data(contentsOf: files.serverCertificate) == server)

        // Replacing is the way out, when asked for.
        #expect(try files.make(serverName: "dns.example", replaceCertificateAuthority: true).replacedCertificateAuthority)
    }

    @Test("The home's CA is offered for a server only when the home's certificate, issued by it, names that server")
    func homeCAForServer() throws {
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-ca")))
        #expect(files.certificateAuthority(forServer: "dns.example") == nil)
        _ = try files.make(serverName: "dns.example")
        #expect(files.certificateAuthority(forServer: "DNS.example") == files.caCertificate)
        #expect(files.certificateAuthority(forServer: "other.example") == nil)
        // A server certificate from another CA (replaced behind its back) is not this CA's.
        let other = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-ca")))
        _ = try other.make(serverName: "dns.example")
        try FileManager.default.removeItem(at: files.serverCertificate)
        try FileManager.default.copyItem(at: other.serverCertificate, to: files.serverCertificate)
        #expect(files.certificateAuthority(forServer: "dns.example") == nil)
    }

    private func permissions(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) & 0o777
    }
}

/// The openssl program.
enum OpenSSL {
    /// Its path, when installed.
    static let path: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `openssl arguments`.
    static func run(_ arguments: [String], stdin: Data? = nil) async throws -> PepperProcess.Outcome {
        try await Subprocess.run(URL(fileURLWithPath: try #require(path)), arguments, stdin: stdin)
    }
}
