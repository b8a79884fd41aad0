/// What `pepper browse --automation` reports about the window: one `Codable` type shared by the
/// window that encodes it and every driver that decodes it (the tests), so the two cannot drift.
public struct BrowserAutomationState: Codable, Sendable, Hashable {
    /// The web view's address.
    public var url: String?
    /// The page's title.
    public var title: String?
    /// What the address bar shows.
    public var address: String
    /// Whether the starter shows (the session's screen).
    public var startPage: Bool
    /// Whether the history has a page behind.
    public var canGoBack: Bool
    /// Whether the history has a page ahead.
    public var canGoForward: Bool
    /// Whether the Back button is enabled.
    public var backEnabled: Bool
    /// Whether the Forward button is enabled.
    public var forwardEnabled: Bool
    /// WebKit's own back state.
    public var engineCanGoBack: Bool
    /// The model's zoom, in percent.
    public var zoom: Int
    /// WebKit's zoom, in percent.
    public var engineZoom: Int
    /// Requests blocked on the page.
    public var blocked: Int
    /// Their addresses.
    public var blockedURLs: [String]
    /// The rule that blocked each of `blockedURLs` ("" when the engine was not available).
    public var blockedRules: [String]
    /// The struck employer whose Picket notice is shown instead of the page, if any.
    public var picketNotice: String?
    /// Whether that notice offers "Proceed anyway".
    public var picketCanProceed: Bool?
    /// Whether the content blocker applies on the page.
    public var blocking: Bool
    /// The shield's label.
    public var shield: String
    /// Whether anything is loading (rules, page, shield).
    public var loading: Bool
    /// Whether the content blocker is loaded.
    public var filtersReady: Bool
    /// The manifest identifier of the rules applied.
    public var rulesIdentifier: String?
    /// Whether WebKit compiled them at this launch (`false`: loaded from its store).
    public var rulesCompiled: Bool?
    /// Whether the search suggestion shows.
    public var suggestionVisible: Bool
    /// The search engine's raw value.
    public var searchEngine: String
    /// The history's addresses.
    public var historyEntries: [String]
    /// The position in the history.
    public var historyIndex: Int?
    /// Whether WebKit is compiling a changed output in the background (after the shield).
    public var rulesCompilingInBackground: Bool
    /// Whether the lists without the allowlist are ready, so the shield applies at once.
    public var baseRulesReady: Bool
    /// Milliseconds from the last shield click to its page finishing loading.
    public var lastToggleMilliseconds: Int?
    /// What the window shows: `starter` or `page` (``BrowserScreen``).
    public var screen: String
    /// The view the window's stack shows now (`start` or `web`), read from GTK.
    public var visibleView: String
    /// The transition of the last switch between the starter and the page.
    public var lastTransition: String?
    /// How many slide transitions GTK has run so far (counted when one starts running).
    public var transitionsRun: Int
    /// What the blocked-requests bar says (the current site's counts, or why there are none).
    public var countsLine: String
    /// The current site's blocked requests, on the page and over the last days, per list.
    public var siteSummary: SiteBlockSummary?
    /// The rules' notice shown in the window (a failed compile), if any.
    public var rulesNotice: String?
    /// The failed compile, with the file and rule that broke it.
    public var rulesFailure: RuleListFailure?
    /// The manifest identifier of the rules in the web view (the last good set).
    public var rulesInForce: String?
    /// Pages not loaded because no rules could be installed, since the launch.
    public var refusedLoads: Int
    /// The site whose website data store the web view uses (first-party isolation; `(no site)`
    /// for pages that are no web site).
    public var dataStore: String?
    /// How many sites' stores the window has made in this run.
    public var dataStores: Int?
    /// How many web views the window has made (one more at each move to another site's store).
    public var webViewsMade: Int?

    /// A state with every field given.
    public init(
        url: String?, title: String?, address: String, startPage: Bool, canGoBack: Bool, canGoForward: Bool, backEnabled: Bool,
        forwardEnabled: Bool, engineCanGoBack: Bool, zoom: Int, engineZoom: Int, blocked: Int, blockedURLs: [String],
        blockedRules: [String], picketNotice: String?, picketCanProceed: Bool?, blocking: Bool, shield: String, loading: Bool,
        filtersReady: Bool, rulesIdentifier: String?, rulesCompiled: Bool?, suggestionVisible: Bool, searchEngine: String,
        historyEntries: [String], historyIndex: Int?, rulesCompilingInBackground: Bool = false, baseRulesReady: Bool = false,
        lastToggleMilliseconds: Int? = nil, screen: String = BrowserScreen.page.rawValue, visibleView: String = "web",
        lastTransition: String? = nil, transitionsRun: Int = 0, countsLine: String = "", siteSummary: SiteBlockSummary? = nil,
        rulesNotice: String? = nil, rulesFailure: RuleListFailure? = nil, rulesInForce: String? = nil, refusedLoads: Int = 0,
        dataStore: String? = nil, dataStores: Int? = nil, webViewsMade: Int? = nil
    ) {
        self.url = url
        self.title = title
        self.address = address
        self.startPage = startPage
        self.canGoBack = canGoBack
        self.canGoForward = canGoForward
        self.backEnabled = backEnabled
        self.forwardEnabled = forwardEnabled
        self.engineCanGoBack = engineCanGoBack
        self.zoom = zoom
        self.engineZoom = engineZoom
        self.blocked = blocked
        self.blockedURLs = blockedURLs
        self.blockedRules = blockedRules
        self.picketNotice = picketNotice
        self.picketCanProceed = picketCanProceed
        self.blocking = blocking
        self.shield = shield
        self.loading = loading
        self.filtersReady = filtersReady
        self.rulesIdentifier = rulesIdentifier
        self.rulesCompiled = rulesCompiled
        self.suggestionVisible = suggestionVisible
        self.searchEngine = searchEngine
        self.historyEntries = historyEntries
        self.historyIndex = historyIndex
        self.rulesCompilingInBackground = rulesCompilingInBackground
        self.baseRulesReady = baseRulesReady
        self.lastToggleMilliseconds = lastToggleMilliseconds
        self.screen = screen
        self.visibleView = visibleView
        self.lastTransition = lastTransition
        self.transitionsRun = transitionsRun
        self.countsLine = countsLine
        self.siteSummary = siteSummary
        self.rulesNotice = rulesNotice
        self.rulesFailure = rulesFailure
        self.rulesInForce = rulesInForce
        self.refusedLoads = refusedLoads
        self.dataStore = dataStore
        self.dataStores = dataStores
        self.webViewsMade = webViewsMade
    }
}

/// One answer of the automation channel: `{"ok": true, ...}` or `{"ok": false, "error": "..."}`.
public struct BrowserAutomationAnswer: Codable, Sendable, Hashable {
    /// Whether the command worked.
    public var ok: Bool
    /// Why not.
    public var error: String?
    /// The window's state, for `wait` and `state`.
    public var state: BrowserAutomationState?

    /// An answer with the given fields.
    public init(ok: Bool, error: String? = nil, state: BrowserAutomationState? = nil) {
        self.ok = ok
        self.error = error
        self.state = state
    }
}
