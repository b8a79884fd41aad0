import Testing

@testable import Picket

@Suite("Picket notice page")
struct PicketNoticePageTests {
    static let acme = PicketNotice(
        url: "https://shop.acme.example/cart", employer: "Acme <Tools> & Co", employerId: "emp_acme", actionType: "strike",
        organization: "Acme Workers", location: "Portland, OR", startDate: "2026-11-01T00:00:00.000Z",
        details: "On strike for a contract; please don't shop <script>alert(1)</script>", source: "picket-opl", canProceed: true)

    @Test func theNoticeTellsTheActionAndEscapesWhatTheServerSent() {
        let page = PicketNoticePage.html(for: Self.acme, controls: .scriptMessages(handler: "pepperBlocked"))
        #expect(page.contains("Picket line ahead: Acme &lt;Tools&gt; &amp; Co"))
        #expect(page.contains("Acme Workers") && page.contains("Portland, OR") && page.contains("<td>2026-11-01</td>"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!page.contains("<script>alert(1)"), "server text never becomes markup")
        #expect(page.contains("picket-opl"))
        #expect(page.contains("pepperBlocked.postMessage('\(PicketNoticePage.proceedMessage)')"))
        #expect(page.contains("pepperBlocked.postMessage('\(PicketNoticePage.backMessage)')"))

        var blocked = Self.acme
        blocked.canProceed = false
        let blockedPage = PicketNoticePage.html(for: blocked, controls: .scriptMessages(handler: "pepperBlocked"))
        #expect(!blockedPage.contains(PicketNoticePage.proceedMessage), "the block policy offers no way through")
        #expect(blockedPage.contains(PicketNoticePage.backMessage))
    }

    @Test func theBlockPageFormPostsToProceed() {
        let page = PicketNoticePage.html(for: Self.acme, controls: .form(proceedPath: "/proceed"))
        #expect(page.contains("<form method=\"post\" action=\"/proceed\">") && page.contains("Proceed anyway"))
        #expect(!page.contains("postMessage"), "no script on the block page")
        var blocked = Self.acme
        blocked.canProceed = false
        #expect(!PicketNoticePage.html(for: blocked, controls: .form(proceedPath: "/proceed")).contains("<form"))
    }

    @Test func datesAreShownAsDaysAndOtherTextAsSent() {
        #expect(PicketNoticePage.day("2024-01-01T00:00:00.000Z") == "2024-01-01")
        #expect(PicketNoticePage.day("2024-01-01") == "2024-01-01")
        #expect(PicketNoticePage.day("next Tuesday") == "next Tuesday")
        #expect(HTML.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
    }
}
