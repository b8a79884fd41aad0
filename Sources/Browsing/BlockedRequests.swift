import Foundation

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
/// A page shown again from the engine's back/forward cache loads nothing, so nothing starts
/// or fails: the counts of the last pages are remembered by address and brought back by
/// ``pageRestoredFromCache()``.
public struct BlockedRequests: Hashable, Sendable {
    /// How many pages' counts are remembered for back/forward-cache restores.
    public static let rememberedPages = 50

    private var started: Set<String> = []
    private var page = ""
    private var remembered: [String: [String]] = [:]
    private var rememberedOrder: [String] = []
    /// The blocked addresses of the current page, in the order they were seen.
    public private(set) var blocked: [String] = []

    /// No page yet.
    public init() {}

    /// How many distinct requests were blocked on the current page.
    public var count: Int { blocked.count }

    /// A page committed at `url`: counting starts again.
    public mutating func pageCommitted(url: String) {
        page = Self.key(url)
        started.removeAll()
        blocked.removeAll()
    }

    /// The current page came back from the back/forward cache: its last count applies again.
    public mutating func pageRestoredFromCache() {
        if let previous = remembered[page] { blocked = previous }
    }

    /// The engine started loading `url` for the current page.
    public mutating func resourceStarted(_ url: String) {
        started.insert(Self.key(url))
    }

    /// The page saw `url` fail. Returns whether it counts as blocked (it never started loading
    /// and was not counted yet).
    @discardableResult
    public mutating func subresourceFailed(_ url: String) -> Bool {
        let key = Self.key(url)
        guard !key.isEmpty, !started.contains(key), !blocked.contains(key) else { return false }
        blocked.append(key)
        remember()
        return true
    }

    private mutating func remember() {
        if remembered.updateValue(blocked, forKey: page) == nil {
            rememberedOrder.append(page)
            if rememberedOrder.count > Self.rememberedPages {
                remembered.removeValue(forKey: rememberedOrder.removeFirst())
            }
        }
    }

    /// The address without its fragment, which is never sent (and differs between reports).
    static func key(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }
}
