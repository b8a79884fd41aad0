import AppSupport
import DNSFilter
import Foundation
import PepperActions
import Screens
import Storage
import Testing

/// Encrypted DNS to the person's own Pepper through iOS's DNS settings (`NEDNSSettingsManager`),
/// beside the packet tunnel: the form and its checks, the choice stored with the preferences,
/// what the app sets (`DNSSettingsPlan`), the two paths excluding each other, and what the screen
/// says until iOS applies the settings.
@Suite("DNS settings")
struct DNSSettingsTests {
    static let form = PepperDNSServer.Form(serverName: "dns.example.net", transport: .https, device: "phone")

    /// The problems of `form` by field; none when it is usable.
    static func problems(_ form: PepperDNSServer.Form) -> [PepperDNSServer.Form.Field: FieldProblem] {
        do {
            _ = try PepperDNSServer(form)
            return [:]
        } catch {
            return error.byField
        }
    }

    @Test func theFormIsCheckedFieldByFieldWithEveryProblemAtOnce() throws {
        // Everything wrong at once: each field gets its own problem.
        let everything = PepperDNSServer.Form(
            serverName: "https://dns.example.net/dns-query", transport: .tls, httpsPort: "http", tlsPort: "8853", device: "my phone",
            serverAddresses: "192.168.1.10, pepper.lan")
        let problems = #expect(throws: PepperDNSServer.Form.Problems.self) { try PepperDNSServer(everything) }
        #expect(problems?.byField.keys.sorted() == [.serverName, .httpsPort, .tlsPort, .device, .serverAddresses])
        #expect(problems?.byField[.serverName] == .serverNameNeeded(DomainNameProblem.url("https://dns.example.net/dns-query")))
        #expect(problems?.byField[.httpsPort] == .portNeeded("'http' is not a number"))
        #expect(problems?.byField[.tlsPort] == .dnsOverTLSPortIs853(8853))
        #expect(problems?.byField[.device] == .deviceNameNeeded(.invalidCharacter(" ")))
        #expect(problems?.byField[.serverAddresses] == .serverAddressesNeeded("'pepper.lan' is not an IP address"))
        #expect(problems?.first.field == .serverName, "the first field in form order is the one the form focuses")
        #expect(
            problems?.byField[.tlsPort]?.description
                == "iOS uses DNS over TLS on port 853 only, not 8853: have pepper dns serve listen on port 853 for TLS, or choose DNS over HTTPS, whose port can be any"
        )

        // The server's name: a host name with a dot, as a certificate names it; not an address.
        for (text, reason) in [
            ("", "empty domain"),
            ("192.168.1.10", "192.168.1.10 is an IP address: give the name, and the address under the server's addresses"),
            ("[fd00::10]", "[fd00::10] is an IP address: give the name, and the address under the server's addresses"),
            ("pepper", "pepper is one label: give the full host name (e.g. pepper.home.arpa), as device names go in front of it"),
            ("dns.example.net:853", "'dns.example.net:853' has a port; give the host name only"),
            (
                "_dns.example.net",
                "'_dns' is not a host-name label (letters, digits and '-', 1–63 characters, not starting or ending with '-')"
            ),
            ("*.example.net", "'*.example.net' has a wildcard; a domain already covers its subdomains"),
        ] {
            var form = Self.form
            form.serverName = text
            let problem = #expect(throws: PepperDNSServer.Form.Problems.self, "\(text)") { try PepperDNSServer(form) }
            #expect(problem?.byField == [.serverName: .serverNameNeeded(reason)], "\(text)")
        }
        var long = Self.form
        long.serverName = String(repeating: "a", count: 300) + ".net"
        #expect(Self.problems(long) == [.serverName: .tooLong(what: "a server name", limit: 253)])

        // Ports: empty means the protocol's own; 1 to 65535; DNS over TLS on 853 only (iOS's rule).
        for (text, problem) in [
            ("0", "0 is not between 1 and 65535"), ("65536", "65536 is not between 1 and 65535"), ("-1", "'-1' is not a number"),
        ] {
            var form = Self.form
            form.httpsPort = text
            #expect(Self.problems(form) == [.httpsPort: .portNeeded(problem)], "\(text)")
        }
        var defaults = Self.form
        (defaults.httpsPort, defaults.tlsPort) = ("", " ")
        let defaulted = try PepperDNSServer(defaults)
        #expect(defaulted.httpsPort == 443 && defaulted.tlsPort == 853)
        var otherTLSPortOverHTTPS = Self.form
        otherTLSPortOverHTTPS.tlsPort = "8853"
        #expect(try PepperDNSServer(otherTLSPortOverHTTPS).tlsPort == 8853, "iOS's rule binds only when TLS is chosen")

