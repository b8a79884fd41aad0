import AppSupport
import Foundation
import WebKit
import XCTest

@testable import Pepper

/// `RuleListInstaller` against the simulator's real `WKContentRuleListStore` and a real web view:
/// what a plan leaves in the store, and what a page looks like under it.
@MainActor
final class RuleListInstallerTests: XCTestCase {
    static let pageAddress = URL(string: "https://news.example/")!

    func testAPlansListsGoIntoTheStoreAndAnEarlierOutputsAreRemoved() async throws {
        let store = try XCTUnwrap(WKContentRuleListStore.default())
        await RuleListFixture.removeTestLists()
        // A list of an earlier output, and a list that is not Pepper's.
        let earlier = WebViewRuleLists.identifierPrefix + "0123456789abcdef-1"
        _ = try await store.compileContentRuleList(forIdentifier: earlier, encodedContentRuleList: RuleListFixture.hideAds)
        _ = try await store.compileContentRuleList(forIdentifier: RuleListFixture.foreign, encodedContentRuleList: RuleListFixture.hideAds)

        let container = TestContainer()
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds, RuleListFixture.hideAds], to: container.container.outputURL)
        let plan = try WebViewRuleLists.plan(blocking: true, outputURL: container.container.outputURL)
        guard case .lists(let lists) = plan else { return XCTFail("blocking with an output plans its lists, got \(plan)") }
        XCTAssertEqual(lists.count, 2)
        try await RuleListInstaller.install(plan, in: WKUserContentController())

        let stored = Set(await store.availableIdentifiers() ?? [])
        for list in lists { XCTAssertTrue(stored.contains(list.identifier), "\(list.identifier) is compiled into the store") }
        XCTAssertFalse(stored.contains(earlier), "the earlier output's list is removed")
        XCTAssertTrue(stored.contains(RuleListFixture.foreign), "a list that is not Pepper's is left alone")

        // Installed again (the next page): looked up in the store, not compiled from the files.
        for list in lists { try FileManager.default.removeItem(at: list.file) }
        try await RuleListInstaller.install(plan, in: WKUserContentController())
        let again = Set(await store.availableIdentifiers() ?? [])
        XCTAssertEqual(again, stored)
        await RuleListFixture.removeTestLists()
    }

    func testAPageGetsTheRulesAndAnAllowlistedSiteGetsNone() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let out = container.container.outputURL
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds], to: out)
        let webView = WKWebView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
        let loads = LoadCounter()
        webView.navigationDelegate = loads
        let controller = webView.configuration.userContentController

        try await RuleListInstaller.install(try WebViewRuleLists.plan(blocking: true, outputURL: out), in: controller)
        webView.loadHTMLString(RuleListFixture.page, baseURL: Self.pageAddress)
        let first = try await eventually { loads.finished == 1 }
        XCTAssertTrue(first, "the page loads")
        let hidden = try await RuleListFixture.adDisplay(in: webView)
        XCTAssertEqual(hidden, "none", "the installed list hides the ad")

        // The shield off: no rule list at all, at once.
        try await RuleListInstaller.install(try WebViewRuleLists.plan(blocking: false, outputURL: out), in: controller)
        webView.loadHTMLString(RuleListFixture.page, baseURL: Self.pageAddress)
        let second = try await eventually { loads.finished == 2 }
        XCTAssertTrue(second, "the page loads again")
        let shown = try await RuleListFixture.adDisplay(in: webView)
        XCTAssertEqual(shown, "block", "an allowlisted site is shown as it is")
        let stored = await WKContentRuleListStore.default()?.availableIdentifiers() ?? []
        XCTAssertTrue(
            stored.contains { $0.hasPrefix(WebViewRuleLists.identifierPrefix) }, "the lists stay stored for when the shield is on again")
        await RuleListFixture.removeTestLists()
    }
}
