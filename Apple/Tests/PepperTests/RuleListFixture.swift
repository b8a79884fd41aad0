import AppSupport
import ContentBlocker
import Foundation
import WebKit

/// Rule lists and pages whose effect WebKit shows without any network: one rule hides `#ad`.
@MainActor
enum RuleListFixture {
    static let hideAds = ##"[{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":"#ad"}}]"##
    /// A list whose second rule WebKit refuses (an action type it does not know).
    static let refused =
        ##"[{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":"#ad"}},"##
        + ##"{"trigger":{"url-filter":"x"},"action":{"type":"explode"}}]"##
    /// A page with an ad, to load under an https address (so the rule's trigger sees one).
    static let page = #"<html><body><div id="ad">ad</div><p>news</p></body></html>"#
    /// A list that is not Pepper's, which Pepper must leave in the store.
    static let foreign = "someone-else-test-list"

    /// Writes a compiled output to `out` as Pepper does (`manifest.json` and one file per list),
    /// under a new manifest identifier, so its store identifiers are new too.
    static func writeOutput(lists: [String], to out: URL) throws {
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var files: [Manifest.File] = []
        for (index, json) in lists.enumerated() {
            let name = "list-\(index + 1).json"
            try Data(json.utf8).write(to: out.appendingPathComponent(name))
            files.append(Manifest.File(path: name, rules: 1))
        }
        let identifier = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let manifest = Manifest(identifier: identifier, generatedAt: "2026-01-01T00:00:00Z", sources: [], files: files, allowlist: [])
        try manifest.encoded().write(to: out.appendingPathComponent("manifest.json"))
    }

    /// Removes what the tests put in the app's rule-list store: Pepper's lists and the foreign one.
    static func removeTestLists() async {
        guard let store = WKContentRuleListStore.default() else { return }
        for identifier in await store.availableIdentifiers() ?? []
        where identifier.hasPrefix(WebViewRuleLists.identifierPrefix) || identifier == foreign {
            try? await store.removeContentRuleList(forIdentifier: identifier)
        }
    }

    /// How the page in `webView` shows its `#ad`: `none` when a rule hid it.
    static func adDisplay(in webView: WKWebView) async throws -> String? {
        try await webView.evaluateJavaScript("getComputedStyle(document.getElementById('ad')).display") as? String
    }
}
