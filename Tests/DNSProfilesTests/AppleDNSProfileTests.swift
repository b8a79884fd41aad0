import DNSFilter
import DNSProfiles
import Foundation
import PepperFiles
import PepperTestSupport
import Testing

/// The Apple profiles, checked by `scripts/check-dns-profile.py` (Python's plistlib against the
/// payload keys Apple documents, the CA's DER through openssl), and the check itself shown to
/// refuse broken ones.
@Suite("Apple DNS profiles", .enabled(if: OpenSSL.path != nil && CheckScript.python != nil, "openssl and python3 are needed"))
struct AppleDNSProfileTests {
    let endpoint = EncryptedDNSEndpoint(serverName: "dns.example", httpsPort: 8443, tlsPort: 853)

    @Test("Profiles for DNS over HTTPS (with the private CA) and TLS (without) pass the check")
    func profilesPassTheCheck() async throws {
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-profile")))
        _ = try files.make(serverName: "dns.example")
        let root = try AppleDNSProfile.RootCertificate(pem: files.caCertificate.path)
        #expect(root.name == "Pepper private CA (dns.example)")
        let phone = try DNSDeviceName("phone")
        let https = try AppleDNSProfile(device: phone, endpoint: endpoint, transport: .https, rootCertificate: root)
        let tls = try AppleDNSProfile(
            device: try DNSDeviceName("laptop"), endpoint: endpoint, transport: .tls, serverAddresses: ["192.0.2.53", "2001:db8::53"])
        #expect(https.fileName == "phone.mobileconfig")

        let folder = TestPaths.temporaryDirectory("dns-profile")
        let paths = [folder.appendingPathComponent("phone.mobileconfig"), folder.appendingPathComponent("laptop.mobileconfig")]
        try https.propertyList().write(to: paths[0])
        try tls.propertyList().write(to: paths[1])
        let checked = try await CheckScript.run(paths.map(\.path))
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(
            checked.stdout.contains(
                "phone.mobileconfig: OK (root certificate Pepper private CA (dns.example); HTTPS https://dns.example:8443/dns-query/phone)")
        )
        #expect(checked.stdout.contains("laptop.mobileconfig: OK (TLS laptop.dns.example)"))

        // What the device gets: the settings, and the CA exactly as ca.pem holds it.
        let profile = try plist(paths[0])
        let payloads = try #require(profile["PayloadContent"] as? [[String: Any]])
        #expect(payloads.map { $0["PayloadType"] as? String } == ["com.apple.security.root", "com.apple.dnsSettings.managed"])
        let settings = try #require(payloads[1]["DNSSettings"] as? [String: Any])
        #expect(settings["DNSProtocol"] as? String == "HTTPS")
        #expect(settings["ServerURL"] as? String == "https://dns.example:8443/dns-query/phone")
        #expect(payloads[0]["PayloadContent"] as? Data == (try derOf(files.caCertificate)))
        let tlsSettings = try #require((try plist(paths[1])["PayloadContent"] as? [[String: Any]])?.first?["DNSSettings"] as? [String: Any])
        #expect(tlsSettings["ServerName"] as? String == "laptop.dns.example")
        #expect(tlsSettings["ServerAddresses"] as? [String] == ["192.0.2.53", "2001:db8::53"])
        #expect(tlsSettings["ServerURL"] == nil)
    }

