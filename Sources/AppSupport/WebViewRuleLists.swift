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

    /// Pepper's identifiers in the store that no current list uses (to remove).
    public static func obsolete(stored: [String], current: Plan) -> [String] {
        guard case .lists(let lists) = current else { return [] }
        let keep = Set(lists.map(\.identifier))
        return stored.filter { $0.hasPrefix(identifierPrefix) && !keep.contains($0) }.sorted()
    }
}
