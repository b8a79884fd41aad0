import DNSProfiles
import Foundation
import PepperFiles
import PepperTestSupport
import Testing

/// Which certificate a pairing invitation pins (`pepper sync code` and the console's Sync page).
@Suite("The certificate sync pins")
struct CertificateToPinTests {
    @Test func theHomesCAWhenTheHomesOwnCertificateIsServedElseTheServedOne() throws {
        let home = TestPaths.temporaryDirectory("sync-pin")
        defer { try? FileManager.default.removeItem(at: home) }
        let files = DNSCertificateFiles(home: PepperHome(url: home))
        let other = home.appendingPathComponent("public.pem")
        #expect(files.certificateToPin(serving: nil) == nil, "no CA, nothing named: the system's authorities")
        #expect(files.certificateToPin(serving: other) == other)
        _ = try files.make(serverName: "pepper.example")
        #expect(files.certificateToPin(serving: nil) == files.caCertificate)
        // The home's own certificate, however the path is spelt: the CA, which the console sends after it.
        let spelt = URL(fileURLWithPath: home.path + "/dns-tls/../dns-tls/server.pem")
        #expect(files.isServerCertificate(spelt))
        #expect(files.certificateToPin(serving: spelt) == files.caCertificate)
        #expect(files.certificateToPin(serving: other) == other, "another certificate is pinned itself")
        #expect(!files.isServerCertificate(other))
    }
}
