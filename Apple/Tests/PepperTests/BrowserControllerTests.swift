import Browsing
import Foundation
import PepperActions
import Picket
import Storage
import WebKit
import XCTest

@testable import Pepper

/// What `BrowserController` decides between WebKit and the browser session, with the simulator's
/// real web view and a Pepper state in a temporary container. No test needs the network: the
/// pages are loaded from strings under the addresses they stand for, and a struck employer's
/// page is replaced before any request is made.
@MainActor
final class BrowserControllerTests: XCTestCase {
    /// Waits until `browser` shows `address` and has finished loading it.
    func shows(_ address: String, in browser: BrowserController) async throws -> Bool {
        try await eventually { browser.address == address && browser.webView.url?.absoluteString == address && !browser.webView.isLoading }
    }

    func testZoomGoesToThePageAndIsThereAtTheNextLaunch() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        let browser = try await BrowserController.open(state: state)

        browser.zoomIn()
        browser.zoomIn()
        XCTAssertGreaterThan(browser.session.zoom.factor, 1)
        XCTAssertEqual(Double(browser.webView.pageZoom), browser.session.zoom.factor, accuracy: 0.001)
        browser.zoomOut()
        XCTAssertEqual(Double(browser.webView.pageZoom), browser.session.zoom.factor, accuracy: 0.001)

