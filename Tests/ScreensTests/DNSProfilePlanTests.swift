import DNSFilter
import PepperActions
import Screens
import Testing

/// What a device's encrypted-DNS profile points at, as `pepper dns profile` and the console
/// decide it.
@Suite("Device profile plans")
struct DNSProfilePlanTests {
    let running = DNSServerStatus(
        listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
        encrypted: EncryptedDNSEndpoint(serverName: "dns.example", httpsPort: 8443, tlsPort: 853), privateCA: "/home/dns-tls/ca.pem")
    let noHomeCA: (String) -> String? = { _ in nil }

    @Test("The running server's name, ports and private CA; HTTPS unless TLS is asked for")
    func fromRunningServer() throws {
        let plan = try DNSProfilePlan.make(.init(device: " Phone "), server: running, homeCertificateAuthority: noHomeCA)
        #expect(plan.device.value == "phone" && plan.fromRunningServer)
        #expect(plan.transport == .https && plan.profileAddress == "https://dns.example:8443/dns-query/phone")
        #expect(plan.httpsURL == "https://dns.example:8443/dns-query/phone")
        #expect(plan.tlsServerName == "phone.dns.example" && plan.androidHostname == "phone.dns.example")
        #expect(plan.certificateAuthority == "/home/dns-tls/ca.pem" && plan.certificateAuthoritySource == .runningServer)

        let tls = try DNSProfilePlan.make(
            .init(device: "phone", transport: .tls, certificateAuthority: .none), server: running, homeCertificateAuthority: noHomeCA)
        #expect(tls.profileAddress == "phone.dns.example" && tls.certificateAuthority == nil)
        // The running server's own certificate (not Pepper's CA): no CA in the profile.
        var ownCertificate = running
        ownCertificate.privateCA = nil
        #expect(
            try DNSProfilePlan.make(.init(device: "phone"), server: ownCertificate, homeCertificateAuthority: noHomeCA).certificateAuthority
                == nil)
        // ... unless the home's CA issued the home's certificate for this server (given by --tls-cert).
        let homeCA = try DNSProfilePlan.make(
            .init(device: "phone"), server: ownCertificate, homeCertificateAuthority: { $0 == "dns.example" ? "/home/dns-tls/ca.pem" : nil }
        )
        #expect(homeCA.certificateAuthority == "/home/dns-tls/ca.pem" && homeCA.certificateAuthoritySource == .home)
        // Only DNS over TLS served: TLS by default.
        var tlsOnly = running
        tlsOnly.encrypted?.httpsPort = nil
        #expect(try DNSProfilePlan.make(.init(device: "phone"), server: tlsOnly, homeCertificateAuthority: noHomeCA).transport == .tls)
    }

    @Test("Another server: its name from the request, default ports, the home's CA only when it issued that server's certificate")
    func anotherServer() throws {
        let homeCA: (String) -> String? = { $0 == "dns.home.arpa" ? "/home/dns-tls/ca.pem" : nil }
        let plan = try DNSProfilePlan.make(
            .init(device: "laptop", serverName: "DNS.Home.Arpa", addresses: ["192.168.1.2", " 192.168.1.2", "fd00::2"]), server: nil,
            homeCertificateAuthority: homeCA)
        #expect(!plan.fromRunningServer && plan.endpoint == EncryptedDNSEndpoint(serverName: "dns.home.arpa"))
        #expect(plan.profileAddress == "https://dns.home.arpa/dns-query/laptop")
        #expect(plan.certificateAuthoritySource == .home && plan.addresses == ["192.168.1.2", "fd00::2"])
        let elsewhere = try DNSProfilePlan.make(
            .init(device: "laptop", serverName: "dns.other.example"), server: running, homeCertificateAuthority: homeCA)
        #expect(elsewhere.certificateAuthority == nil && !elsewhere.fromRunningServer)
        // The running server by name, its ports forwarded: the given ports, its CA.
        let forwarded = try DNSProfilePlan.make(
            .init(device: "phone", serverName: "dns.example", httpsPort: 443, certificateAuthority: .file("/tmp/my-ca.pem")),
            server: running,
            homeCertificateAuthority: homeCA)
        #expect(forwarded.fromRunningServer && forwarded.httpsURL == "https://dns.example/dns-query/phone")
        #expect(forwarded.certificateAuthority == "/tmp/my-ca.pem" && forwarded.certificateAuthoritySource == .given)
    }

    @Test(
        "Refused with the field to fix",
        arguments: [
            (DNSProfilePlan.Request(device: "my phone"), "device"),
            (DNSProfilePlan.Request(device: ""), "device"),
            (DNSProfilePlan.Request(device: "phone", serverName: "dns"), "server-name"),
            (DNSProfilePlan.Request(device: "phone", transport: .tls, tlsPort: 8853), "protocol"),
            (DNSProfilePlan.Request(device: "phone", httpsPort: 70_000), "port"),
            (DNSProfilePlan.Request(device: "phone", addresses: ["dns.example"]), "address"),
        ])
    func refusals(_ request: DNSProfilePlan.Request, field: String) {
        let problem = #expect(throws: DNSProfilePlan.Problem.self) {
            try DNSProfilePlan.make(request, server: running, homeCertificateAuthority: noHomeCA)
        }
        #expect(problem?.field == field && problem?.notice.field == field, "\(String(describing: problem))")
    }

    @Test("Without a server serving encrypted DNS the problem names the flags that start it")
    func nothingServed() {
        let plain = DNSServerStatus(listen: "127.0.0.1:5335", blockPage: nil, groupsFile: nil, allowClients: [])
        for server in [nil, plain] {
            #expect(throws: DNSProfilePlan.Problem.noEncryptedServer) {
                try DNSProfilePlan.make(.init(device: "phone"), server: server, homeCertificateAuthority: noHomeCA)
            }
        }
        #expect(
            DNSProfilePlan.Problem.noEncryptedServer.description.contains("--server-name HOST --tls-listen IP:853 --https-listen IP:443"))
        var httpsOnly = running
        httpsOnly.encrypted?.tlsPort = nil
        #expect(throws: DNSProfilePlan.Problem.notServed(.tls)) {
            try DNSProfilePlan.make(.init(device: "phone", transport: .tls), server: httpsOnly, homeCertificateAuthority: noHomeCA)
        }
    }
}
