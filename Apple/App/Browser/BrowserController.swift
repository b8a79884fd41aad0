import AppSupport
import Browsing
import Foundation
import ListSync
import PepperActions
import Picket
import WebKit

/// The web view and the `BrowserSession` it renders: history that survives relaunch, the
/// starter and the page (one back/forward function for the buttons and the swipes of both),
/// the page zoom of this device, the shield with the current site's blocked requests, struck
/// employers' notices, and rule lists that never fail open. WebKit's events are passed to the
/// session; the session's commands are passed to WebKit.
///
/// Private by site: each site's pages are shown in a web view over that site's own persistent
/// website data store (`WKWebsiteDataStore(forIdentifier:)`, the identifier derived from the
/// site by `SitePartition`), with the site's fingerprinting shield (`FingerprintShield`) as a
/// user script in every frame; a main-frame navigation to another site moves to a new web view
/// before any request is made (docs/browser.md, "Private by site").
@MainActor
final class BrowserController: NSObject, ObservableObject, WKNavigationDelegate, WKScriptMessageHandler {
    /// The web view of the current site (replaced when the main frame goes to another site).
    @Published private(set) var webView: WKWebView
    /// The site whose website data store the web view uses.
    private(set) var partition = SitePartition(site: nil)
    /// The sites' stores opened in this run (WebKit keeps each on disk under its identifier).
    private var stores: [SitePartition: WKWebsiteDataStore] = [:]
    let session: BrowserSession
    private let state: PepperState
    private var engineBackLength = 0
    private var lastNavigation: WKNavigationType?
    /// Whether the web view has the rule lists (`true`) or none (an allowlisted site's page).
    private var rulesBlocking: Bool?
    /// The struck employer's address whose notice is loading in its place. WebKit asks about that
    /// load too (`loadHTMLString` with the address as base URL): it must be let through, or each
    /// notice would cancel itself and load the next, forever (the GTK browser keeps the same guard).
    private var noticeLoading: String?
    /// Which rule lists the web view gets, so that no page loads unprotected.
    private(set) var rules: RuleListSelection
    /// The compiled lists of the set in force (put back after an allowlisted site's page).
    private var installedLists: [WKContentRuleList] = []
    /// Whether the rules of the launch were prepared (pages wait for it).
    private var rulesPrepared = false
    /// The preparation under way: each waits for the one before, so two never interleave.
    private var preparing: Task<Void, Never>?
    /// The output whose filter engine judges the blocked requests.
    private var judgedOutput: String?
    @Published private(set) var canGoBack = false
    @Published private(set) var canGoForward = false
    @Published private(set) var address = ""
    @Published private(set) var blocking = true
    /// The starter or the page.
    @Published private(set) var screen = BrowserScreen.starter
    /// The current site's blocked requests (this page, the last days), per list.
    @Published private(set) var siteSummary: SiteBlockSummary?
    /// Why blocked requests are not counted, when they are not.
    @Published private(set) var countsProblem: String?
    /// What went wrong with the rules (a refused compile, the lists kept or pages refused).
    @Published private(set) var rulesNotice: String?
    /// Pages not loaded because no rules could be installed.
    @Published private(set) var refusedLoads = 0
    /// Why the last action failed, for the view to show.
    @Published var problem: String?

    /// Opens the browser: the session's history and settings, the struck employers' list and
    /// the filter engine that judges blocked requests are read away from the main actor; the
    /// web view is made on it.
    static func open(state: PepperState) async throws -> BrowserController {
        let session = try await readSession(state)
        let index = await Task.detached(priority: .userInitiated) {
            try? PicketBlocklistIndex.load(home: state.home, database: state.database)
        }.value
        let lastGood = await Task.detached(priority: .userInitiated) {
            RuleListSelection.load(from: WebViewRuleLists.lastGoodURL(home: state.home.url))
        }.value
        return BrowserController(state: state, session: session, picketIndex: index, lastGood: lastGood)
    }

    /// Reads the session off the main actor and hands it over (it is not Sendable, so it is sent).
    private nonisolated static func readSession(_ state: PepperState) async throws -> sending BrowserSession {
        try BrowserSession(state: state)
    }

