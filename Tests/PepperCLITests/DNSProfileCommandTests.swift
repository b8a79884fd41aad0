import DNSFilter
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

        // A running server serving both, with the home's CA (the status `pepper dns serve` writes).
        try DNSServerStatus(
            listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
            encrypted: EncryptedDNSEndpoint(serverName: "dns.home.arpa", httpsPort: 443, tlsPort: 853),
            privateCA: home.appendingPathComponent("dns-tls/ca.pem").path
        ).write(home: PepperHome(url: home))
        let output = home.appendingPathComponent("phone.mobileconfig")
        let profile = try await PepperProcess.run(["dns", "profile", "--device", "phone", "--output", output.path], home: home)
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(
            profile.stdout.contains("(DNS over HTTPS to https://dns.home.arpa/dns-query/phone; with Pepper private CA (dns.home.arpa))"))
        #expect(profile.stdout.contains("Android Private DNS:  phone.dns.home.arpa"))
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
