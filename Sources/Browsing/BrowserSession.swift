import FilterEngine
import FilterLists
import Foundation
import PepperActions
import Picket
import Storage

/// The browser's model: everything the window shows and remembers, without any toolkit.
///
/// The shell (`BrowserGTK` on Linux; a SwiftUI view on Apple platforms) forwards what the
/// person does (``step(_:)`` for every back and forward — buttons, keys and swipes alike —,
/// ``swipe(_:on:)``, ``zoomIn()``, ``toggleBlocking()``, ``open(_:)``) and what the
/// engine reports (``engineAddedItem(url:originalURL:)``, ``engineMoved(by:url:)``,
/// ``pageCommitted(url:)``, ``titleChanged(_:)``, ``resourceStarted(_:)``, ``subresourceFailed(_:type:)``),
/// and renders the state (``screen``, ``canStepBack``, ``zoom``, ``blockedCount``, ``siteSummary``, ...).
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
        /// The secret the fingerprinting shield derives each site's seed from (hex; ``FingerprintShield``).
        public static let fingerprintSecret = "fingerprintSecret"
    }

    private let store: BrowserStateStore
    private let decisions: DecisionStore
    private let siteCounts: SiteBlockCountStore
    /// The per-site blocking toggle; a `Sendable` value, so a shell can run the toggle (which
    /// rebuilds the content blocker) off its main thread.
    public let siteBlocking: SiteBlocking
    private var saved: BrowserStateStore.History
    /// The fingerprinting shield, over this browser's secret (made at the first launch).
    public let fingerprintShield: FingerprintShield

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
    /// The same, per site and list.
    private var unrecordedSites: [SiteBlockCountStore.Increment] = []
    /// The page the blocked count is about (the last one committed).
    private var committedURL: String?
    /// The current site's stored count when it was read, and what was counted on it since.
    private var siteTally: (site: String, stored: SiteBlockCountStore.SiteCount, added: [String: Int])?
    /// The starter or the page.
    public private(set) var screen: BrowserScreen
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
        siteCounts = SiteBlockCountStore(database: state.database)
        siteBlocking = SiteBlocking(state: state)
        do {
            saved = try store.history()
            zoom = try store.setting(SettingKey.zoom).flatMap(PageZoom.init(stored:)) ?? .actualSize
            searchEngine = try store.setting(SettingKey.searchEngine).flatMap(SearchEngine.init(rawValue:)) ?? .duckDuckGo
            shouldSuggestSearchEngine = try store.setting(SettingKey.searchSuggestionAnswered) == nil
            if let secret = try store.setting(SettingKey.fingerprintSecret).flatMap(FingerprintShield.secret(stored:)) {
                fingerprintShield = FingerprintShield(secret: secret)
            } else {
                // The first launch (or an unreadable secret): a new one, so each site's noise
                // stays the same from launch to launch.
                let secret = FingerprintShield.makeSecret()
                try store.setSetting(SettingKey.fingerprintSecret, FingerprintShield.stored(secret))
                fingerprintShield = FingerprintShield(secret: secret)
            }
        } catch {
            throw .storage("cannot read the browser's state: \(error)")
        }
        history = NavigationHistory(
            entries: saved.entries.map { HistoryEntry(url: $0.url, title: $0.title) }, currentIndex: saved.currentIndex,
            capacity: historyCapacity)
        // A restored history opens on its current page; an empty one on the starter.
        screen = history.current == nil ? .starter : .page
    }

    // MARK: State for the window

    /// Whether the starter shows (no page yet, or the person went back past the first page).
    public var isShowingStartPage: Bool { screen == .starter }
    /// The current page's address; `nil` on the start page.
    public var currentURL: String? { history.current?.url }
    /// The current page's title (empty until known); `nil` on the start page.
    public var currentTitle: String? { history.current?.title }
    /// Whether the history has a page behind the current one.
    public var canGoBack: Bool { history.canGoBack }
    /// Whether the history has a page ahead of the current one.
    public var canGoForward: Bool { history.canGoForward }
    /// The Back button's state (and whether a back swipe does anything): on a page there is
    /// always somewhere to go — the page behind, or the starter behind the first page.
    public var canStepBack: Bool { screen == .page && history.current != nil }
    /// The Forward button's state: on the starter, the page it covers; on a page, the page ahead.
    public var canStepForward: Bool { screen == .starter ? history.current != nil : history.canGoForward }
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
            screen = .page
            return .load(url)
        }
        let command = history.launchCommand()
        if command != nil { screen = .page }
        return command
    }

    /// One step back or forward, whatever asked for it — the Back and Forward buttons, Alt+←
    /// and Alt+→, the mouse's side buttons, a swipe on the page or on the starter: buttons and
    /// gestures share this one function (the Samaritan design).
    ///
    /// On a page, back goes to the page behind in the history (``goBack()``), or — from the
    /// first page — slides the starter in over it; forward goes to the page ahead. On the
    /// starter, forward slides the page back in (loading it when the engine does not show it)
    /// and back does nothing. `nil` when there is nowhere to go.
    public func step(_ direction: NavigationDirection) -> BrowserStep? {
        switch (screen, direction) {
        case (.page, .back):
            if let command = history.goBack() { return .navigate(command) }
            guard history.current != nil else { return nil }
            screen = .starter
            return .showStarter
        case (.page, .forward):
            return history.goForward().map(BrowserStep.navigate)
        case (.starter, .forward):
            guard history.current != nil else { return nil }
            screen = .page
            return .showPage(history.engineShowsCurrent ? nil : history.launchCommand())
        case (.starter, .back):
            return nil
        }
    }

    /// A swipe recognised on one of the two views — the page's own recognisers or the
    /// starter's: it does what ``step(_:)`` does, when it comes from the view that is showing
    /// (a gesture still ending on a view that slid away does nothing).
    public func swipe(_ direction: NavigationDirection, on view: BrowserScreen) -> BrowserStep? {
        guard view == screen else { return nil }
        return step(direction)
    }

    /// A step back through the history only (``step(_:)`` is what the window's controls call).
    public func goBack() -> NavigationCommand? { history.goBack() }

    /// A step forward through the history only (``step(_:)`` is what the window's controls call).
    public func goForward() -> NavigationCommand? { history.goForward() }

    /// The address bar: the address to load for typed text (an address, or a search with the
    /// chosen engine); `nil` for blank text. The page view shows (it slides in from the starter).
    public func open(_ text: String) -> String? {
        guard let input = AddressInput(text) else { return nil }
        history.cancelPending()
        screen = .page
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
        // The first page ever shows, however it was asked for; later ones keep the view as it is
        // (a page behind the starter may still push items of its own).
        if history.current == nil { screen = .page }
        history.engineAddedItem(url: url, originalURL: originalURL)
        try saveHistory()
    }

    /// The shell moved to a new web view (another site's store), whose back/forward list is empty.
    public func engineReplaced() {
        history.engineReplaced()
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
        committedURL = url
        recordBlockedRequests()
        let site = SiteBlocking.site(of: url)
        if site != siteTally?.site {
            siteTally = site.map { site in
                // The writes of the pages before, which may be of this site, first.
                recorder.sync {}
                let since = DecisionStore.day(of: Date().addingTimeInterval(-Double(SiteBlockSummary.days - 1) * 86_400))
                let stored =
                    (try? siteCounts.counts(for: site, since: since)) ?? SiteBlockCountStore.SiteCount(site: site, total: 0, lists: [])
                return (site, stored, [:])
            }
        }
    }

    /// The current page's site with its blocked requests, on the page and over the last
    /// ``SiteBlockSummary/days`` days, per list; `nil` for pages without a site.
    public var siteSummary: SiteBlockSummary? {
        guard let tally = siteTally else { return nil }
        var lists = Dictionary(uniqueKeysWithValues: tally.stored.lists.map { ($0.list, $0.count) })
        for (list, count) in tally.added { lists[list, default: 0] += count }
        let recent = lists.map { SiteBlockCountStore.ListCount(list: $0.key, count: $0.value) }.sorted {
            ($1.count, $0.list) < ($0.count, $1.list)
        }
        return SiteBlockSummary(
            site: tally.site, page: blocked.byList,
            recent: SiteBlockCountStore.SiteCount(site: tally.site, total: recent.reduce(0) { $0 + $1.count }, lists: recent))
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
    /// content blocker stopped and by which rule of which list. Without it nothing is counted
    /// (``countsProblem`` says why): the count means the same in both browsers only with it.
    public var requestJudge: FilterEngine? {
        didSet { if requestJudge != nil { countsProblem = nil } }
    }

    /// Why blocked requests are not counted: the filter engine could not be loaded.
    public private(set) var countsProblem: String? = "the filter engine is not loaded yet"

    /// Uses the filter engine `load` read (off the window's thread: ``RequestJudge/load(_:)``).
    public func use(_ load: RequestJudge) {
        switch load.engine {
        case .success(let engine): requestJudge = engine
        case .failure(let error):
            requestJudge = nil
            countsProblem = "\(error)"
        }
    }

    /// The page saw a subresource of `type` fail; returns whether it counted as blocked: the
    /// filter engine, built from the same rules as the content blocker, says the request (with
    /// the page as its source, as the content blocker sees it) is blocked, and — where the
    /// engine reports the loads it starts (``resourceStarted(_:)``, `pepper browse`) — it never
    /// started loading. A blocked request is also counted in the state, per day (the console's
    /// start screen) and per site and list (``siteSummary``, the app's Web protection screen).
    @discardableResult
    public func subresourceFailed(_ url: String, type: ResourceTypes = .other) -> Bool {
        guard let requestJudge else { return false }
        let page = committedURL ?? currentURL
        guard let verdict = try? requestJudge.match(FilterRequest(url: url, sourceURL: page, type: type)),
            blocked.subresourceFailed(url, verdict: verdict)
        else { return false }
        // Gathered, and written per page in one transaction off this (the window's) thread:
        // a page blocks hundreds of requests, and one SQLite write each would stall it.
        unrecorded.append(DecisionStore.Decision(domain: .web, subject: url, action: .block, ruleKind: "rule", rule: verdict.rule?.text))
        let list = verdict.rule?.list ?? BlockedRequests.unknownList
        if let site = siteTally?.site {
            unrecordedSites.append(SiteBlockCountStore.Increment(site: site, list: list))
            siteTally?.added[list, default: 0] += 1
        }
        if unrecorded.count >= Self.blockedRequestsPerWrite { recordBlockedRequests() }
        return true
    }

    /// Writes the blocked requests gathered so far to the state (the console's counts), in one
    /// transaction on a background thread; with `waiting`, returns once every write is done
    /// (when the window closes, so none is lost). Failing to keep a count never disturbs
    /// browsing.
    public func recordBlockedRequests(waiting: Bool = false) {
        let batch = unrecorded
        let sites = unrecordedSites
        unrecorded = []
        unrecordedSites = []
        if !batch.isEmpty || !sites.isEmpty {
            let decisions = self.decisions
            let siteCounts = self.siteCounts
            recorder.async {
                try? decisions.record(batch)
                try? siteCounts.record(sites)
            }
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

/// The filter engine of the rules in force, read off the window's thread
/// (``BrowserSession/use(_:)`` hands it to the session).
public struct RequestJudge: Sendable {
    /// The engine, or why it could not be loaded.
    public let engine: Result<FilterEngine, ActionError>

    /// Loads (or rebuilds) the engine saved beside `state`'s output: the same rules as the
    /// content blocker's, so the count judges requests as the blocker does. Reads files and
    /// may compile: call it off the window's thread.
    public static func load(_ state: PepperState) -> RequestJudge {
        do throws(ActionError) {
            return RequestJudge(engine: .success(try state.engine()))
        } catch {
            return RequestJudge(engine: .failure(error))
        }
    }
}