    private init(state: PepperState, session: BrowserSession, picketIndex: PicketBlocklistIndex?, lastGood: RuleListSelection.RuleSet?) {
        self.state = state
        self.session = session
        rules = RuleListSelection(saved: lastGood)
        // Pages that are no web site (the starter, `about:`) keep nothing.
        let noSite = SitePartition(site: nil)
        webView = Self.makeWebView(store: .nonPersistent(), shieldScript: session.fingerprintShield.script(for: noSite))
        super.init()
        attach(webView)
        if let picketIndex { session.picketLookup = { @Sendable address in picketIndex.notice(for: address) } }
        screen = session.screen
    }

    static let messageHandler = "pepper"

    /// A web view over `store` with the site's fingerprinting shield and the page script, both
    /// in every frame at document start (the shield before the page's own scripts).
    private static func makeWebView(store: WKWebsiteDataStore, shieldScript: String) -> WKWebView {
        let configuration = WKWebViewConfiguration()
        configuration.websiteDataStore = store
        configuration.userContentController.addUserScript(
            WKUserScript(source: shieldScript, injectionTime: .atDocumentStart, forMainFrameOnly: false))
        // The same page script as `pepper browse`: it reports the page's failed subresources,
        // which the filter engine judges (docs/browser.md, "Blocked counts").
        configuration.userContentController.addUserScript(
            WKUserScript(source: PageScript.source, injectionTime: .atDocumentStart, forMainFrameOnly: false))
        let webView = WKWebView(frame: .zero, configuration: configuration)
        // WebKit's own swipes walk its own list, empty after a relaunch: the view's edge swipes
        // call `step(_:)` instead, as the buttons do.
        webView.allowsBackForwardNavigationGestures = false
        return webView
    }

    /// Makes this controller the web view's delegate and message handler.
    private func attach(_ webView: WKWebView) {
        webView.configuration.userContentController.add(self, name: Self.messageHandler)
        webView.configuration.userContentController.add(self, name: PageScript.handlerName)
        webView.navigationDelegate = self
        webView.pageZoom = CGFloat(session.zoom.factor)
    }

    /// Loads `address` in the main frame, in a web view of its site's store.
    private func load(_ request: URLRequest) {
        let address = request.url?.absoluteString ?? ""
        if partition.crosses(to: address) { moveToSite(of: address) }
        webView.load(request)
    }

    /// Shows `html` as the page at `baseURL` (a page made here, not fetched), in a web view of
    /// that site's store, like any page of the site.
    func loadHTML(_ html: String, baseURL: URL?) {
        let address = baseURL?.absoluteString ?? "about:blank"
        if partition.crosses(to: address) { moveToSite(of: address) }
        webView.loadHTMLString(html, baseURL: baseURL)
    }

    /// Replaces the web view with one over the store of `address`'s site (the same store for
    /// the same site, at every launch); the old view stops and lets go of this controller. The
    /// session learns that the engine's list is empty again (steps load stored entries).
    private func moveToSite(of address: String) {
        let wanted = SitePartition(pageURL: address)
        let store: WKWebsiteDataStore
        if let known = stores[wanted] {
            store = known
        } else {
            store = wanted.site == nil ? .nonPersistent() : WKWebsiteDataStore(forIdentifier: wanted.storeIdentifier)
            stores[wanted] = store
        }
        let old = webView
        old.stopLoading()
        old.navigationDelegate = nil
        old.configuration.userContentController.removeAllScriptMessageHandlers()
        let view = Self.makeWebView(store: store, shieldScript: session.fingerprintShield.script(for: wanted))
        attach(view)
        partition = wanted
        engineBackLength = 0
        rulesBlocking = nil
        session.engineReplaced()
        webView = view
    }

    /// Reopens the page of the last launch (or the starter), once the rules are in place.
    func launch() async {
        await prepareRules()
        perform(session.launch())
        refresh()
    }

    /// One step back or forward, from the buttons or a swipe on either view: the session decides
    /// (the page behind, the starter behind the first page, the page in front of the starter).
    func step(_ direction: NavigationDirection) { perform(session.step(direction)) }

    /// A swipe recognised on `view` (the page's edge swipes or the starter's own).
    func swipe(_ direction: NavigationDirection, on view: BrowserScreen) { perform(session.swipe(direction, on: view)) }

    func open(_ text: String) {
        perform(session.open(text).map(NavigationCommand.load))
        refresh()
    }

