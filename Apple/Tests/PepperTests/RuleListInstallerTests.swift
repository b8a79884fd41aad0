import AppSupport
import Browsing
import Foundation
import WebKit
import XCTest

@testable import Pepper

/// `RuleListInstaller` against the simulator's real `WKContentRuleListStore` and a real web view:
/// what an output leaves in the store, what a page looks like under it, and a list the store
/// refuses (named with its rule, nothing swapped).
@MainActor
final class RuleListInstallerTests: XCTestCase {
    static let pageAddress = URL(string: "https://news.example/")!

    func testAnOutputsListsGoIntoTheStoreAndAnEarlierOutputsAreRemoved() async throws {
        let store = try XCTUnwrap(WKContentRuleListStore.default())
        await RuleListFixture.removeTestLists()
        // A list of an earlier output, and a list that is not Pepper's.
        let earlier = WebViewRuleLists.identifierPrefix + "0123456789abcdef-1"
        _ = try await store.compileContentRuleList(forIdentifier: earlier, encodedContentRuleList: RuleListFixture.hideAds)
        _ = try await store.compileContentRuleList(forIdentifier: RuleListFixture.foreign, encodedContentRuleList: RuleListFixture.hideAds)

        let container = TestContainer()
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds, RuleListFixture.hideAds], to: container.container.outputURL)
        let output = try WebViewRuleLists.output(outputURL: container.container.outputURL).get()
        XCTAssertEqual(output.lists.count, 2)
        let lists = try await RuleListInstaller.prepare(output).get()
        XCTAssertEqual(lists.count, 2)
        let removedFailures = await RuleListInstaller.removeObsolete(keeping: output.ruleSet)
        XCTAssertEqual(removedFailures, [])

        let stored = Set(await store.availableIdentifiers() ?? [])
        for list in output.lists { XCTAssertTrue(stored.contains(list.identifier), "\(list.identifier) is compiled into the store") }
        XCTAssertFalse(stored.contains(earlier), "the earlier output's list is removed")
        XCTAssertTrue(stored.contains(RuleListFixture.foreign), "a list that is not Pepper's is left alone")

        // Prepared again (the next launch): looked up in the store, not compiled from the files.
        for list in output.lists { try FileManager.default.removeItem(at: list.file) }
        let again = try await RuleListInstaller.prepare(output).get()
        XCTAssertEqual(again.count, 2)
        let lookedUp = await RuleListInstaller.lookUp(output.ruleSet)
        XCTAssertEqual(lookedUp?.count, 2, "the set is found by its names alone")
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

        let lists = try await RuleListInstaller.prepare(try WebViewRuleLists.output(outputURL: out).get()).get()
        RuleListInstaller.put(lists, in: controller)
        webView.loadHTMLString(RuleListFixture.page, baseURL: Self.pageAddress)
        let first = try await eventually { loads.finished == 1 }
        XCTAssertTrue(first, "the page loads")
        let hidden = try await RuleListFixture.adDisplay(in: webView)
        XCTAssertEqual(hidden, "none", "the installed list hides the ad")

        // The shield off: no rule list at all, at once.
        RuleListInstaller.put([], in: controller)
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

    func testAListTheStoreRefusesIsNamedWithItsRuleAndNothingIsSwapped() async throws {
        await RuleListFixture.removeTestLists()
        let container = TestContainer()
        let out = container.container.outputURL
        try RuleListFixture.writeOutput(lists: [RuleListFixture.hideAds, RuleListFixture.refused], to: out)
        let output = try WebViewRuleLists.output(outputURL: out).get()

        guard case .failure(let failure) = await RuleListInstaller.prepare(output) else {
            return XCTFail("WebKit accepted a list with an action type it does not know")
        }
        XCTAssertEqual(failure.identifier, output.identifier)
        XCTAssertEqual(failure.file, "list-2.json")
        XCTAssertEqual(failure.rule?.number, 2, "the second rule of the file breaks it: \(failure)")
        XCTAssertEqual(failure.rule?.of, 2)
        XCTAssertTrue(failure.rule?.json.contains("explode") == true)
        XCTAssertFalse(failure.reason.isEmpty)
        let stored = await WKContentRuleListStore.default()?.availableIdentifiers() ?? []
        XCTAssertFalse(stored.contains(RuleListInstaller.probeIdentifier), "the search's probes are removed")
        XCTAssertFalse(stored.contains(output.lists[1].identifier), "nothing is stored for the refused list")
        await RuleListFixture.removeTestLists()
    }
}
