import Crypto
import DNSProfiles
import DeviceSync
import Foundation
import PepperActions
import Storage
import Testing

@testable import Console

/// The Sync page over HTTP: an invitation with its QR code that pins the home's CA, the paired
/// devices with their last contact, removing one (refused at once), and a console without TLS
/// that says sync needs it.
@Suite("Console: sync")
struct ConsoleSyncPageTests {
    @Test func anInvitationPinsTheHomesCAAndADeviceIsListedAndRemoved() async throws {
        let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-console-sync-\(UUID())"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        let files = DNSCertificateFiles(home: home)
        _ = try files.make(serverName: "pepper.example", addresses: ["127.0.0.1"])
        let console = try await ConsoleHarness(
            home: home, tls: .init(certificate: files.serverCertificate.path, key: files.serverKey.path))
        let (cookie, csrf) = try await console.signIn()

        let page = try await console.request(.get, "/sync", cookie: cookie)
        #expect(page.status == .ok)
        #expect(page.text.contains("This home does not sync yet") && page.text.contains(#"<a href="/sync" aria-current="page">Sync</a>"#))
        #expect(!page.text.contains("Sync is served only over HTTPS"))
        #expect(page.text.contains(#"value="https://127.0.0.1:8080""#), "the address the browser used is offered")
        #expect(page.text.contains(#"<form method="post" action="/sync/invite"><input type="hidden" name="csrf" value="\#(csrf)">"#))

        let refused = try await console.request(
            .post, "/sync/invite", cookie: cookie, form: [("server", "http://pepper.example"), ("csrf", csrf)])
        #expect(refused.status == .unprocessableContent && refused.text.contains(#"id="sync-server-error""#))
        #expect(!refused.text.contains("pepper-sync://"))

        let made = try await console.request(
            .post, "/sync/invite", cookie: cookie, form: [("server", "https://pepper.example:5380"), ("csrf", csrf)])
        #expect(made.status == .ok)
        #expect(made.text.contains("<svg") && made.text.contains("<title>Pairing invitation for pepper.example</title>"))
        let start = try #require(made.text.range(of: "pepper-sync://"))
        let text = String(made.text[start.lowerBound...].prefix { $0 != "'" && $0 != "<" }).replacingOccurrences(of: "&amp;", with: "&")
        let invitation = try SyncInvitation(text: text)
        #expect(invitation.server.absoluteString == "https://pepper.example:5380")
        let ca = try #require(
            String(contentsOf: files.caCertificate, encoding: .utf8).components(separatedBy: "-----")
                .first { $0.count > 100 }.flatMap { Data(base64Encoded: $0.filter { !$0.isWhitespace }) })
        #expect(invitation.pin == Data(SHA256.hash(data: ca)), "the invitation pins the home's CA, which the console sends")

        // A device pairs with the code (as over /sync/v1/pair), is listed, then removed.
        let paired = try await console.server.syncServer.pair(SyncPairingRequest(code: invitation.code, device: try DeviceID("phone")))
        _ = try await console.server.syncServer.device(for: paired.key)
        let listed = try await console.request(.get, "/sync", cookie: cookie)
        #expect(listed.text.contains("<td>phone</td>") && listed.text.contains("This home serves sync"))
        #expect(listed.text.contains(#"<form method="post" action="/sync/remove"><input type="hidden" name="csrf" value="\#(csrf)">"#))
        let removed = try await console.request(.post, "/sync/remove", cookie: cookie, form: [("device", "phone"), ("csrf", csrf)])
        #expect(removed.status == .seeOther)
        let after = try await console.request(.get, "/sync", cookie: cookie)
        #expect(after.text.contains("Removed phone") && after.text.contains("No device is paired with this home"))
        await #expect(throws: SyncServerError.self) { _ = try await console.server.syncServer.device(for: paired.key) }
        // The code worked once.
        await #expect(throws: SyncServerError.self) {
            _ = try await console.server.syncServer.pair(SyncPairingRequest(code: invitation.code, device: try DeviceID("laptop")))
        }
    }

    @Test func withoutTLSThePageSaysSyncNeedsItAndMakesNoCode() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let page = try await console.request(.get, "/sync", cookie: cookie)
        #expect(page.text.contains("Sync is served only over HTTPS") && page.text.contains("disabled>Make a one-time code"))
        let refused = try await console.request(
            .post, "/sync/invite", cookie: cookie, form: [("server", "https://pepper.example"), ("csrf", csrf)])
        #expect(refused.status == .unprocessableContent && !refused.text.contains("pepper-sync://"))
        // And /sync/v1 answers with a JSON refusal.
        let api = try await console.request(.post, "/sync/v1/pair", body: .init(string: "{}"), contentType: "application/json")
        #expect(api.status == .forbidden && api.text.contains(#""error""#))
    }
}
