import Testing

@testable import DNSFilter

/// Decisions the DNS server and the packet tunnel share from DNSFilter: how a host is written
/// before a port, and which DNS-over-HTTPS answers are taken.
@Suite("Shared network decisions")
struct SharedNetworkDecisionTests {
    @Test func anIPv6HostIsBracketedBeforeAPortAndNothingElseIs() {
        #expect(IPAddress.bracketed("::1") == "[::1]")
        #expect(IPAddress.bracketed("2001:db8::53") == "[2001:db8::53]")
        #expect(IPAddress.bracketed("[::1]") == "[::1]", "written once")
        #expect(IPAddress.bracketed("127.0.0.1") == "127.0.0.1" && IPAddress.bracketed("dns.example") == "dns.example")
        // The addresses that print through it.
        #expect(ListenAddress(host: IPAddress("::1")!, port: 5335).description == "[::1]:5335")
        #expect(ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 53).description == "127.0.0.1:53")
        #expect(
            UpstreamAddress.tls(host: "2620:fe::fe", port: 853, serverName: "dns.quad9.net").description
                == "tls://[2620:fe::fe]:853#dns.quad9.net")
        #expect(UpstreamAddress.udp(host: IPAddress("::1")!, port: 53).description == "[::1]:53")
    }

    /// The tunnel's URLSession upstream and the server's async-http-client upstream both ask this.
    @Test func aDNSOverHTTPSAnswerIsA200DNSMessageOfAPlausibleSize() {
        #expect(throws: Never.self) { try DNSOverHTTPS.check(status: 200, contentType: "application/dns-message", bodySize: 40) }
        #expect(throws: Never.self) { try DNSOverHTTPS.check(status: 200, contentType: "Application/DNS-Message; charset=x", bodySize: 12) }
        #expect(throws: DNSUpstreamError.status(503)) {
            try DNSOverHTTPS.check(status: 503, contentType: "application/dns-message", bodySize: 40)
        }
        #expect(throws: DNSUpstreamError.contentType("text/html")) {
            try DNSOverHTTPS.check(status: 200, contentType: "text/html", bodySize: 40)
        }
        #expect(throws: DNSUpstreamError.contentType("none")) { try DNSOverHTTPS.check(status: 200, contentType: nil, bodySize: 40) }
        #expect(throws: DNSUpstreamError.size(11)) {
            try DNSOverHTTPS.check(status: 200, contentType: "application/dns-message", bodySize: 11)
        }
        #expect(throws: DNSUpstreamError.size(65_536)) {
            try DNSOverHTTPS.check(status: 200, contentType: "application/dns-message", bodySize: 65_536)
        }
    }
}