    func zoomIn() { changeZoom { try $0.zoomIn() } }
    func zoomOut() { changeZoom { try $0.zoomOut() } }

    private func changeZoom(_ change: (BrowserSession) throws -> PageZoom) {
        do {
            _ = try change(session)
        } catch {
            problem = "\(error)"
        }
        webView.pageZoom = CGFloat(session.zoom.factor)
    }

    /// The shield: blocking off (the site joins the allowlist) or on again; the rebuilt output is
    /// prepared (swapped in only when every list compiles) and the page reloads.
    func toggleBlocking() async {
        // The session stays on the main actor; its Sendable toggle does the work off it.
        guard let url = session.currentURL else { return }
        let siteBlocking = session.siteBlocking
        do {
            try await siteBlocking.toggle(on: url)
        } catch {
            problem = "\(error)"
            return
        }
        await prepareRules()
        webView.reload()
        refresh()
    }

    // MARK: Rules that never fail open

    /// Brings the web view's rules in line with the output on disk (``updateRules()``), after
    /// any preparation already under way.
    private func prepareRules() async {
        let previous = preparing
        let task = Task { @MainActor in
            await previous?.value
            await self.updateRules()
        }
        preparing = task
        await task.value
    }

    /// Makes the current output's lists ready — looked up, or compiled in full — and swaps them in
    /// only then; when the store refuses one, the web view keeps the last good set (loaded from
    /// the store at a launch) and the failure is shown; with no set at all, protected pages are
    /// refused. An output already in force, or already refused, is not tried again. Then the
    /// filter engine of the same output is loaded for the counts.
    private func updateRules() async {
        let outputURL = state.home.outputURL
        let output = await Task.detached(priority: .userInitiated) { WebViewRuleLists.output(outputURL: outputURL) }.value
        switch output {
        case .success(let output) where rules.installed && output.identifier == rules.lastGood?.identifier:
            break
        case .success(let output) where output.identifier == rules.failure?.identifier:
            break
        case .success(let output):
            switch await RuleListInstaller.prepare(output) {
            case .success(let lists):
                installedLists = lists
                let set = rules.compiled(output.ruleSet)
                rulesBlocking = nil
                let home = state.home.url
                do {
                    try await Task.detached { try RuleListSelection.save(set, to: WebViewRuleLists.lastGoodURL(home: home)) }.value
                } catch {
                    problem = "The rules in force could not be recorded for the next launch: \(error)."
                }
                let stuck = await RuleListInstaller.removeObsolete(keeping: set)
                if !stuck.isEmpty { problem = "Old rule lists could not be removed: \(stuck.joined(separator: ", "))." }
            case .failure(let failure):
                await fallBack(after: failure)
            }
        case .failure(let failure) where failure == rules.failure:
            break
        case .failure(let failure):
            await fallBack(after: failure)
        }
        rulesNotice = rules.notice
        let identifier = try? output.get().identifier
        if identifier != judgedOutput || !rulesPrepared {
            judgedOutput = identifier
            let judge = await Task.detached(priority: .userInitiated) { [state] in RequestJudge.load(state) }.value
            session.use(judge)
        }
        rulesPrepared = true
        refresh()
    }

    private func fallBack(after failure: RuleListFailure) async {
        switch rules.compileFailed(failure) {
        case .keep:
            break
        case .loadLastGood(let set):
            if let lists = await RuleListInstaller.lookUp(set) {
                installedLists = lists
                rules.fallbackLoaded()
            } else {
                installedLists = []
                rules.fallbackFailed("WebKit's rule-list store no longer has them")
            }
            rulesBlocking = nil
        case .refuse:
            installedLists = []
            rulesBlocking = nil
        }
    }

    /// Puts the rule lists for a page in place: none for an allowlisted site, else the set in force.
    private func applyRules(forPage address: String) {
        let blocking = (try? session.siteBlocking.isBlocking(on: address)) ?? true
        guard blocking != rulesBlocking else { return }
        RuleListInstaller.put(blocking ? installedLists : [], in: webView.configuration.userContentController)
        rulesBlocking = blocking
    }

    /// Waits until the launch's rules are prepared (a page's first load is held until then).
    private func rulesReady() async {
        if !rulesPrepared { await prepareRules() }
    }

    // MARK: Commands to WebKit

