import DNSFilter
import Foundation
import Testing

@Suite("Device names and encrypted DNS addresses")
struct EncryptedDNSEndpointTests {
    @Test("A device name is one DNS label, kept in lowercase")
    func deviceNames() throws {
        #expect(try DNSDeviceName("Kids-Tablet2").value == "kids-tablet2")
        #expect(throws: DNSDeviceName.Problem.empty) { try DNSDeviceName("") }
        #expect(throws: DNSDeviceName.Problem.invalidCharacter(".")) { try DNSDeviceName("a.b") }
        #expect(throws: DNSDeviceName.Problem.invalidCharacter("_")) { try DNSDeviceName("my_phone") }
        #expect(throws: DNSDeviceName.Problem.hyphenAtEdge) { try DNSDeviceName("-phone") }
        #expect(throws: DNSDeviceName.Problem.tooLong(64)) { try DNSDeviceName(String(repeating: "a", count: 64)) }
        #expect(try DNSDeviceName(String(repeating: "a", count: 63)).value.count == 63)
    }

    @Test("The addresses a device is given, and the device read back from them")
    func addressesRoundTrip() throws {
        let endpoint = EncryptedDNSEndpoint(serverName: "DNS.Example", httpsPort: 8443, tlsPort: 853)
        let phone = try DNSDeviceName("phone")
        #expect(endpoint.httpsURL(device: phone) == "https://dns.example:8443/dns-query/phone")
        #expect(endpoint.httpsURL() == "https://dns.example:8443/dns-query")
        #expect(EncryptedDNSEndpoint(serverName: "dns.example").httpsURL() == "https://dns.example/dns-query")
        #expect(endpoint.tlsServerName(device: phone) == "phone.dns.example")
        #expect(endpoint.androidPrivateDNSHostname(device: phone) == "phone.dns.example")
        #expect(EncryptedDNSEndpoint(serverName: "dns.example", tlsPort: 8853).androidPrivateDNSHostname() == nil)
        #expect(EncryptedDNSEndpoint(serverName: "dns.example", tlsPort: nil).tlsServerName(device: phone) == nil)

        #expect(endpoint.device(fromTLSServerName: "Phone.DNS.example.") == phone)
        #expect(endpoint.device(fromTLSServerName: "dns.example") == nil)
        #expect(endpoint.device(fromTLSServerName: "a.phone.dns.example") == nil)
        #expect(endpoint.device(fromTLSServerName: "phone.other.example") == nil)
        #expect(endpoint.device(fromTLSServerName: "bad_name.dns.example") == nil)

        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/dns-query?dns=AAAB") == .some(nil))
        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/dns-query/phone?dns=AAAB") == .some(phone))
        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/dns-query/phone/") == .some(phone))
        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/dns-query/a/b") == nil)
        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/dns-queryx") == nil)
        #expect(EncryptedDNSEndpoint.device(fromHTTPSPath: "/") == nil)
    }

    @Test("Names are written as their text and checked again when read")
    func namesAreCheckedWhenDecoded() throws {
        let encoded = try JSONEncoder().encode([try DNSDeviceName("Phone")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["phone"]"#)
        #expect(try JSONDecoder().decode([DNSDeviceName].self, from: encoded) == [try DNSDeviceName("phone")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DNSDeviceName].self, from: Data(#"["my_phone"]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DNSServerName].self, from: Data(#"["localhost"]"#.utf8)) }
        #expect(try DNSServerName("DNS.Example").description == "dns.example")
    }
}
