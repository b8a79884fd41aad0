import DeviceSync
import Foundation
import Testing

@Suite("Pairing invitations")
struct SyncInvitationTests {
    @Test func anInvitationReadsBackFromItsTextForNamesAndAddresses() throws {
        let pin = Data((0..<32).map { UInt8($0 * 7 % 256) })
        for server in ["https://pepper.lan:5380", "https://192.168.1.2:8443", "https://[fd00::10]:8443", "https://home.example"] {
            let invitation = try SyncInvitation(server: try #require(URL(string: server)), code: "abcd efgh-jkmn", pin: pin)
            #expect(invitation.server.absoluteString == server)
            #expect(invitation.code == "ABCD-EFGH-JKMN")
            #expect(invitation.text.hasPrefix("pepper-sync://" + server.dropFirst("https://".count) + "/?code=ABCD-EFGH-JKMN&pin="))
            let read = try SyncInvitation(text: invitation.text)
            #expect(read == invitation, "\(invitation.text)")
        }
        let publicHome = try SyncInvitation(server: try #require(URL(string: "https://pepper.example")), code: "ABCDEFGHJKMN", pin: nil)
        #expect(publicHome.text == "pepper-sync://pepper.example/?code=ABCD-EFGH-JKMN")
        #expect(try SyncInvitation(text: publicHome.text).pin == nil)
    }

    @Test func whatIsNotAnInvitationIsRefusedWithItsReason() throws {
        #expect(throws: SyncInvitationError.notHTTPS("http://pepper.lan")) {
            try SyncInvitation(server: URL(string: "http://pepper.lan")!, code: "ABCD-EFGH-JKMN", pin: nil)
        }
        #expect(throws: SyncInvitationError.notHTTPS("https://pepper.lan/sync")) {
            try SyncInvitation(server: URL(string: "https://pepper.lan/sync")!, code: "ABCD-EFGH-JKMN", pin: nil)
        }
        // 0, O, 1, I and L are not in the alphabet; twelve characters exactly.
        for code in ["ABCD-EFGH-JKM0", "ABCD-EFGH-JKM", "ABCD-EFGH-JKMNP", "ABCD-EFGH-JKML"] {
            #expect(throws: SyncInvitationError.invalidCode) {
                try SyncInvitation(server: URL(string: "https://pepper.lan")!, code: code, pin: nil)
            }
        }
        #expect(throws: SyncInvitationError.invalidPin) {
            try SyncInvitation(server: URL(string: "https://pepper.lan")!, code: "ABCD-EFGH-JKMN", pin: Data(count: 31))
        }
        #expect(throws: SyncInvitationError.notAnInvitation) { try SyncInvitation(text: "https://pepper.lan/?code=ABCD-EFGH-JKMN") }
        #expect(throws: SyncInvitationError.invalidCode) { try SyncInvitation(text: "pepper-sync://pepper.lan/") }
        #expect(throws: SyncInvitationError.invalidPin) {
            try SyncInvitation(text: "pepper-sync://pepper.lan/?code=ABCD-EFGH-JKMN&pin=a+b")
        }
    }

    @Test func codesAreRandomAndFromTheAlphabet() {
        let codes = Set((0..<200).map { _ in SyncPairingCode.make() })
        #expect(codes.count == 200)
        #expect(codes.allSatisfy(SyncPairingCode.isValid))
        #expect(codes.allSatisfy { $0.count == 14 && $0.split(separator: "-").count == 3 })
    }
}
