import FilterEngine
import FilterLists
import Foundation
import PepperActions
import Picket
import Storage

/// The browser's model: everything the window shows and remembers, without any toolkit.
///
/// The shell (`BrowserGTK` on Linux; a SwiftUI view on Apple platforms) forwards what the
/// person does (``goBack()``, ``zoomIn()``, ``toggleBlocking()``, ``open(_:)``) and what the
/// engine reports (``engineAddedItem(url:originalURL:)``, ``engineMoved(by:url:)``,
/// ``pageCommitted(url:)``, ``titleChanged(_:)``, ``resourceStarted(_:)``, ``subresourceFailed(_:)``),
/// and renders the state (``canGoBack``, ``zoom``, ``blockedCount``, ``isShowingStartPage``, ...).
/// Every change worth keeping — the history and its position, the zoom, the search engine and
/// whether its suggestion was answered — is written to Pepper's state at once, so a crash or a
/// relaunch loses nothing.
///
/// One instance belongs to one window and is used from that window's thread only.
public final class BrowserSession {
    /// Keys of ``BrowserStateStore`` settings (the onboarding sets the search engine too).
    public enum SettingKey {
        /// The page zoom of this device.
        public static let zoom = "zoom"
        /// The search engine's raw value (``SearchEngine``).
        public static let searchEngine = "searchEngine"
        /// Set once the search-engine suggestion was answered.
        public static let searchSuggestionAnswered = BrowserStateStore.searchSuggestionAnsweredKey
    }

    private let store: BrowserStateStore
    private let decisions: DecisionStore
    /// The per-site blocking toggle; a `Sendable` value, so a shell can run the toggle (which
    /// rebuilds the content blocker) off its main thread.
    public let siteBlocking: SiteBlocking
    private var saved: BrowserStateStore.History

    /// The back/forward history.
    public private(set) var history: NavigationHistory
    /// The page zoom of this device.
    public private(set) var zoom: PageZoom
    /// Where searches typed in the address bar go.
    public private(set) var searchEngine: SearchEngine
    /// Whether the one-time suggestion to keep DuckDuckGo is still to be shown.
    public private(set) var shouldSuggestSearchEngine: Bool
    /// The requests blocked on the current page.
    public private(set) var blocked = BlockedRequests()
    /// Blocked requests not yet written to the state (see ``recordBlockedRequests(waiting:)``).
    private var unrecorded: [DecisionStore.Decision] = []
    /// Writes blocked requests off the window's thread, one batch after another, in order. A
    /// dispatch queue, not a task: waiting for it (``recordBlockedRequests(waiting:)``) then
    /// never holds a thread of Swift's cooperative pool while that pool's work is awaited.
    private let recorder = DispatchQueue(label: "pepper.browser.blocked-requests", qos: .utility)

    /// How many blocked requests are gathered before they are written without waiting for the
    /// page to change.
    public static let blockedRequestsPerWrite = 200

    /// Opens the session stored in `state`.
    ///
    /// - Parameters:
    ///   - state: Pepper's state: the browser's history and settings, and the allowlist the
    ///     shield changes (each change rebuilds `$PEPPER_HOME/out`).
    ///   - historyCapacity: The most history entries kept.
    public init(state: PepperState, historyCapacity: Int = NavigationHistory.defaultCapacity) throws(BrowsingError) {
        store = BrowserStateStore(database: state.database)
        decisions = DecisionStore(database: state.database)
        siteBlocking = SiteBlocking(state: state)
        do {
            saved = try store.history()
            zoom = try store.setting(SettingKey.zoom).flatMap(PageZoom.init(stored:)) ?? .actualSize
            searchEngine = try store.setting(SettingKey.searchEngine).flatMap(SearchEngine.init(rawValue:)) ?? .duckDuckGo
            shouldSuggestSearchEngine = try store.setting(SettingKey.searchSuggestionAnswered) == nil
        } catch {
            throw .storage("cannot read the browser's state: \(error)")
        }
        history = NavigationHistory(
            entries: saved.entries.map { HistoryEntry(url: $0.url, title: $0.title) }, currentIndex: saved.currentIndex,
            capacity: historyCapacity)
    }

