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

    /// The page names no face's command: the face that shows it says how to change the policy.
    @Test func theBlockPolicyIsExplainedInTheWordsOfTheFaceShowingIt() {
        var blocked = Self.acme
        blocked.canProceed = false
        let plain = PicketNoticePage.html(for: blocked, controls: .scriptMessages(handler: "pepperBlocked"))
        #expect(plain.contains("<p>The Picket policy here blocks this site.</p>"))
        #expect(!plain.contains("pepper "), "no command of the Linux tools in the app's page")
        let linux = PicketNoticePage.html(for: blocked, controls: .form(proceedPath: "/proceed"), policyCommand: "pepper picket policy ask")
        #expect(linux.contains("(<code>pepper picket policy ask</code> offers to proceed)."))
        #expect(!PicketNoticePage.html(for: Self.acme, controls: .form(proceedPath: "/p"), policyCommand: "x").contains("<code>x</code>"))
    }

    @Test func datesAreShownAsDaysAndOtherTextAsSent() {
        #expect(PicketNoticePage.day("2024-01-01T00:00:00.000Z") == "2024-01-01")
        #expect(PicketNoticePage.day("2024-01-01") == "2024-01-01")
        #expect(PicketNoticePage.day("next Tuesday") == "next Tuesday")
        #expect(HTML.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
    }
}

@Suite("Action types")
struct ActionTypeTests {
    /// What the public OPL apps' strike forms send (opl-for-apple's SubmitStrikeView; the
    /// Android app's model classes).
    static let iOS = ["strike", "lockout", "picket", "boycott", "work_stoppage", "other"]
    static let android = ["strike", "walkout", "slowdown", "picket", "boycott", "other"]

    @Test func everyTypeTheAppsSendIsKnownWithWordsForIt() {
        let known = ActionType.allCases.map(\.rawValue)
        #expect(known == ["strike", "lockout", "walkout", "slowdown", "work_stoppage", "picket", "boycott", "protest", "other"])
        #expect(Set(Self.iOS + Self.android + ["protest"]) == Set(known), "the apps' types and protest, nothing else")
        #expect(ActionType.workStoppage.label == "Work stoppage" && ActionType.workStoppage.noun == "work stoppage")
        #expect(Set(ActionType.allCases.map(\.label)).count == ActionType.allCases.count, "no two types read the same")
        #expect(ActionType.allCases.allSatisfy { !$0.label.contains("_") && $0.situation(at: "Acme").contains("Acme") })
        #expect(ActionType.lockout.situation(at: "Acme") == "Acme has locked its workers out.")
        // Another OPL server's type is shown as it came, readably.
        #expect(ActionType.label(of: "sit_in") == "Sit in" && ActionType.noun(of: "sit_in") == "sit in")
        #expect(ActionType.label(of: "") == "Labor action")
        #expect(ActionType.situation(of: "sit_in", at: "Acme") == "Workers at Acme are taking a labor action (sit in).")
    }

    @Test func theNoticeSaysWhatIsGoingOnInWords() {
        var notice = PicketNoticePageTests.acme
        notice.actionType = "work_stoppage"
        let page = PicketNoticePage.html(for: notice, controls: .form(proceedPath: "/proceed"))
        #expect(page.contains("<title>Acme &lt;Tools&gt; &amp; Co: work stoppage in progress</title>"))
        #expect(page.contains("Workers at Acme &lt;Tools&gt; &amp; Co have stopped work."))
        #expect(page.contains("<th>Action</th><td>Work stoppage</td>"))
        #expect(!page.contains("work_stoppage"))
        notice.actionType = "lockout"
        #expect(
            PicketNoticePage.html(for: notice, controls: .form(proceedPath: "/p")).contains(
                "Acme &lt;Tools&gt; &amp; Co has locked its workers out."))
    }

    @Test func theMobileAppsPresetReadsAndReports() {
        #expect(APIKeyPreset.mobileApps.scopes == [.readMobile, .writeSubmitStrike, .writeGPSSnapshot])
        #expect(APIKeyPreset(rawValue: "mobile-apps") == .mobileApps)
        #expect(APIKeyPreset.mobileApps.purpose == "for the mobile apps")
    }
}
