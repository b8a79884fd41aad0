import AppSupport
import Browsing
import Foundation
import WebKit

/// Puts the compiled content blocker into a web view through `WKContentRuleListStore`, never
/// failing open: every list of a new output is looked up or compiled first (``prepare(_:)``),
/// and only when all are ready does the caller swap them in (``put(_:in:)``); when the store
/// refuses one, nothing in the web view changes and the failure names the file and the rule
/// that broke it. `RuleListSelection` (Browsing, tested on Linux) decides what to keep; this
/// type only talks to WebKit.
@MainActor
enum RuleListInstaller {
    /// The store identifier the failing-rule search compiles its probes under (removed after).
    static let probeIdentifier = WebViewRuleLists.identifierPrefix + "probe"

    /// Every list of `output`, looked up in the store by identifier or compiled from its file;
    /// or the failure of the first list that cannot be read or that the store refuses.
    static func prepare(_ output: WebViewRuleLists.Output) async -> Result<[WKContentRuleList], RuleListFailure> {
        guard let store = WKContentRuleListStore.default() else {
            return .failure(
                RuleListFailure(identifier: output.identifier, file: "", lists: output.sources, reason: "WebKit has no rule-list store"))
        }
        var ready: [WKContentRuleList] = []
        for list in output.lists {
            // Not in the store yet (an error here means the same): compiled below.
            if let stored = try? await store.contentRuleList(forIdentifier: list.identifier) {
                ready.append(stored)
                continue
            }
            let json: String
            do {
                json = try String(contentsOf: list.file, encoding: .utf8)
            } catch {
                return .failure(output.failure(of: list, rules: nil, found: nil, reason: "cannot read the list: \(error)"))
            }
            do {
                guard let compiled = try await store.compileContentRuleList(forIdentifier: list.identifier, encodedContentRuleList: json)
                else {
                    return .failure(output.failure(of: list, rules: nil, found: nil, reason: "WebKit returned no rule list"))
                }
                ready.append(compiled)
            } catch {
                let rules = FailingRuleSearch.rules(of: Data(json.utf8))
                var found: FailingRuleSearch.Found?
                if let rules { found = await findFailingRule(in: rules, store: store) }
                return .failure(output.failure(of: list, rules: rules, found: found, reason: reason(error)))
            }
        }
        return .success(ready)
    }

    /// The lists of `set` (the last good set), looked up in the store; `nil` when one is missing.
    static func lookUp(_ set: RuleListSelection.RuleSet) async -> [WKContentRuleList]? {
        guard let store = WKContentRuleListStore.default() else { return nil }
        var lists: [WKContentRuleList] = []
        for name in set.names {
            guard let list = try? await store.contentRuleList(forIdentifier: name) else { return nil }
            lists.append(list)
        }
        return lists
    }

    /// Puts `lists` into `controller`, replacing what it had (none for an allowlisted site).
    static func put(_ lists: [WKContentRuleList], in controller: WKUserContentController) {
        controller.removeAllContentRuleLists()
        for list in lists { controller.add(list) }
    }

    /// Removes Pepper's lists that `kept` (the set now in force) does not name; lists that are
    /// not Pepper's are left alone. Returns the identifiers that could not be removed.
    @discardableResult
    static func removeObsolete(keeping kept: RuleListSelection.RuleSet) async -> [String] {
        guard let store = WKContentRuleListStore.default() else { return [] }
        let stored = await store.availableIdentifiers() ?? []
        var failed: [String] = []
        for identifier in WebViewRuleLists.obsolete(stored: stored, keeping: kept.names) {
            do {
                try await store.removeContentRuleList(forIdentifier: identifier)
            } catch {
                failed.append(identifier)
            }
        }
        return failed
    }

    /// The rule of `rules` the store refuses on its own, compiled in halves under
    /// ``probeIdentifier`` (removed afterwards).
    private static func findFailingRule(in rules: [String], store: WKContentRuleListStore) async -> FailingRuleSearch.Found? {
        let found = await FailingRuleSearch.find(in: rules) { json in
            do {
                _ = try await store.compileContentRuleList(forIdentifier: probeIdentifier, encodedContentRuleList: json)
                return nil
            } catch {
                return reason(error)
            }
        }
        try? await store.removeContentRuleList(forIdentifier: probeIdentifier)
        return found
    }

    /// WebKit's own words for a compile error (kept under `NSHelpAnchorErrorKey`), else the error's.
    private static func reason(_ error: any Error) -> String {
        ((error as NSError).userInfo[NSHelpAnchorErrorKey] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? error.localizedDescription
    }
}