    private func perform(_ step: BrowserStep?) {
        guard let step else { return }
        perform(step.command)
        refresh()
    }

    private func perform(_ command: NavigationCommand?) {
        switch command {
        case .engineBack: webView.goBack()
        case .engineForward: webView.goForward()
        case .load(let address):
            if let url = URL(string: address) { load(URLRequest(url: url)) }
        case nil: break
        }
    }

    private func refresh() {
        canGoBack = session.canStepBack
        canGoForward = session.canStepForward
        address = session.currentURL ?? ""
        screen = session.screen
        siteSummary = session.siteSummary
        countsProblem = session.countsProblem
        do {
            blocking = try session.isBlockingCurrentSite()
        } catch {
            // An unreadable allowlist errs on the side of blocking.
            blocking = true
            problem = "\(error)"
        }
    }

    // MARK: WebKit's events, passed to the session

    func webView(_ webView: WKWebView, decidePolicyFor action: WKNavigationAction) async -> WKNavigationActionPolicy {
        let address = action.request.url?.absoluteString ?? ""
        let mainFrame = action.targetFrame?.isMainFrame ?? true
        // Never a page before its rules: the first load waits for the launch's lists, and each
        // page for a new output on disk (a background update, another face's change).
        if mainFrame { await prepareRules() } else { await rulesReady() }
        if mainFrame {
            // The next main-frame decision after a notice was started is the notice's own load.
            let notice = noticeLoading
            noticeLoading = nil
            if notice == address {
                lastNavigation = action.navigationType
                return .allow
            }
        }
        if mainFrame, partition.crosses(to: address) {
            // A link, a form, a script or a redirect to another site: the page goes to a web view
            // of that site's store, before any request leaves from this one.
            load(action.request)
            return .cancel
        }
        if mainFrame, let notice = session.picketNotice(for: address) {
            let page = PicketNoticePage.html(for: notice, controls: .scriptMessages(handler: Self.messageHandler))
            noticeLoading = address
            webView.loadHTMLString(page, baseURL: action.request.url)
            return .cancel
        }
        let blocking = (try? session.siteBlocking.isBlocking(on: address)) ?? true
        if case .refuse = rules.mayLoad(blocking: blocking) {
            refusedLoads += 1
            rulesNotice = rules.notice
            return .cancel
        }
        if mainFrame {
            lastNavigation = action.navigationType
            applyRules(forPage: address)
        }
        return .allow
    }

    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        noticeLoading = nil
        guard let url = webView.url?.absoluteString else { return }
        let back = webView.backForwardList.backList.count
        do {
            switch lastNavigation {
            case .backForward: try session.engineMoved(by: back - engineBackLength, url: url)
            case .reload: break
            default: try session.engineAddedItem(url: url, originalURL: webView.backForwardList.currentItem?.initialURL.absoluteString)
            }
        } catch {
            problem = "\(error)"
        }
        engineBackLength = back
        session.pageCommitted(url: url)
        webView.pageZoom = CGFloat(session.zoom.factor)
        refresh()
    }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        guard let title = webView.title, !title.isEmpty else { return }
        do {
            try session.titleChanged(title)
        } catch {
            problem = "\(error)"
        }
    }

    /// The page script's reports (failed subresources, a page back from the page cache), and
    /// "Proceed anyway" and "Go back" on a struck employer's notice. Proceeding goes where every
    /// face's does (`SiteBlocking.proceed(past:)`: only when the policy offers it, 24 hours
    /// through the allowlist).
    func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
        guard let body = message.body as? String else { return }
        if message.name == PageScript.handlerName {
            switch PageScript.message(body) {
            case .failed(let url, let type)?:
                if session.subresourceFailed(url, type: type) { siteSummary = session.siteSummary }
            case .restoredFromCache?:
                session.pageRestoredFromCache()
                siteSummary = session.siteSummary
            case nil:
                break
            }
            return
        }
        if body == PicketNoticePage.backMessage { step(.back) }
        guard body == PicketNoticePage.proceedMessage, let url = webView.url?.absoluteString,
            let notice = session.picketNotice(for: url)
        else { return }
        let siteBlocking = session.siteBlocking
        Task {
            do {
                try await siteBlocking.proceed(past: notice)
            } catch {
                problem = "\(error)"
                return
            }
            await prepareRules()
            open(url)
        }
    }
}
