import AppExtensionSupport
import AppSupport
import Foundation
import ListSync
import PepperActions
import Picket
import Screens
import Storage
import Testing

/// The questions about struck employers' sites: which app they name, and what the person's
/// answer does under each alert mode and policy.
@Suite("Picket alerts")
struct PicketAlertTests {
    static let notice = PicketNotice(
        url: "https://www.acme.example/", employer: "Acme", employerId: "emp_acme", actionType: "strike", organization: "Acme Workers",
        location: "Springfield", startDate: "2026-01-05T00:00:00.000Z", endDate: nil, details: "For a contract.", source: "picket-a",
        canProceed: true)

    @Test func theAppIsNamedWhenIOSGivesItAndSaidWhenItDoesNot() {
        // A known app, with or without the team identifier iOS puts first for App Store apps.
        #expect(SourceApp(signingIdentifier: "com.apple.mobilesafari")?.description == "Safari")
        #expect(SourceApp(signingIdentifier: "ABCDE12345.com.google.chrome.ios")?.description == "Chrome")
        #expect(SourceApp(signingIdentifier: "ABCDE12345.COM.Apple.MobileSafari")?.description == "Safari", "case does not matter")
        // Any other: its bundle identifier, as iOS gave it (no public API names another app).
        let shop = SourceApp(signingIdentifier: "ABCDE12345.com.example.shop")
        #expect(shop?.bundleIdentifier == "com.example.shop")
        #expect(shop?.description == "the app com.example.shop")
        #expect(
            SourceApp(signingIdentifier: "abcde12345.com.example.shop")?.bundleIdentifier == "abcde12345.com.example.shop",
            "only a team identifier (ten capitals and digits) is taken off")
        #expect(SourceApp(signingIdentifier: nil) == nil)
        #expect(SourceApp(signingIdentifier: " ") == nil)

