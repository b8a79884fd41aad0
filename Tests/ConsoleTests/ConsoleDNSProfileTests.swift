import DNSFilter
import DNSProfiles
import Foundation
import PepperActions
import PepperTestSupport
import Testing

/// The DNS page's "Phones and laptops away from home": a device's addresses and its Apple
/// profile from the running server's status, and the form's errors.
@Suite("Console: encrypted DNS for a person's devices")
struct ConsoleDNSProfileTests {
    @Test func withoutEncryptedDNSTheSectionNamesTheFlagsThatStartIt() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        let page = try await console.request(.get, "/dns", cookie: cookie)
        #expect(page.status == .ok && page.text.contains("Phones and laptops away from home"))
        #expect(
            page.text.contains(
                "pepper dns serve is not running. Start it with --server-name HOST --tls-listen IP:853 --https-listen IP:443"))
        #expect(!page.text.contains(#"id="away-form""#))
        try DNSServerStatus(listen: "127.0.0.1:5335", blockPage: nil, groupsFile: nil, allowClients: []).write(home: console.home)
        let plain = try await console.request(.get, "/dns", cookie: cookie)
        #expect(plain.text.contains("pepper dns serve does not answer DNS over TLS or HTTPS. Restart it with --server-name HOST"))
        // No profile either, with the reason.
        let refused = try await console.request(.get, "/dns/profile?device=phone", cookie: cookie)
        #expect(refused.status == .unprocessableContent && refused.headers[.contentDisposition] == nil)
        #expect(refused.text.contains("No profile was made: pepper dns serve does not answer DNS over TLS or HTTPS."))
    }

    @Test func aDeviceGetsItsAddressesAndAProfileThatPassesTheCheck() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        let files = DNSCertificateFiles(home: console.home)
        _ = try files.make(serverName: "dns.example")
        try DNSServerStatus(
            listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
            encrypted: EncryptedDNSEndpoint(serverName: "dns.example", httpsPort: 8443, tlsPort: 853), privateCA: files.caCertificate.path
        ).write(home: console.home)

        let form = try await console.request(.get, "/dns", cookie: cookie)
        #expect(form.text.contains(#"id="away-form""#) && form.text.contains(#"formaction="/dns/profile""#))
        let shown = try await console.request(.get, "/dns?device=Phone&protocol=https", cookie: cookie)
        #expect(shown.status == .ok)
        #expect(shown.text.contains("<code>https://dns.example:8443/dns-query/phone</code>"))
        #expect(shown.text.contains("<dt>DNS over TLS</dt><dd><code>phone.dns.example</code>"))
        #expect(shown.text.contains("<dt>Android Private DNS</dt><dd><code>phone.dns.example (with a certificate from a public CA)</code>"))
        #expect(shown.text.contains(#"href="/dns/profile?device=phone&amp;protocol=https""#), "\(shown.text)")
        #expect(shown.text.contains("It carries Pepper private CA (dns.example)"))

        let folder = TestPaths.temporaryDirectory("console-profile")
        var saved: [String] = []
        for transport in ["https", "tls"] {
            let download = try await console.request(.get, "/dns/profile?device=phone&protocol=\(transport)", cookie: cookie)
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == "application/x-apple-aspen-config")
            #expect(download.headers[.contentDisposition] == #"attachment; filename="phone.mobileconfig""#)
            let data = Data(try #require(download.body).readableBytesView)
            let profile = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            let payloads = try #require(profile["PayloadContent"] as? [[String: Any]])
            let settings = try #require(payloads.last?["DNSSettings"] as? [String: Any])
            #expect(settings["DNSProtocol"] as? String == transport.uppercased())
            #expect(
                (settings["ServerURL"] ?? settings["ServerName"]) as? String
                    == (transport == "https" ? "https://dns.example:8443/dns-query/phone" : "phone.dns.example"))
            let path = folder.appendingPathComponent("phone-\(transport).mobileconfig")
            try data.write(to: path)
            saved.append(path.path)
        }
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let checked = try await Subprocess.run(
            URL(fileURLWithPath: python), [TestPaths.repository.appendingPathComponent("scripts/check-dns-profile.py").path] + saved)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("root certificate Pepper private CA (dns.example); HTTPS https://dns.example:8443/dns-query/phone"))
    }

    @Test func aBadDeviceNameOrProtocolGetsTheFormsErrorNotAProfile() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        try DNSServerStatus(
            listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
            encrypted: EncryptedDNSEndpoint(serverName: "dns.example", httpsPort: 443, tlsPort: 8853)
        ).write(home: console.home)
        for path in ["/dns/profile?device=my%20phone&protocol=https", "/dns?device=my%20phone"] {
            let refused = try await console.request(.get, path, cookie: cookie)
            #expect(refused.status == .unprocessableContent, "\(path)")
            #expect(refused.headers[.contentDisposition] == nil)
            #expect(
                refused.text.contains(
                    #"<p class="field-error" id="away-device-error">A device name has only letters, digits and &#39;-&#39;"#),
                "\(refused.text)")
            #expect(refused.text.contains(#"value="my phone""#) && refused.text.contains("No profile was made: see the form below."))
        }
        let empty = try await console.request(.get, "/dns/profile?device=", cookie: cookie)
        #expect(empty.status == .unprocessableContent && empty.text.contains("A device name is needed"))
        // DNS over TLS on 8853: phones ask on 853 only.
        let tls = try await console.request(.get, "/dns/profile?device=phone&protocol=tls", cookie: cookie)
        #expect(tls.status == .unprocessableContent)
        #expect(tls.text.contains(#"id="away-protocol-error">Phones ask DNS over TLS on port 853 only"#), "\(tls.text)")
        // Over HTTPS the same phone is fine, and Android is told why it cannot.
        let https = try await console.request(.get, "/dns?device=phone", cookie: cookie)
        #expect(https.status == .ok && https.text.contains("<code>https://dns.example/dns-query/phone</code>"))
        #expect(https.text.contains("<dt>Android Private DNS</dt><dd><code>needs DNS over TLS on port 853</code>"))
        #expect(!https.text.contains("It carries"), "no private CA: the server's certificate is its own")
    }
}
