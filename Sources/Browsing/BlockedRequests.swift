import Foundation

/// Counts the requests the content blocker stopped on the current page.
///
/// WebKitGTK reports no event for a request its content blocker stops: the request never
/// becomes a resource load. What it does report is every load that starts
/// (``resourceStarted(_:)``), and the page itself sees its failed subresources (an `error`
/// event on the element, a rejected `fetch`). So the shell reports both, and a subresource
/// that failed in the page without ever starting to load was blocked
/// (``subresourceFailed(_:)``). Counts are of distinct addresses per page and start again
/// when a new page commits (``pageCommitted()``).
public struct BlockedRequests: Hashable, Sendable {
    private var started: Set<String> = []
    /// The blocked addresses of the current page, in the order they were seen.
    public private(set) var blocked: [String] = []

    /// No page yet.
    public init() {}

    /// How many distinct requests were blocked on the current page.
    public var count: Int { blocked.count }

    /// A new page committed: counting starts again.
    public mutating func pageCommitted() {
        started.removeAll()
        blocked.removeAll()
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
        return true
    }

    /// The address without its fragment, which is never sent (and differs between reports).
    static func key(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }
}