        // The notification's sentence, for each case.
        let safari = PicketAskNotification(
            host: "www.acme.example", notice: Self.notice, app: AppAttribution(flowSourceApp: "com.apple.mobilesafari"))
        #expect(
            safari.body
                == "www.acme.example belongs to Acme (strike by Acme Workers) (Springfield). Safari tried to connect. It stays blocked unless you choose Proceed, which lets it through for 24 hours."
        )
        #expect(safari.userInfo[PicketAskNotification.appKey] == "Safari tried to connect.")
        let other = PicketAskNotification(
            host: "www.acme.example", notice: Self.notice, app: AppAttribution(flowSourceApp: "ABCDE12345.com.example.shop"))
        #expect(other.body.contains(". The app com.example.shop tried to connect. "))
        let unknown = PicketAskNotification(host: "www.acme.example", notice: Self.notice, app: AppAttribution(flowSourceApp: nil))
        #expect(unknown.body.contains(". iOS did not say which app tried to connect. "))
        let lookup = PicketAskNotification(host: "www.acme.example", notice: Self.notice, app: .dnsLookup)
        #expect(lookup.body.contains(". iOS does not tell DNS protection which app looked the name up. "))
        #expect(
            Set([safari.identifier, unknown.identifier, lookup.identifier]).count == 1, "one question per employer: a later one replaces it"
        )
    }

    @Test func overlayOrBannerDecidesWhatATapAndEachAnswerDo() {
        let alert = PicketAlert(host: "www.acme.example", employerId: "emp_acme", appSentence: "Safari tried to connect.")
        var blocked = Self.notice
        blocked.canProceed = false
        let overlay = PicketAlertStep.showOverlay(PicketOverlay(alert: alert, presentation: .init(Self.notice)))
        let blockedOverlay = PicketAlertStep.showOverlay(PicketOverlay(alert: alert, presentation: .init(blocked)))
        let gone = PicketAlertStep.say("www.acme.example is no longer blocked: the labor action ended or the Picket policy is now allow.")
        let refused = PicketAlertStep.say(
            "The Picket policy now blocks www.acme.example: there is no proceeding (Labor actions › Policy).")
        // (event, mode, notice as the state gives it now: ask / block / nil for allow or ended) → step
        let table: [(PicketAlertEvent, PicketAlertMode, PicketNotice?, PicketAlertStep)] = [
            // In front: the overlay at once, or the system's banner.
            (.arrivedWhileOpen, .overlay, Self.notice, overlay),
            (.arrivedWhileOpen, .banner, Self.notice, .showBanner),
            (.arrivedWhileOpen, .overlay, nil, .nothing),
            (.arrivedWhileOpen, .banner, nil, .nothing),
            // A tap: the overlay, or (banner mode) only Pepper opening.
            (.opened, .overlay, Self.notice, overlay),
            (.opened, .overlay, blocked, blockedOverlay),
            (.opened, .banner, Self.notice, .nothing),
            (.opened, .banner, blocked, .nothing),
            (.opened, .overlay, nil, gone),
            (.opened, .banner, nil, gone),
            // Proceed, from the notification's button or the overlay: only while the policy asks.
            (.proceed, .banner, Self.notice, .proceed(site: "www.acme.example")),
            (.proceed, .overlay, Self.notice, .proceed(site: "www.acme.example")),
            (.overlayProceed, .overlay, Self.notice, .proceed(site: "www.acme.example")),
            (.proceed, .banner, blocked, refused),
            (.overlayProceed, .overlay, blocked, refused),
            (.proceed, .banner, nil, gone),
            // Block, a dismissal, Go back: it stays blocked, whatever the mode.
            (.block, .banner, Self.notice, .keepBlocked),
            (.block, .overlay, blocked, .keepBlocked),
            (.dismissed, .overlay, Self.notice, .keepBlocked),
            (.overlayGoBack, .overlay, Self.notice, .keepBlocked),
            (.overlayGoBack, .overlay, nil, .keepBlocked),
        ]
        // Proceeded already (the allowlist covers the site): nothing more to ask.
        let already = PicketAlertStep.say("www.acme.example is let through already (you chose Proceed).")
        #expect(PicketAlertStep.decide(.opened, alert: alert, mode: .overlay, notice: Self.notice, letThrough: true) == already)
        #expect(PicketAlertStep.decide(.proceed, alert: alert, mode: .banner, notice: Self.notice, letThrough: true) == already)
        #expect(PicketAlertStep.decide(.arrivedWhileOpen, alert: alert, mode: .overlay, notice: Self.notice, letThrough: true) == .nothing)
        for (event, mode, notice, expected) in table {
            #expect(
                PicketAlertStep.decide(event, alert: alert, mode: mode, notice: notice) == expected,
                "\(event) under \(mode), notice \(notice.map { $0.canProceed ? "ask" : "block" } ?? "none")")
        }
        // What iOS hands back maps to the events (UserNotifications' own identifiers passed in).
        func event(_ identifier: String) -> PicketAlertEvent? {
            PicketAlertEvent(actionIdentifier: identifier, defaultAction: "default", dismissAction: "dismiss")
        }
        #expect(event("default") == .opened)
        #expect(event("dismiss") == .dismissed)
        #expect(event(PicketAskNotification.proceedAction) == .proceed)
        #expect(event(PicketAskNotification.blockAction) == .block)
        #expect(event("other") == nil)
        let question = PicketAskNotification(host: "www.acme.example", notice: Self.notice, app: .dnsLookup)
        let received = PicketAlert(categoryIdentifier: PicketAskNotification.category, userInfo: question.userInfo)
        #expect(received?.host == "www.acme.example" && received?.employerId == "emp_acme")
        #expect(received?.appSentence == AppAttribution.dnsLookup.sentence)
        #expect(PicketAlert(categoryIdentifier: "pepper.zone", userInfo: question.userInfo) == nil)
    }

    @Test func theOverlayShowsWhatTheBrowsersNoticeShows() {
        let shown = PicketNotice.Presentation(Self.notice)
        #expect(shown.heading == "Picket line ahead: Acme")
        #expect(shown.facts.map(\.label) == ["Action", "Called by", "Where", "Since", "Address", "Listed by"])
        #expect(
            shown.facts.map(\.value) == ["Strike", "Acme Workers", "Springfield", "2026-01-05", "https://www.acme.example/", "picket-a"])
        #expect(shown.canProceed && shown.blockedNote == nil)
        #expect(shown.proceedTitle == "Proceed anyway (for 24 hours)" && shown.backTitle == "Go back")
        // The browser's page is made from the same presentation: every fact, the heading, the buttons.
        let page = PicketNoticePage.html(for: Self.notice, controls: .scriptMessages(handler: "pepper"))
        for fact in shown.facts { #expect(page.contains("<tr><th>\(fact.label)</th><td>\(HTML.escape(fact.value))</td></tr>")) }
        #expect(page.contains("<h1>Picket line ahead: Acme</h1>") && page.contains(HTML.escape(shown.situation)))
        #expect(page.contains(">Proceed anyway (for 24 hours)</button>") && page.contains(">Go back</button>"))
        var blocked = Self.notice
        blocked.canProceed = false
        #expect(PicketNotice.Presentation(blocked).blockedNote == "The Picket policy here blocks this site.")
    }

    @Test func theAlertModeIsStoredWithThePreferencesAndChecked() throws {
        let temporary = TemporaryContainer()
        #expect(try temporary.state.picketAlertMode() == .overlay, "the overlay unless the person chooses")
        #expect(try temporary.state.setPicketAlertMode(" Banner ") == .banner)
        #expect(try PreferenceStore(database: temporary.state.database).value(.picketAlerts) == "banner")
        #expect(try temporary.state.picketAlertMode() == .banner)
        #expect(throws: ActionError.invalidField(field: "alerts", problem: .unknownChoice(["overlay", "banner"]))) {
            try temporary.state.setPicketAlertMode("popup")
        }
        #expect(try temporary.state.picketAlertMode() == .banner, "a refused value changes nothing")
        #expect(
            "\(ActionError.invalidField(field: "alerts", problem: .unknownChoice(["overlay", "banner"])))".contains(
                "choose overlay or banner"))
    }

    @Test func theAppCarriesOutTheDecisionOnTheSharedState() async throws {
        let (context, temporary) = try AppContextTests.context(policy: .ask)
        let alert = PicketAlert(host: "acme.example", employerId: "emp_acme")
        // Overlay mode (the default): a tap shows the notice as the browser words it.
        guard case .showOverlay(let overlay) = await context.picketAlert(.opened, alert: alert) else {
            Issue.record("a tap in overlay mode shows the overlay")
            return
        }
        #expect(overlay.presentation.heading == "Picket line ahead: Acme" && overlay.presentation.canProceed)
        // Banner mode: a tap only opens Pepper; the notification's Proceed still works.
        _ = try context.state.setPicketAlertMode("banner")
        #expect(await context.picketAlert(.opened, alert: alert) == .nothing)
        #expect(await context.picketAlert(.arrivedWhileOpen, alert: alert) == .showBanner)
        let now = Date()
        #expect(await context.picketAlert(.proceed, alert: alert, now: now) == .proceed(site: "acme.example"))
        let entry = try #require(try AllowlistStore(database: temporary.state.database).entries().first { $0.domain == "acme.example" })
        #expect(abs((entry.expiresAt?.timeIntervalSince(now) ?? 0) - PicketNotice.proceedDuration) < 1, "for 24 hours")
        // Once the site is let through there is nothing left to ask about.
        #expect(await context.picketAlert(.opened, alert: alert) == .say("acme.example is let through already (you chose Proceed)."))
        #expect(await context.picketAlert(.arrivedWhileOpen, alert: alert) == .nothing)
        #expect(await context.picketAlert(.block, alert: alert) == .keepBlocked)

        // Under block: the overlay offers no way on, and Proceed is refused.
        let (blocking, blockingContainer) = try AppContextTests.context(policy: .block)
        defer { withExtendedLifetime(blockingContainer) {} }
        guard case .showOverlay(let refusedOverlay) = await blocking.picketAlert(.opened, alert: alert) else {
            Issue.record("a tap under block shows the overlay, without Proceed")
            return
        }
        #expect(!refusedOverlay.presentation.canProceed)
        guard case .say(let sentence) = await blocking.picketAlert(.overlayProceed, alert: alert) else {
            Issue.record("proceeding under block is refused")
            return
        }
        #expect(sentence.hasPrefix("The Picket policy now blocks acme.example"))
        #expect(try AllowlistStore(database: blocking.state.database).entries().isEmpty, "nothing was let through")
        // Under allow the site is not blocked: no overlay.
        let (allowing, allowingContainer) = try AppContextTests.context(policy: .allow)
        defer { withExtendedLifetime(allowingContainer) {} }
        #expect(await allowing.picketAlert(.arrivedWhileOpen, alert: alert) == .nothing)
    }

    @Test func aStateThatCannotBeReadIsSaidNotTakenForNoLongerBlocked() async throws {
        let (context, temporary) = try AppContextTests.context(policy: .ask)
        defer { withExtendedLifetime(temporary) {} }
        try context.state.database.write { try $0.execute(sql: "DROP TABLE picketSetting") }
        let step = await context.picketAlert(.opened, alert: PicketAlert(host: "acme.example", employerId: "emp_acme"))
        guard case .say(let sentence) = step else {
            Issue.record("a sentence, not \(step)")
            return
        }
        #expect(sentence.hasPrefix("Pepper cannot read the struck employers' list"))
    }
}
