import Foundation
import Picket
import Storage
import Testing

@testable import Browsing

@Suite("Picket notices in the browser")
struct PicketNoticeTests {
    static let acme = PicketNotice(
        url: "https://shop.acme.example/cart", employer: "Acme <Tools> & Co", employerId: "emp_acme", actionType: "strike",
        organization: "Acme Workers",
        location: "Portland, OR", startDate: "2026-11-01T00:00:00.000Z",
        details: "On strike for a contract; please don't shop <script>alert(1)</script>", source: "picket-opl", canProceed: true)

    /// A lookup that knows one struck employer's domain, as the Picket blocklist would.
    static let lookup: @Sendable (String) -> PicketNotice? = { url in
        guard let host = URLComponents(string: url)?.host, host == "acme.example" || host.hasSuffix(".acme.example") else { return nil }
        var notice = acme
        notice.url = url
        return notice
    }

    @Test func aStruckEmployersSiteGetsANoticeUntilTheSiteIsLetThroughForADay() async throws {
        let home = TemporaryHome()
        let session = try home.session()
        #expect(session.picketNotice(for: "https://acme.example/") == nil, "no Picket source: no notice")

        session.picketLookup = Self.lookup
        #expect(session.picketNotice(for: "https://www.acme.example/")?.employer == "Acme <Tools> & Co")
        #expect(session.picketNotice(for: "https://acme.example.org/") == nil)

        let before = Date()
        try await session.siteBlocking.allow(
            "https://www.acme.example/cart", until: before.addingTimeInterval(PicketNotice.proceedDuration))
        #expect(home.rebuilds.value == 1, "the content blocker is rebuilt so the site loads")
        #expect(session.picketNotice(for: "https://www.acme.example/") == nil, "let through")
        let allowlist = AllowlistStore(database: home.database)
        #expect(try allowlist.domains() == ["acme.example"])
        // The entry lapses by itself after 24 hours, and the notice comes back.
        #expect(try allowlist.domains(at: before.addingTimeInterval(PicketNotice.proceedDuration + 1)) == [])
        #expect(try !allowlist.domains(at: before.addingTimeInterval(PicketNotice.proceedDuration - 60)).isEmpty)

        await #expect(throws: BrowsingError.notASite("about:blank")) {
            try await session.siteBlocking.allow("about:blank", until: Date())
        }
    }
}