    // MARK: State for the window

    /// Whether the start page shows (no page yet).
    public var isShowingStartPage: Bool { history.current == nil }
    /// The current page's address; `nil` on the start page.
    public var currentURL: String? { history.current?.url }
    /// The current page's title (empty until known); `nil` on the start page.
    public var currentTitle: String? { history.current?.title }
    /// The Back button's state.
    public var canGoBack: Bool { history.canGoBack }
    /// The Forward button's state.
    public var canGoForward: Bool { history.canGoForward }
    /// The number the shield shows.
    public var blockedCount: Int { blocked.count }

    /// Whether the content blocker applies on the current page (the shield's state). The start
    /// page and pages without a site count as protected.
    public func isBlockingCurrentSite() throws(BrowsingError) -> Bool {
        guard let url = currentURL else { return true }
        return try siteBlocking.isBlocking(on: url)
    }

    /// Whether the shield can toggle blocking on the current page (it has a site).
    public var canToggleBlocking: Bool { currentURL.flatMap(SiteBlocking.site(of:)) != nil }

    // MARK: What the person does

    /// What to load when the window opens: `url` when one was given (opened as a new page after
    /// the restored current one), else the restored current page; `nil` for the start page.
    public func launch(opening url: String? = nil) -> NavigationCommand? {
        if let url {
            history.cancelPending()
            return .load(url)
        }
        return history.launchCommand()
    }

    /// The Back button, Alt+←, or a swipe to the right.
    public func goBack() -> NavigationCommand? { history.goBack() }

    /// The Forward button, Alt+→, or a swipe to the left.
    public func goForward() -> NavigationCommand? { history.goForward() }

    /// The address bar: the address to load for typed text (an address, or a search with the
    /// chosen engine); `nil` for blank text.
    public func open(_ text: String) -> String? {
        guard let input = AddressInput(text) else { return nil }
        history.cancelPending()
        return input.url(searchingWith: searchEngine)
    }

    /// Ctrl + (and Ctrl =): the next larger zoom step. Returns the new level.
    @discardableResult
    public func zoomIn() throws(BrowsingError) -> PageZoom { try setZoom(zoom.zoomedIn) }

    /// Ctrl −: the next smaller zoom step. Returns the new level.
    @discardableResult
    public func zoomOut() throws(BrowsingError) -> PageZoom { try setZoom(zoom.zoomedOut) }

    /// Ctrl 0: back to 100 %. Returns the new level.
    @discardableResult
    public func resetZoom() throws(BrowsingError) -> PageZoom { try setZoom(.actualSize) }

    private func setZoom(_ level: PageZoom) throws(BrowsingError) -> PageZoom {
        guard level != zoom else { return zoom }
        try write("zoom") { try store.setSetting(SettingKey.zoom, level.stored) }
        zoom = level
        return zoom
    }

    /// The answer to the one-time search suggestion: keep DuckDuckGo, or use `engine`. Either
    /// way the suggestion is not shown again.
    public func answerSearchSuggestion(using engine: SearchEngine = .duckDuckGo) throws(BrowsingError) {
        try write("search engine") {
            try store.setSetting(SettingKey.searchEngine, engine.rawValue)
            try store.setSetting(SettingKey.searchSuggestionAnswered, "1")
        }
        searchEngine = engine
        shouldSuggestSearchEngine = false
    }

    /// The shield button: turns blocking off or on for the current page's site, rebuilding the
    /// content blocker. The shell then loads the new rules and reloads the page.
    ///
    /// - Returns: Whether blocking is now on for the site.
    @discardableResult
    public func toggleBlocking() async throws(BrowsingError) -> Bool {
        guard let url = currentURL else { throw .notASite("the start page") }
        return try await siteBlocking.toggle(on: url)
    }

    // MARK: What the engine reports

    /// The engine's back/forward list gained an item and made it current.
    public func engineAddedItem(url: String, originalURL: String? = nil) throws(BrowsingError) {
        history.engineAddedItem(url: url, originalURL: originalURL)
        try saveHistory()
    }