        // The device name: DNSDeviceName's own problems, in the form's words; lowercase kept.
        for (text, problem) in [("", DNSDeviceName.Problem.empty), ("-phone", .hyphenAtEdge), ("téléphone", .invalidCharacter("é"))] {
            var form = Self.form
            form.device = text
            let thrown = #expect(throws: PepperDNSServer.Form.Problems.self, "\(text)") { try PepperDNSServer(form) }
            #expect(thrown?.byField == [.device: .deviceNameNeeded(problem)], "\(text)")
        }
        var empty = Self.form
        empty.device = " "
        #expect(
            (try? PepperDNSServer(empty)) == nil
                && FieldProblem.deviceNameNeeded(.empty).description == "a device name is needed, such as phone")
        var upper = Self.form
        upper.device = " Kids-Tablet "
        #expect(try PepperDNSServer(upper).device.value == "kids-tablet")
        // Over TLS the device goes in front of the server's name, which must stay a host name.
        var crowded = Self.form
        (crowded.transport, crowded.serverName, crowded.device) = (
            .tls, (0..<4).map { _ in String(repeating: "s", count: 47) }.joined(separator: "."), String(repeating: "d", count: 63)
        )
        let tooLong = #expect(throws: PepperDNSServer.Form.Problems.self) { try PepperDNSServer(crowded) }
        #expect(tooLong?.byField.keys.sorted() == [.device])
        crowded.transport = .https
        #expect(throws: Never.self, "over HTTPS the device is in the path") { try PepperDNSServer(crowded) }

        // The server's addresses: IPv4 or IPv6, commas or spaces, duplicates once, never the phone.
        var addressed = Self.form
        addressed.serverAddresses = " 192.0.2.10,  2001:db8::10 [2001:db8::10]\n192.0.2.10 "
        #expect(try PepperDNSServer(addressed).serverAddresses == [IPAddress("192.0.2.10")!, IPAddress("2001:db8::10")!])
        for (text, reason) in [
            ("127.0.0.1", "127.0.0.1 is the phone itself, not the machine that runs pepper dns serve"),
            ("::", ":: is the phone itself, not the machine that runs pepper dns serve"),
            ("192.0.2.300", "'192.0.2.300' is not an IP address"),
            ((1...9).map { "192.0.2.\($0)" }.joined(separator: ","), "9 is more than 8"),
        ] {
            var form = Self.form
            form.serverAddresses = text
            #expect(Self.problems(form) == [.serverAddresses: .serverAddressesNeeded(reason)], "\(text)")
        }

        // A checked server fills the form it came from, IDN names in their ASCII form.
        var international = Self.form
        international.serverName = "DNS.Bücher.example"
        let server = try PepperDNSServer(international)
        #expect(server.serverName == "dns.xn--bcher-kva.example")
        #expect(try PepperDNSServer(server.form) == server)
    }

    @Test func theChoiceIsStoredWithThePreferencesAndCheckedWhenRead() throws {
        let temporary = TemporaryContainer()
        let state = temporary.state
        let preferences = PreferenceStore(database: state.database)
        #expect(try state.dnsProtectionChoice() == .packetTunnel, "the tunnel unless the person chooses")
        #expect(try state.pepperDNSServer() == nil)

        var form = Self.form
        form.serverAddresses = "192.0.2.10"
        let server = try state.chooseEncryptedDNS(form)
        #expect(try state.dnsProtectionChoice() == .encryptedDNS(server))
        #expect(try preferences.value(.dnsProtection) == "encrypted-dns")
        let stored = try #require(try preferences.value(.dnsEncryptedServer))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])
        #expect(json["server"] as? String == "dns.example.net" && json["device"] as? String == "phone")
        #expect(json["transport"] as? String == "https" && json["https-port"] as? Int == 443 && json["tls-port"] as? Int == 853)
        #expect(json["addresses"] as? [String] == ["192.0.2.10"])

        // A refused form names its first field and changes nothing.
        var bad = Self.form
        (bad.device, bad.serverAddresses) = ("", "localhost")
        #expect(throws: ActionError.invalidField(field: "device", problem: .deviceNameNeeded(.empty))) { try state.chooseEncryptedDNS(bad) }
        #expect(try state.dnsProtectionChoice() == .encryptedDNS(server))

        // Back to the tunnel: the server stays saved for the form.
        try state.choosePacketTunnel()
        #expect(try state.dnsProtectionChoice() == .packetTunnel)
        #expect(try preferences.value(.dnsProtection) == nil)
        #expect(try state.pepperDNSServer() == server)

        // Stored values come from outside the process: checked again when read.
        try preferences.set(.dnsProtection, "encrypted-dns")
        try preferences.set(
            .dnsEncryptedServer,
            #"{"server":"dns.example.net","transport":"tls","https-port":443,"tls-port":8853,"device":"phone","addresses":[]}"#)
        let unusable = #expect(throws: ActionError.self) { try state.dnsProtectionChoice() }
        #expect(unusable?.description.hasPrefix("the saved encrypted DNS server cannot be used") == true)
        #expect(unusable?.description.contains("tls-port: iOS uses DNS over TLS on port 853 only") == true)
        try preferences.set(.dnsEncryptedServer, nil)
        #expect(
            throws: ActionError.storage("the DNS protection setting names encrypted DNS to your Pepper, but no server is saved")
        ) { try state.dnsProtectionChoice() }
        try preferences.set(.dnsProtection, "carrier-pigeon")
        #expect(try state.dnsProtectionChoice() == .packetTunnel, "a value a later version wrote reads as the default")
    }

    @Test func thePlanSaysExactlyWhatTheAppSets() throws {
        // DNS over HTTPS: the device in the path of EncryptedDNSEndpoint's URL.
        var form = Self.form
        form.serverAddresses = "192.0.2.10, 2001:db8::10"
        let https = try PepperDNSServer(form)
        let overHTTPS = DNSSettingsPlan(choice: .encryptedDNS(https))
        let settings = try #require(overHTTPS.settings)
        #expect(settings.server == .https(serverURL: URL(string: "https://dns.example.net/dns-query/phone")!))
        #expect(settings.serverURL?.absoluteString == https.endpoint.httpsURL(device: https.device))
        #expect(settings.serverName == nil && settings.transport == .https)
        #expect(settings.servers == ["192.0.2.10", "2001:db8::10"])
        #expect(settings.localizedDescription == "Pepper")

        form.httpsPort = "8443"
        #expect(
            DNSSettingsPlan(choice: .encryptedDNS(try PepperDNSServer(form))).settings?.serverURL?.absoluteString
                == "https://dns.example.net:8443/dns-query/phone")

        // DNS over TLS: the device as the first label of the server name; no port to give.
        (form.transport, form.serverAddresses) = (.tls, "")
        let tls = try PepperDNSServer(form)
        let overTLS = try #require(DNSSettingsPlan(choice: .encryptedDNS(tls)).settings)
        #expect(overTLS.server == .tls(serverName: "phone.dns.example.net"))
        #expect(overTLS.serverName == tls.endpoint.tlsServerName(device: tls.device) && overTLS.serverURL == nil)
        #expect(overTLS.servers == [] && overTLS.transport == .tls)

        // What leaves the phone, and what DNS over TLS without addresses needs.
        #expect(
            tls.lookupRequirement
                == "iOS looks phone.dns.example.net up through the network's resolvers: give your Pepper's addresses, or have that name resolve (a wildcard record for *.dns.example.net)."
        )
        #expect(https.lookupRequirement == nil, "addresses given")
        #expect(try PepperDNSServer(Self.form).lookupRequirement == nil, "over HTTPS the device is not in the name")
        #expect(https.privacyStatement.contains("to your Pepper at dns.example.net, which sees the names and this phone's name, phone"))
        #expect(https.privacyStatement.hasSuffix("The phone connects to 192.0.2.10, 2001:db8::10 without looking its name up."))
        #expect(tls.privacyStatement.hasSuffix("Its name, phone.dns.example.net, is looked up through the network's resolvers."))
    }

    @Test func theTunnelAndEncryptedDNSExcludeEachOther() throws {
        let temporary = TemporaryContainer()
        let state = temporary.state

        let tunnel = DNSSettingsPlan(choice: try state.dnsProtectionChoice())
        #expect(tunnel.settings == nil && tunnel.removesSettings && !tunnel.stopsTunnel && tunnel.offersTunnelSwitch)

        try state.chooseEncryptedDNS(Self.form)
        let encrypted = DNSSettingsPlan(choice: try state.dnsProtectionChoice())
        #expect(encrypted.settings != nil && encrypted.stopsTunnel && !encrypted.removesSettings)
        #expect(!encrypted.offersTunnelSwitch, "no tunnel switch while encrypted DNS is chosen")

        try state.choosePacketTunnel()
        let back = DNSSettingsPlan(choice: try state.dnsProtectionChoice())
        #expect(back == tunnel, "choosing the tunnel again removes the settings and offers the switch")
    }

    @Test func theScreenSaysToSelectPepperInSettingsUntilIOSSaysItIsOn() throws {
        let server = try PepperDNSServer(Self.form)
        let plan = DNSSettingsPlan(choice: .encryptedDNS(server))
        let settings = try #require(plan.settings)

        let waiting = plan.status(.init(saved: settings, isEnabled: false))
        #expect(waiting.kind == .waitingForSelection && waiting.needsAction)
        #expect(
            waiting.text
                == "Saved (DNS over HTTPS to your Pepper at dns.example.net, as phone). iOS uses them only once you select Pepper in Settings › General › VPN & Device Management › DNS."
        )
        let on = plan.status(.init(saved: settings, isEnabled: true))
        #expect(on.kind == .on && !on.needsAction)
        #expect(
            on.text == "On: every name this phone looks up goes, encrypted, by DNS over HTTPS to your Pepper at dns.example.net, as phone.")

        // Nothing saved, or other settings (an earlier server): not what was chosen, even enabled.
        #expect(plan.status(.init(saved: nil, isEnabled: false)).kind == .notSaved)
        var earlier = settings
        earlier.server = .https(serverURL: URL(string: "https://dns.example.net/dns-query/tablet")!)
        let stale = plan.status(.init(saved: earlier, isEnabled: true))
        #expect(stale.kind == .notSaved && stale.needsAction)
        #expect(stale.text.hasSuffix("save them again."))

        // The tunnel chosen: nothing to say unless Pepper's DNS settings were left behind.
        let tunnel = DNSSettingsPlan(choice: .packetTunnel)
        #expect(tunnel.status(.init(saved: nil, isEnabled: false)).kind == .packetTunnel)
        let leftOver = tunnel.status(.init(saved: settings, isEnabled: true))
        #expect(leftOver.kind == .settingsLeftOver && leftOver.needsAction)
    }

    @Test func theSettingsScreenChoosesAndShowsEveryProblemUnderItsField() async throws {
        let temporary = TemporaryContainer()
        let screen = ProtectionSettingsScreen(state: temporary.state)
        var state = try await screen.load()
        #expect(state.protection == .packetTunnel && state.encryptedDNSForm == PepperDNSServer.Form())
        #expect(state.privacy == DNSUpstreamChoice.network.privacyStatement)

        var bad = Self.form
        (bad.serverName, bad.tlsPort, bad.transport) = ("10.0.0.2", "99999", .tls)
        let refused = await screen.chooseEncryptedDNS(bad)
        #expect(refused.notice.isError && refused.notice.field == "server")
        #expect(refused.notice.text == "2 fields need a change: see the form below.")
        #expect(
            refused.problems == [
                .serverName:
                    "Give your Pepper's name as its certificate names it, such as dns.example.net (10.0.0.2 is an IP address: give the name, and the address under the server's addresses).",
                .tlsPort: "Give a port from 1 to 65535 (99999 is not between 1 and 65535).",
            ])
        #expect(try await screen.load().protection == .packetTunnel, "nothing stored")

        // DNS over TLS without addresses: saved, with what must resolve.
        var tls = Self.form
        tls.transport = .tls
        let saved = await screen.chooseEncryptedDNS(tls)
        #expect(saved.problems.isEmpty && saved.notice.kind == .warning && saved.notice.field == "addresses")
        #expect(
            saved.notice.text.hasPrefix("DNS goes, encrypted, by DNS over TLS to your Pepper at phone.dns.example.net, as phone. iOS looks")
        )
        let https = await screen.chooseEncryptedDNS(Self.form)
        #expect(https.notice == .success("DNS goes, encrypted, by DNS over HTTPS to your Pepper at dns.example.net, as phone."))
        state = try await screen.load()
        let server = try PepperDNSServer(Self.form)
        #expect(state.protection == .encryptedDNS(server) && state.privacy == server.privacyStatement)
        #expect(state.encryptedDNSForm == server.form)

        #expect(await screen.choosePacketTunnel().kind == .success)
        state = try await screen.load()
        #expect(state.protection == .packetTunnel && state.privacy == DNSUpstreamChoice.network.privacyStatement)
        #expect(state.encryptedDNSForm.serverName == "dns.example.net", "the form keeps the server for next time")
    }
}

/// DomainName's words for a URL where a host name belongs, as the server-name field reports them.
enum DomainNameProblem {
    static func url(_ text: String) -> String { "'\(text)' is a URL; give the bare domain name (e.g. example.com)" }
}
