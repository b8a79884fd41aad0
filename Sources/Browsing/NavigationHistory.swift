import Foundation

/// One page in the back/forward history.
public struct HistoryEntry: Codable, Hashable, Sendable {
    /// The page's address, as the engine committed it.
    public var url: String
    /// The page's title; empty until the page names itself.
    public var title: String

    /// An entry with the given fields.
    public init(url: String, title: String = "") {
        self.url = url
        self.title = title
    }
}

/// What the shell must ask the engine to do for a back or forward step.
public enum NavigationCommand: Hashable, Sendable {
    /// Step back in the engine's own list (it holds the entry, with its page cache and scroll position).
    case engineBack
    /// Step forward in the engine's own list.
    case engineForward
    /// Load the stored entry's address: the engine's list does not hold it (after a relaunch,
    /// or beyond the part of the engine's list that still mirrors this history).
    case load(String)
}

/// The back/forward history that survives relaunch.
///
/// A web engine keeps its own back/forward list, but that list is empty when the app starts
/// again (WKWebView's is, and so is WebKitGTK's). This history is the authority: it is saved
/// in Pepper's state and restored at launch, and every back or forward step is decided here.
/// When the engine's list holds the neighbouring entry — because it was visited in this run —
/// the step goes through the engine (``NavigationCommand/engineBack``), which keeps its page
/// cache; otherwise the stored address is loaded (``NavigationCommand/load(_:)``) and the
/// history moves its position when the engine commits it. The shell reports what the engine
/// did: ``engineAddedItem(url:originalURL:)`` when its list gained an item,
/// ``engineMoved(by:url:)`` when it moved within its list.
///
/// To know when the engine's list can be used, the history counts how many entries right
/// behind (``engineBackCount``) and ahead (``engineForwardCount``) of the current one the
/// engine's list holds in the same order. Loading a stored entry makes the engine push a new
/// item, after which the items behind it no longer match this history: both counts drop to 0
/// and further steps load stored entries until new pages are visited.
public struct NavigationHistory: Hashable, Sendable {
    /// A stored entry the engine was asked to load, not yet committed.
    public struct PendingLoad: Hashable, Sendable {
        /// The entry's index.
        public var index: Int
        /// The address requested.
        public var url: String
    }

    /// The most entries kept; the oldest are dropped beyond it.
    public static let defaultCapacity = 200

    /// The entries, oldest first.
    public private(set) var entries: [HistoryEntry]
    /// The index of the current entry; `nil` when the history is empty (the start page).
    public private(set) var currentIndex: Int?
    /// How many entries right behind the current one the engine's list holds, in order.
    public private(set) var engineBackCount = 0
    /// How many entries right ahead of the current one the engine's list holds, in order.
    public private(set) var engineForwardCount = 0
    /// Whether the engine's current item shows the current entry (false until it loaded one).
    public private(set) var engineShowsCurrent = false
    /// A stored entry the engine was asked to load.
    public private(set) var pending: PendingLoad?
    /// The most entries kept.
    public let capacity: Int

    /// An empty history.
    public init(capacity: Int = NavigationHistory.defaultCapacity) {
        self.init(entries: [], currentIndex: nil, capacity: capacity)
    }

    /// A history restored from storage; the engine's list is taken to be empty.
    ///
    /// An out-of-range `currentIndex` is clamped; entries beyond `capacity` are dropped, oldest first.
    public init(entries: [HistoryEntry], currentIndex: Int?, capacity: Int = NavigationHistory.defaultCapacity) {
        self.capacity = max(capacity, 1)
        var entries = entries
        var index = entries.isEmpty ? nil : min(max(currentIndex ?? entries.count - 1, 0), entries.count - 1)
        if entries.count > self.capacity, let current = index {
            let overflow = entries.count - self.capacity
            let drop = min(overflow, current)
            entries.removeFirst(drop)
            index = current - drop
            if entries.count > self.capacity { entries.removeLast(entries.count - self.capacity) }
        }
        self.entries = entries
        self.currentIndex = index
    }

    /// The current entry; `nil` on the start page.
    public var current: HistoryEntry? { currentIndex.map { entries[$0] } }

    /// Whether there is an entry behind the current one (the Back button's state).
    public var canGoBack: Bool { (currentIndex ?? 0) > 0 }

    /// Whether there is an entry ahead of the current one (the Forward button's state).
    public var canGoForward: Bool { currentIndex.map { $0 < entries.count - 1 } ?? false }

