import FilterEngine
import Foundation
import Storage

/// Counts the requests the content blocker stopped on the current page.
///
/// WebKitGTK reports no event for a request its content blocker stops: the request never
/// becomes a resource load. What it does report is every load that starts
/// (``resourceStarted(_:)``), and the page itself sees its failed subresources (an `error`
/// event on the element, a rejected `fetch`). So the shell reports both, and a subresource
/// that failed in the page without ever starting to load was blocked
/// (``subresourceFailed(_:)``). Counts are of distinct addresses per page and start again
/// when a new page commits (``pageCommitted(url:)``).
///
/// When the filter engine's verdict for the failed request is given, it decides instead: a
/// failure counts only when the engine says the request is blocked (a request stopped by
/// another policy, mixed content or CSP, is not), and the deciding rule is kept to show which
/// rule blocked what.
///
/// A page shown again from the engine's back/forward cache loads nothing, so nothing starts
/// or fails: the counts of the last pages are remembered by address and brought back by
/// ``pageRestoredFromCache()``.
public struct BlockedRequests: Hashable, Sendable {
    /// How many pages' counts are remembered for back/forward-cache restores.
    public static let rememberedPages = 50

    private var started: Set<String> = []
    private var page = ""
    private var remembered: [String: RememberedPage] = [:]
    private var rememberedOrder: [String] = []
    /// The blocked addresses of the current page, in the order they were seen.
    public private(set) var blocked: [String] = []
    /// The rule that blocked each address of ``blocked``, when the filter engine judged it.
    public private(set) var rules: [String: MatchedRule] = [:]

    /// No page yet.
    public init() {}

    /// How many distinct requests were blocked on the current page.
    public var count: Int { blocked.count }

    /// The name under which a blocked request without a known rule is counted.
    public static let unknownList = "(no rule known)"

    /// The blocked requests of the current page per list (the list of the rule that blocked
    /// each), largest first, then by name.
    public var byList: [SiteBlockCountStore.ListCount] {
        var counts: [String: Int] = [:]
        for url in blocked { counts[rules[url]?.list ?? Self.unknownList, default: 0] += 1 }
        return counts.map { SiteBlockCountStore.ListCount(list: $0.key, count: $0.value) }.sorted {
            ($1.count, $0.list) < ($0.count, $1.list)
        }
    }

    /// A page committed at `url`: counting starts again.
    public mutating func pageCommitted(url: String) {
        page = Self.key(url)
        started.removeAll()
        blocked.removeAll()
        rules.removeAll()
    }

    /// The current page came back from the back/forward cache: its last count applies again.
    public mutating func pageRestoredFromCache() {
        if let previous = remembered[page] {
            blocked = previous.blocked
            rules = previous.rules
        }
    }

    /// The engine started loading `url` for the current page.
    public mutating func resourceStarted(_ url: String) {
        started.insert(Self.key(url))
    }

    /// The page saw `url` fail. Returns whether it counts as blocked: it never started loading,
    /// was not counted yet, and — when `verdict` (the filter engine's) is given — is blocked by
    /// a rule.
    @discardableResult
    public mutating func subresourceFailed(_ url: String, verdict: Verdict? = nil) -> Bool {
        let key = Self.key(url)
        guard !key.isEmpty, !started.contains(key), !blocked.contains(key) else { return false }
        if let verdict {
            guard verdict.decision == .blocked else { return false }
            rules[key] = verdict.rule
        }
        blocked.append(key)
        remember()
        return true
    }

    private mutating func remember() {
        if remembered.updateValue(RememberedPage(blocked: blocked, rules: rules), forKey: page) == nil {
            rememberedOrder.append(page)
            if rememberedOrder.count > Self.rememberedPages {
                remembered.removeValue(forKey: rememberedOrder.removeFirst())
            }
        }
    }

    private struct RememberedPage: Hashable, Sendable {
        var blocked: [String]
        var rules: [String: MatchedRule]
    }

    /// The address without its fragment, which is never sent (and differs between reports).
    static func key(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }
}