        let relaunched = try await BrowserController.open(state: state)
        XCTAssertEqual(relaunched.session.zoom.factor, browser.session.zoom.factor, "the zoom of this device survives a relaunch")
    }

    func testTheShieldAllowlistsTheSiteShownAndTurnsBackOn() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        // The page shown at the last launch, restored from the history.
        try BrowserSession(state: state).engineAddedItem(url: "https://news.example/story")
        let browser = try await BrowserController.open(state: state)
        XCTAssertEqual(browser.session.currentURL, "https://news.example/story")

        await browser.toggleBlocking()
        XCTAssertNil(browser.problem)
        XCTAssertFalse(browser.blocking, "the shield shows the site unprotected")
        XCTAssertEqual(try state.allowlistEntries().map(\.domain), ["news.example"])

        await browser.toggleBlocking()
        XCTAssertNil(browser.problem)
        XCTAssertTrue(browser.blocking)
        XCTAssertEqual(try state.allowlistEntries().map(\.domain), [])
        await RuleListFixture.removeTestLists()  // the rebuilt lists the shield installed
    }

    func testOnTheStartPageTheShieldChangesNothing() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        let browser = try await BrowserController.open(state: state)

        await browser.toggleBlocking()
        XCTAssertNil(browser.problem)
        XCTAssertTrue(browser.blocking)
        XCTAssertEqual(try state.allowlistEntries().map(\.domain), [])
    }

    func testEachPageGetsTheRulesOfItsSite() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds], to: container.container.outputURL)
        // Allowlisted without the rebuild (which would replace the output above).
        _ = try AllowlistStore(database: state.database).add("allowed.example")
        let browser = try await BrowserController.open(state: state)
        await browser.launch()

        browser.loadHTML(RuleListFixture.page, baseURL: URL(string: "https://news.example/"))
        let news = try await shows("https://news.example/", in: browser)
        XCTAssertTrue(news, "the page loads")
        let hidden = try await RuleListFixture.adDisplay(in: browser.webView)
        XCTAssertEqual(hidden, "none", "a protected site's page gets the lists")
        XCTAssertTrue(browser.blocking)

        browser.loadHTML(RuleListFixture.page, baseURL: URL(string: "https://allowed.example/"))
        let allowed = try await shows("https://allowed.example/", in: browser)
        XCTAssertTrue(allowed, "the page loads")
        let shown = try await RuleListFixture.adDisplay(in: browser.webView)
        XCTAssertEqual(shown, "block", "an allowlisted site's page gets none, before it loads")
        XCTAssertFalse(browser.blocking)
        await RuleListFixture.removeTestLists()
    }

    /// Private by site: each site's page in a web view over its own persistent store (the
    /// identifier `SitePartition` derives), with the site's fingerprinting shield.
    func testEachSiteHasItsOwnStoreAndShield() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        let browser = try await BrowserController.open(state: state)
        await browser.launch()
        let page = "<!doctype html><title>page</title><p>page</p>"

        browser.loadHTML(page, baseURL: URL(string: "https://news.example/"))
        let news = try await shows("https://news.example/", in: browser)
        XCTAssertTrue(news, "the page loads")
        let newsView = browser.webView
        XCTAssertEqual(newsView.configuration.websiteDataStore.identifier, SitePartition(site: "news.example").storeIdentifier)
        XCTAssertTrue(newsView.configuration.websiteDataStore.isPersistent)
        _ = try await newsView.evaluateJavaScript("localStorage.setItem('mark', 'news')")
        let cores = try await newsView.evaluateJavaScript("navigator.hardwareConcurrency") as? Int
        XCTAssertEqual(cores, FingerprintShield.normalizedHardwareConcurrency)

        browser.loadHTML(page, baseURL: URL(string: "https://other.example/"))
        let other = try await shows("https://other.example/", in: browser)
        XCTAssertTrue(other, "the page loads")
        XCTAssertFalse(browser.webView === newsView, "another site, another web view")
        XCTAssertEqual(browser.webView.configuration.websiteDataStore.identifier, SitePartition(site: "other.example").storeIdentifier)

        browser.loadHTML(page, baseURL: URL(string: "https://news.example/again"))
        let again = try await shows("https://news.example/again", in: browser)
        XCTAssertTrue(again, "the page loads")
        XCTAssertFalse(browser.webView === newsView, "a new web view…")
        let mark = try await browser.webView.evaluateJavaScript("localStorage.getItem('mark') || ''") as? String
        XCTAssertEqual(mark, "news", "…over the site's own store, which kept what the site stored")
        XCTAssertEqual(browser.webView.configuration.websiteDataStore.identifier, SitePartition(site: "news.example").storeIdentifier)
    }

    func testAStruckEmployersSiteShowsTheNoticeAndProceedingLetsItThroughForADay() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try TestContainer.strikeAtAcme(in: state, policy: .ask)
        let browser = try await BrowserController.open(state: state)

        browser.open("https://acme.example/")
        let notice = try await shows("https://acme.example/", in: browser)
        XCTAssertTrue(notice, "the notice takes the site's place, under its address")
        let text = try await browser.webView.pageText()
        XCTAssertTrue(text.contains("Picket line ahead: Acme"), "the notice names the employer: \(text)")
        XCTAssertEqual(browser.session.currentURL, "https://acme.example/", "and is in the history as the site")

        // "Proceed anyway", as the notice's button sends it.
        _ = try await browser.webView.evaluateJavaScript(
            "window.webkit.messageHandlers.\(BrowserController.messageHandler).postMessage('\(PicketNoticePage.proceedMessage)'); true")
        let proceeded = try await eventually { ((try? state.allowlistEntries()) ?? []).contains { $0.domain == "acme.example" } }
        XCTAssertTrue(proceeded, "proceeding allowlists the site")
        let entry = try XCTUnwrap(try state.allowlistEntries().first { $0.domain == "acme.example" })
        let expiry = try XCTUnwrap(entry.expiresAt, "for a day, not for good")
        XCTAssertEqual(expiry.timeIntervalSinceNow, PicketNotice.proceedDuration, accuracy: 300)
        XCTAssertNil(browser.problem)
        await RuleListFixture.removeTestLists()  // the rebuilt lists installed after proceeding
    }

    func testUnderTheBlockPolicyTheNoticeCannotBeProceededPast() async throws {
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try TestContainer.strikeAtAcme(in: state, policy: .block)
        let browser = try await BrowserController.open(state: state)

        browser.open("https://acme.example/")
        let notice = try await shows("https://acme.example/", in: browser)
        XCTAssertTrue(notice, "the notice is shown")
        _ = try await browser.webView.evaluateJavaScript(
            "window.webkit.messageHandlers.\(BrowserController.messageHandler).postMessage('\(PicketNoticePage.proceedMessage)'); true")
        let refused = try await eventually { browser.problem != nil }
        XCTAssertTrue(refused, "the refusal is shown")
        XCTAssertEqual(try state.allowlistEntries().map(\.domain), [], "the site stays blocked")
    }

    // MARK: The starter, and swipes through the restored history

    /// Pages that need no network: `data:` addresses, loaded by the web view itself.
    static let dataA = "data:text/html,A"
    static let dataB = "data:text/html,B"

    func testSwipesAndButtonsStepThroughTheRestoredHistoryToTheStarter() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds], to: container.container.outputURL)
        // The history of the last launch: A then B, B current.
        let earlier = try BrowserSession(state: state)
        try earlier.engineAddedItem(url: Self.dataA)
        try earlier.engineAddedItem(url: Self.dataB)

        let browser = try await BrowserController.open(state: state)
        XCTAssertFalse(browser.webView.allowsBackForwardNavigationGestures, "WebKit's own swipes would walk its empty list")
        await browser.launch()
        let onB = try await shows(Self.dataB, in: browser)
        XCTAssertTrue(onB, "the restored page")
        XCTAssertFalse(browser.webView.canGoBack, "WebKit's list starts empty")
        XCTAssertTrue(browser.canGoBack)

        // The page's edge swipe goes back through the restored history.
        browser.swipe(.back, on: .page)
        let onA = try await shows(Self.dataA, in: browser)
        XCTAssertTrue(onA, "a swipe back loads the stored page")
        // The Back button, the same function: the starter slides in over the first page.
        browser.step(.back)
        XCTAssertEqual(browser.screen, .starter)
        XCTAssertEqual(browser.webView.url?.absoluteString, Self.dataA, "the page stays loaded behind the starter")
        XCTAssertFalse(browser.canGoBack)
        XCTAssertTrue(browser.canGoForward)
        browser.swipe(.forward, on: .page)
        XCTAssertEqual(browser.screen, .starter, "a swipe on the page that slid away does nothing")
        // The starter's own swipe brings the page back; forward again goes on to B.
        browser.swipe(.forward, on: .starter)
        XCTAssertEqual(browser.screen, .page)
        browser.step(.forward)
        let backOnB = try await shows(Self.dataB, in: browser)
        XCTAssertTrue(backOnB, "forward through the stored history")
        XCTAssertEqual(browser.session.history.entries.map(\.url), [Self.dataA, Self.dataB])
        await RuleListFixture.removeTestLists()
    }

    // MARK: Rules that never fail open

    func testAnOutputTheStoreRefusesKeepsTheLastGoodListsAndIsShown() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds], to: container.container.outputURL)
        let browser = try await BrowserController.open(state: state)
        await browser.launch()
        XCTAssertNil(browser.rulesNotice)
        let good = try XCTUnwrap(browser.rules.lastGood)

        // A new output whose list WebKit refuses: the next page keeps the last good lists.
        try FileManager.default.removeItem(at: container.container.outputURL)
        try RuleListFixture.writeOutput(lists: [RuleListFixture.refused], to: container.container.outputURL)
        browser.loadHTML(RuleListFixture.page, baseURL: URL(string: "https://news.example/"))
        let loaded = try await shows("https://news.example/", in: browser)
        XCTAssertTrue(loaded, "the page loads")
        let hidden = try await RuleListFixture.adDisplay(in: browser.webView)
        XCTAssertEqual(hidden, "none", "protected by the last good lists")
        XCTAssertEqual(browser.rules.lastGood, good)
        let notice = try XCTUnwrap(browser.rulesNotice, "the failure is shown")
        XCTAssertTrue(notice.contains("list-1.json") && notice.contains("rule 2 of 2"), notice)
        XCTAssertTrue(notice.contains("protected by the previous rules"), notice)

        // The next launch: the last good set is loaded from the store.
        let relaunched = try await BrowserController.open(state: state)
        await relaunched.launch()
        XCTAssertEqual(relaunched.rules.lastGood, good)
        XCTAssertTrue(relaunched.rules.installed)
        XCTAssertNotNil(relaunched.rulesNotice)
        await RuleListFixture.removeTestLists()
    }

    func testWithoutAnyRulesAProtectedPageDoesNotLoad() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let state = try PepperState(home: container.container.home)
        try RuleListFixture.writeOutput(lists: [RuleListFixture.refused], to: container.container.outputURL)
        let browser = try await BrowserController.open(state: state)
        await browser.launch()
        XCTAssertTrue(browser.rulesNotice?.contains("Pages do not load") == true)

        browser.loadHTML(RuleListFixture.page, baseURL: URL(string: "https://news.example/"))
        let refused = try await eventually { browser.refusedLoads == 1 }
        XCTAssertTrue(refused, "the load is cancelled")
        XCTAssertNil(browser.webView.url, "nothing was shown")
        await RuleListFixture.removeTestLists()
    }
}