    @Test("A device's profile keeps its identifiers and UUIDs from one download to the next, so installing it again replaces it")
    func stableIdentity() throws {
        let phone = try DNSDeviceName("phone")
        func identity(_ profile: AppleDNSProfile) throws -> [String] {
            let dictionary = try #require(
                try PropertyListSerialization.propertyList(from: profile.propertyList(), format: nil) as? [String: Any])
            let payloads = try #require(dictionary["PayloadContent"] as? [[String: Any]])
            return ([dictionary] + payloads).flatMap { [$0["PayloadIdentifier"] as? String ?? "", $0["PayloadUUID"] as? String ?? ""] }
        }
        let first = try identity(AppleDNSProfile(device: phone, endpoint: endpoint, transport: .https))
        #expect(try identity(AppleDNSProfile(device: phone, endpoint: endpoint, transport: .https)) == first)
        // Switching the phone to DNS over TLS replaces its DNS settings rather than adding others.
        #expect(try identity(AppleDNSProfile(device: phone, endpoint: endpoint, transport: .tls)) == first)
        let tablet = try identity(AppleDNSProfile(device: try DNSDeviceName("tablet"), endpoint: endpoint, transport: .https))
        #expect(Set(tablet).isDisjoint(with: first))
        let uuid = try #require(first.last)
        #expect(UUID(uuidString: uuid) != nil && uuid.count == 36)
    }

    @Test("No profile for a transport the server does not serve, or for DNS over TLS off port 853")
    func refusedEndpoints() throws {
        let phone = try DNSDeviceName("phone")
        #expect(throws: AppleDNSProfile.Problem.notServed(.tls, serverName: "dns.example")) {
            try AppleDNSProfile(device: phone, endpoint: EncryptedDNSEndpoint(serverName: "dns.example", tlsPort: nil), transport: .tls)
        }
        #expect(throws: AppleDNSProfile.Problem.tlsPort(8853)) {
            try AppleDNSProfile(device: phone, endpoint: EncryptedDNSEndpoint(serverName: "dns.example", tlsPort: 8853), transport: .tls)
        }
        #expect(throws: AppleDNSProfile.Problem.address("dns.example")) {
            try AppleDNSProfile(device: phone, endpoint: endpoint, transport: .https, serverAddresses: ["dns.example"])
        }
        // A certificate that is not a CA's is not put in a profile as one.
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-profile")))
        _ = try files.make(serverName: "dns.example")
        #expect(throws: DNSCertificateError.notACertificateAuthority(files.serverCertificate.path)) {
            try AppleDNSProfile.RootCertificate(pem: files.serverCertificate.path)
        }
    }

    @Test("The check refuses a broken profile, saying why", arguments: Breakage.allCases)
    func checkRefuses(_ breakage: Breakage) async throws {
        let files = DNSCertificateFiles(home: PepperHome(url: TestPaths.temporaryDirectory("dns-profile")))
        _ = try files.make(serverName: "dns.example")
        let good = try AppleDNSProfile(
            device: try DNSDeviceName("phone"), endpoint: endpoint, transport: .https,
            rootCertificate: try AppleDNSProfile.RootCertificate(pem: files.caCertificate.path))
        var profile = try #require(try PropertyListSerialization.propertyList(from: good.propertyList(), format: nil) as? [String: Any])
        var payloads = try #require(profile["PayloadContent"] as? [[String: Any]])
        var settings = try #require(payloads[1]["DNSSettings"] as? [String: Any])
        switch breakage {
        case .plainHTTPURL: settings["ServerURL"] = "http://dns.example/dns-query/phone"
        case .unknownKey: settings["ServerPort"] = 853
        case .missingProtocol: settings["DNSProtocol"] = nil
        case .serverNameWithHTTPS: settings["ServerName"] = "phone.dns.example"
        case .addressNotIP: settings["ServerAddresses"] = ["dns.example"]
        case .versionAsText: profile["PayloadVersion"] = "1"
        case .missingUUID: payloads[1]["PayloadUUID"] = nil
        case .sameIdentifierTwice: payloads[1]["PayloadIdentifier"] = payloads[0]["PayloadIdentifier"]
        case .certificateNotDER: payloads[0]["PayloadContent"] = Data("-----BEGIN CERTIFICATE-----".utf8)
        case .certificateNotACA: payloads[0]["PayloadContent"] = try derOf(files.serverCertificate)
        }
        payloads[1]["DNSSettings"] = settings
        profile["PayloadContent"] = payloads
        let path = TestPaths.temporaryDirectory("dns-profile").appendingPathComponent("broken.mobileconfig")
        try PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0).write(to: path)
        let checked = try await CheckScript.run([path.path])
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stdout.contains(breakage.reason), "\(checked.stdout)")
    }

    enum Breakage: String, CaseIterable, Sendable {
        case plainHTTPURL, unknownKey, missingProtocol, serverNameWithHTTPS, addressNotIP, versionAsText, missingUUID, sameIdentifierTwice,
            certificateNotDER, certificateNotACA

        /// What the check must say.
        var reason: String {
            switch self {
            case .plainHTTPURL: "DNSSettings.ServerURL: 'http://dns.example/dns-query/phone' is not an https:// URL"
            case .unknownKey: "DNSSettings.ServerPort: unknown key"
            case .missingProtocol: "DNSSettings.DNSProtocol: required key missing"
            case .serverNameWithHTTPS: "DNSSettings.ServerName: only with DNSProtocol TLS"
            case .addressNotIP: "ServerAddresses[0]: 'dns.example' is not an IP address"
            case .versionAsText: "PayloadVersion: an integer, not a string"
            case .missingUUID: "PayloadContent[1].PayloadUUID: required key missing"
            case .sameIdentifierTwice: "PayloadContent[1].PayloadIdentifier:"
            case .certificateNotDER: "PayloadContent[0].PayloadContent: not a DER certificate"
            case .certificateNotACA: "the certificate is not a CA's"
            }
        }
    }

    private func plist(_ url: URL) throws -> [String: Any] {
        try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
    }

    /// The DER bytes of a PEM certificate file, as openssl converts them.
    private func derOf(_ pem: URL) throws -> Data {
        let der = TestPaths.temporaryDirectory("dns-profile").appendingPathComponent("cert.der")
        let converted = try Subprocess.runBlocking(
            URL(fileURLWithPath: try #require(OpenSSL.path)), ["x509", "-in", pem.path, "-outform", "DER", "-out", der.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        return try Data(contentsOf: der)
    }
}

/// `scripts/check-dns-profile.py`.
enum CheckScript {
    /// python3, when installed.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs the check on `paths`.
    static func run(_ paths: [String]) async throws -> PepperProcess.Outcome {
        let script = TestPaths.repository.appendingPathComponent("scripts/check-dns-profile.py").path
        return try await Subprocess.run(URL(fileURLWithPath: try #require(python)), [script] + paths)
    }
}