    /// The engine moved within its back/forward list by `delta` items and now shows `url`.
    public func engineMoved(by delta: Int, url: String) throws(BrowsingError) {
        history.engineMoved(by: delta, url: url)
        try saveHistory()
    }

    /// The current page's title changed.
    public func titleChanged(_ title: String) throws(BrowsingError) {
        history.setTitle(title)
        try saveHistory()
    }

    /// A page committed at `url` (a document started showing): the blocked count starts again,
    /// and the last page's blocked requests are written to the state.
    public func pageCommitted(url: String) {
        blocked.pageCommitted(url: url)
        recordBlockedRequests()
    }

    /// The page came back from the engine's back/forward cache: its blocked count applies again.
    public func pageRestoredFromCache() {
        blocked.pageRestoredFromCache()
    }

    /// The engine started loading a resource of the current page.
    public func resourceStarted(_ url: String) {
        blocked.resourceStarted(url)
    }

    /// Finds the struck employer behind an address (the Picket blocklist), if any; `nil` when
    /// no Picket source is enabled or the policy only logs.
    public var picketLookup: (@Sendable (String) -> PicketNotice?)?

    /// The notice to show instead of loading `url`: its site belongs to a struck employer and is
    /// not allowlisted (the allowlist includes the 24-hour "Proceed anyway" entries).
    public func picketNotice(for url: String) -> PicketNotice? {
        guard let picketLookup, let notice = picketLookup(url) else { return nil }
        // An unreadable allowlist errs on the side of telling.
        return ((try? siteBlocking.isBlocking(on: url)) ?? true) ? notice : nil
    }

    /// The filter engine for the rules in force, which tells which failed requests the
    /// content blocker stopped and by which rule; without it, every failure that never started
    /// loading counts.
    public var requestJudge: FilterEngine?

    /// The page saw a subresource of `type` fail; returns whether it counted as blocked. A
    /// blocked request is also counted in the state (the console's start screen shows it).
    @discardableResult
    public func subresourceFailed(_ url: String, type: ResourceTypes = .other) -> Bool {
        let counted: Bool
        var rule: String?
        if let requestJudge {
            // The page is the top-level one, as WebKit's rules see it.
            guard let verdict = try? requestJudge.match(FilterRequest(url: url, sourceURL: currentURL, type: type)) else { return false }
            counted = blocked.subresourceFailed(url, verdict: verdict)
            rule = verdict.rule?.text
        } else {
            counted = blocked.subresourceFailed(url)
        }
        if counted {
            // Gathered, and written per page in one transaction off this (the window's) thread:
            // a page blocks hundreds of requests, and one SQLite write each would stall it.
            unrecorded.append(
                DecisionStore.Decision(domain: .web, subject: url, action: .block, ruleKind: rule == nil ? "failed" : "rule", rule: rule))
            if unrecorded.count >= Self.blockedRequestsPerWrite { recordBlockedRequests() }
        }
        return counted
    }

    /// Writes the blocked requests gathered so far to the state (the console's counts), in one
    /// transaction on a background thread; with `waiting`, returns once every write is done
    /// (when the window closes, so none is lost). Failing to keep a count never disturbs
    /// browsing.
    public func recordBlockedRequests(waiting: Bool = false) {
        let batch = unrecorded
        unrecorded = []
        if !batch.isEmpty {
            let decisions = self.decisions
            recorder.async { try? decisions.record(batch) }
        }
        if waiting { recorder.sync {} }
    }

    // MARK: Persistence

    private func saveHistory() throws(BrowsingError) {
        let current = BrowserStateStore.History(
            entries: history.entries.map { BrowserStateStore.HistoryRecord(url: $0.url, title: $0.title) },
            currentIndex: history.currentIndex)
        guard current != saved else { return }
        try write("history") { try store.save(current) }
        saved = current
    }

    private func write(_ what: String, _ body: () throws -> Void) throws(BrowsingError) {
        do {
            try body()
        } catch {
            throw .storage("cannot save the browser's \(what): \(error)")
        }
    }
}
