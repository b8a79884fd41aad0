import AppSupport
import Foundation
import WebKit

/// Puts the compiled content blocker into a web view through `WKContentRuleListStore`:
/// `WebViewRuleLists` says which lists (none for an allowlisted site) under which identifiers;
/// a list the store already holds under its identifier is looked up, not compiled again.
@MainActor
enum RuleListInstaller {
    /// Installs `plan` in `controller`, replacing what it had.
    static func install(_ plan: WebViewRuleLists.Plan, in controller: WKUserContentController) async throws {
        controller.removeAllContentRuleLists()
        guard case .lists(let lists) = plan, let store = WKContentRuleListStore.default() else { return }
        for list in lists {
            if let compiled = try? await store.contentRuleList(forIdentifier: list.identifier) {
                controller.add(compiled)
                continue
            }
            let json = try String(contentsOf: list.file, encoding: .utf8)
            if let compiled = try await store.compileContentRuleList(forIdentifier: list.identifier, encodedContentRuleList: json) {
                controller.add(compiled)
            }
        }
        let stored = await store.availableIdentifiers() ?? []
        for identifier in WebViewRuleLists.obsolete(stored: stored, current: plan) {
            try? await store.removeContentRuleList(forIdentifier: identifier)
        }
    }
}
