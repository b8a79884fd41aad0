import DNSFilter
import Testing

@Suite("Server names for encrypted DNS")
struct DNSServerNameTests {
    @Test("A server name is a host name of two labels or more, kept in lowercase without a final dot")
    func serverNames() throws {
        #expect(try DNSServerName("DNS.Home.Arpa.").value == "dns.home.arpa")
        #expect(try DNSServerName("a-1.example").value == "a-1.example")
        #expect(throws: DNSServerName.Problem.empty) { try DNSServerName("") }
        #expect(throws: DNSServerName.Problem.singleLabel("dns")) { try DNSServerName("dns") }
        #expect(throws: DNSServerName.Problem.address("192.0.2.1")) { try DNSServerName("192.0.2.1") }
        #expect(throws: DNSServerName.Problem.address("::1")) { try DNSServerName("::1") }
        #expect(throws: DNSServerName.Problem.numericTopLabel("dns.123")) { try DNSServerName("dns.123") }
        #expect(throws: DNSServerName.Problem.badLabel("bad_name")) { try DNSServerName("bad_name.example") }
        #expect(throws: DNSServerName.Problem.badLabel("")) { try DNSServerName("a..example") }
        #expect(throws: DNSServerName.Problem.badLabel("-a")) { try DNSServerName("-a.example") }
        #expect(throws: DNSServerName.Problem.badLabel("*")) { try DNSServerName("*.example") }
        #expect(throws: DNSServerName.Problem.tooLong(255)) { try DNSServerName(String(repeating: "a.", count: 127) + "b") }
        #expect(throws: DNSServerName.Problem.badLabel(String(repeating: "a", count: 64))) {
            try DNSServerName(String(repeating: "a", count: 64) + ".example")
        }
    }

    @Test("A transport's address for a device, from the one endpoint that spells them")
    func transportAddresses() throws {
        let phone = try DNSDeviceName("phone")
        let endpoint = EncryptedDNSEndpoint(serverName: "dns.example", httpsPort: 443, tlsPort: nil)
        #expect(endpoint.address(.https, device: phone) == "https://dns.example/dns-query/phone")
        #expect(endpoint.address(.tls, device: phone) == nil)
        #expect(endpoint.port(.https) == 443 && endpoint.port(.tls) == nil)
        #expect(EncryptedDNSTransport(rawValue: "tls")?.description == "DNS over TLS")
    }
}