    /// What to load when the window opens: the current entry, which the (empty) engine must load.
    public mutating func launchCommand() -> NavigationCommand? {
        guard let index = currentIndex, !engineShowsCurrent else { return nil }
        pending = PendingLoad(index: index, url: entries[index].url)
        return .load(entries[index].url)
    }

    /// Decides how to step back, or returns `nil` when there is nothing behind.
    public mutating func goBack() -> NavigationCommand? { step(-1) }

    /// Decides how to step forward, or returns `nil` when there is nothing ahead.
    public mutating func goForward() -> NavigationCommand? { step(1) }

    private mutating func step(_ delta: Int) -> NavigationCommand? {
        // A second step while a stored entry is still loading goes on from that entry.
        guard let index = pending?.index ?? currentIndex, entries.indices.contains(index + delta) else { return nil }
        if engineShowsCurrent && pending == nil {
            if delta < 0 && engineBackCount > 0 { return .engineBack }
            if delta > 0 && engineForwardCount > 0 { return .engineForward }
        }
        let target = entries[index + delta]
        pending = PendingLoad(index: index + delta, url: target.url)
        return .load(target.url)
    }

    /// The shell replaced the engine's view with a new one whose list is empty (first-party
    /// isolation moves to another site's web view: ``SitePartition``). A pending stored entry
    /// stays pending (the new view loads it); steps load stored entries until the new view has
    /// its own list.
    public mutating func engineReplaced() {
        engineBackCount = 0
        engineForwardCount = 0
        engineShowsCurrent = false
    }

    /// Forgets a pending stored-entry load: the person navigated somewhere else meanwhile.
    public mutating func cancelPending() {
        pending = nil
    }

    /// The engine's list gained an item and made it current: a new page (a link, a typed
    /// address, a same-document navigation), or a pending stored entry the engine loaded.
    ///
    /// - Parameters:
    ///   - url: The item's address (after redirects).
    ///   - originalURL: The address that was requested, when it differs (a redirect).
    public mutating func engineAddedItem(url: String, originalURL: String? = nil) {
        if let load = pending, load.url == url || load.url == originalURL {
            let index = load.index
            // The stored entry is now the engine's current item; what lies behind it in the
            // engine's list does not mirror this history any more.
            pending = nil
            currentIndex = index
            if entries[index].url != url { entries[index] = HistoryEntry(url: url) }
            engineBackCount = 0
            engineForwardCount = 0
            engineShowsCurrent = true
            return
        }
        pending = nil
        push(url, engineBehind: engineShowsCurrent ? engineBackCount + 1 : 0)
    }

    /// The engine moved within its own list by `delta` items (negative: back) and now shows `url`.
    ///
    /// A move within the mirrored part (our own ``NavigationCommand/engineBack`` or
    /// ``NavigationCommand/engineForward``, or the page's `history.back()`) moves the history
    /// with it. A move onto an item that does not mirror this history (possible only when the
    /// page itself navigates its history after a stored entry was loaded) is taken as a new page.
    public mutating func engineMoved(by delta: Int, url: String) {
        guard delta != 0 else { return }
        pending = nil
        if let index = currentIndex, engineShowsCurrent, -engineBackCount <= delta, delta <= engineForwardCount {
            currentIndex = index + delta
            engineBackCount += delta
            engineForwardCount -= delta
            if entries[index + delta].url != url { entries[index + delta] = HistoryEntry(url: url) }
            return
        }
        push(url, engineBehind: 0)
    }

    /// The current page named itself.
    public mutating func setTitle(_ title: String) {
        guard let index = currentIndex else { return }
        entries[index].title = title
    }

    /// The current page's address changed without a new history item (a redirect seen late).
    public mutating func setCurrentURL(_ url: String) {
        guard let index = currentIndex, entries[index].url != url else { return }
        entries[index] = HistoryEntry(url: url, title: entries[index].title)
    }

    private mutating func push(_ url: String, engineBehind: Int) {
        let next = (currentIndex ?? -1) + 1
        entries.removeSubrange(next...)
        entries.append(HistoryEntry(url: url))
        currentIndex = next
        engineBackCount = engineBehind
        engineForwardCount = 0
        engineShowsCurrent = true
        if entries.count > capacity {
            let overflow = entries.count - capacity
            entries.removeFirst(overflow)
            currentIndex = next - overflow
            engineBackCount = min(engineBackCount, currentIndex ?? 0)
        }
    }
}
