import Browsing
import ContentBlocker
import Foundation

/// Which compiled rule lists Pepper's WKWebView browser loads (`WKContentRuleListStore`).
///
/// Each list is stored under an identifier made from the manifest identifier and its number,
/// so an unchanged output is looked up, never compiled again, and a new one gets new
/// identifiers; lists of older outputs are removed. A site the person allowlisted (the shield
/// turned off) gets a web view without any rule list at once, without waiting for the
/// recompiled output.
public enum WebViewRuleLists {
    /// What to put in the web view.
    public enum Plan: Sendable, Hashable {
        /// No rule list: the site is allowlisted.
        case none
        /// These lists, each looked up by identifier or, when missing, compiled from its file.
        case lists([RuleList])
    }

    /// One compiled list.
    public struct RuleList: Sendable, Hashable {
        /// Its identifier in the store.
        public var identifier: String
        /// The JSON to compile when the store does not have it.
        public var file: URL
    }

    /// The prefix of Pepper's identifiers in the store.
    public static let identifierPrefix = "pepper-"

    /// The store identifiers of `manifest`'s lists.
    public static func identifiers(of manifest: Manifest) -> [String] {
        manifest.files.indices.map { "\(identifierPrefix)\(manifest.identifier.prefix(16))-\($0 + 1)" }
    }

    /// What the web view gets for a page: nothing when `blocking` is off for its site, else
    /// the lists of the output in `outputURL` (`out`, read once through its link).
    ///
    /// - Throws: When there is no compiled output.
    public static func plan(blocking: Bool, outputURL: URL) throws -> Plan {
        guard blocking else { return .none }
        let generation = outputURL.resolvingSymlinksInPath()
        let manifest = try Manifest.decode(Data(contentsOf: generation.appendingPathComponent("manifest.json")))
        return .lists(
            zip(identifiers(of: manifest), manifest.files).map { identifier, file in
                RuleList(identifier: identifier, file: generation.appendingPathComponent(file.path))
            })
    }

    /// The output in `out`, as the web view's rule lists: what the installer compiles or looks
    /// up, and what a failure names.
    public struct Output: Sendable, Hashable {
        /// The manifest identifier.
        public var identifier: String
        /// Its lists, with their store identifiers.
        public var lists: [RuleList]
        /// The lists it was compiled from (the manifest's sources).
        public var sources: [String]
        /// How many rules it has.
        public var rules: Int

        /// The set ``RuleListSelection`` keeps once every list is in the store.
        public var ruleSet: RuleListSelection.RuleSet {
            RuleListSelection.RuleSet(identifier: identifier, names: lists.map(\.identifier), rules: rules)
        }

        /// The failure of `list`, which the store refused with `reason`, with the rule that
        /// breaks it when the search found one among `rules` (its file's rules).
        public func failure(of list: RuleList, rules: [String]?, found: FailingRuleSearch.Found?, reason: String) -> RuleListFailure {
            FailingRuleSearch.failure(
                identifier: identifier, file: list.file.lastPathComponent, lists: sources, rules: rules, found: found, reason: reason)
        }
    }

    /// The output in `outputURL` (`out`, read once through its link), or the failure that says
    /// why there is none to install (no manifest: not compiled yet, or unreadable).
    public static func output(outputURL: URL) -> Result<Output, RuleListFailure> {
        let generation = outputURL.resolvingSymlinksInPath()
        do {
            let manifest = try Manifest.decode(Data(contentsOf: generation.appendingPathComponent("manifest.json")))
            let lists = zip(identifiers(of: manifest), manifest.files).map { identifier, file in
                RuleList(identifier: identifier, file: generation.appendingPathComponent(file.path))
            }
            return .success(
                Output(
                    identifier: manifest.identifier, lists: lists, sources: manifest.sources.map(\.name),
                    rules: manifest.files.reduce(0) { $0 + $1.rules }))
        } catch {
            return .failure(
                RuleListFailure(
                    identifier: "", file: "manifest.json", lists: [], reason: "no compiled content blocker in \(outputURL.path) (\(error))")
            )
        }
    }

    /// Where the app keeps the name of the last good set of rule lists (``RuleListSelection``).
    public static func lastGoodURL(home: URL) -> URL {
        home.appendingPathComponent("browser/web-view-rule-lists.json")
    }

    /// Pepper's identifiers in the store that no current list uses (to remove).
    public static func obsolete(stored: [String], current: Plan) -> [String] {
        guard case .lists(let lists) = current else { return [] }
        return obsolete(stored: stored, keeping: lists.map(\.identifier))
    }

    /// Pepper's identifiers in the store that `names` (the lists of the set in force) do not
    /// include, to remove; identifiers that are not Pepper's are never listed.
    public static func obsolete(stored: [String], keeping names: [String]) -> [String] {
        let keep = Set(names)
        return stored.filter { $0.hasPrefix(identifierPrefix) && !keep.contains($0) }.sorted()
    }
}
