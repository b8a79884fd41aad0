import AppSupport
import Browsing
import Foundation
import ListSync
import PepperActions
import Picket
import WebKit

/// The web view and the `BrowserSession` it renders: history that survives relaunch, the
/// page zoom of this device, the shield, struck employers' notices. WebKit's events are passed
/// to the session; the session's commands are passed to WebKit.
@MainActor
final class BrowserController: NSObject, ObservableObject, WKNavigationDelegate, WKScriptMessageHandler {
    let webView: WKWebView
    let session: BrowserSession
    private let state: PepperState
    private var engineBackLength = 0
    private var lastNavigation: WKNavigationType?
    private var rulesBlocking: Bool?
    /// The struck employer's address whose notice is loading in its place. WebKit asks about that
    /// load too (`loadHTMLString` with the address as base URL): it must be let through, or each
    /// notice would cancel itself and load the next, forever (the GTK browser keeps the same guard).
    private var noticeLoading: String?
    @Published private(set) var canGoBack = false
    @Published private(set) var canGoForward = false
    @Published private(set) var address = ""
    @Published private(set) var blocking = true
    /// Why the last action failed, for the view to show.
    @Published var problem: String?

    /// Opens the browser: the session's history and settings and the struck employers' list
    /// are read away from the main actor; the web view is made on it.
    static func open(state: PepperState) async throws -> BrowserController {
        let session = try await readSession(state)
        let index = await Task.detached(priority: .userInitiated) {
            try? PicketBlocklistIndex.load(home: state.home, database: state.database)
        }.value
        return BrowserController(state: state, session: session, picketIndex: index)
    }

    /// Reads the session off the main actor and hands it over (it is not Sendable, so it is sent).
    private nonisolated static func readSession(_ state: PepperState) async throws -> sending BrowserSession {
        try BrowserSession(state: state)
    }

    private init(state: PepperState, session: BrowserSession, picketIndex: PicketBlocklistIndex?) {
        self.state = state
        self.session = session
        let configuration = WKWebViewConfiguration()
        configuration.websiteDataStore = .nonPersistent()
        webView = WKWebView(frame: .zero, configuration: configuration)
        super.init()
        webView.configuration.userContentController.add(self, name: Self.messageHandler)
        webView.allowsBackForwardNavigationGestures = true
        webView.navigationDelegate = self
        if let picketIndex { session.picketLookup = { @Sendable address in picketIndex.notice(for: address) } }
    }

    static let messageHandler = "pepper"

    /// Reopens the page of the last launch (or the start page), with the rules in force.
    func launch() async {
        await installRules()
        perform(session.launch())
        refresh()
    }

    func goBack() { perform(session.goBack()) }
    func goForward() { perform(session.goForward()) }
    func open(_ text: String) { perform(session.open(text).map(NavigationCommand.load)) }

    func zoomIn() {
        _ = try? session.zoomIn()
        webView.pageZoom = CGFloat(session.zoom.factor)
    }

    func zoomOut() {
        _ = try? session.zoomOut()
        webView.pageZoom = CGFloat(session.zoom.factor)
    }

    /// The shield: blocking off (the site joins the allowlist) or on again; the web view gets
    /// its rule lists — none at once for an allowlisted site — and reloads.
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
        await installRules()
        webView.reload()
        refresh()
    }

    /// Puts the rule lists for a page in place: none for an allowlisted site (at once, without
    /// waiting for the recompiled output), else the compiled lists.
    private func installRules(forPage address: String? = nil) async {
        var blocking = (try? session.isBlockingCurrentSite()) ?? true
        if let address { blocking = (try? session.siteBlocking.isBlocking(on: address)) ?? true }
        let plan = (try? WebViewRuleLists.plan(blocking: blocking, outputURL: state.home.outputURL)) ?? .none
        try? await RuleListInstaller.install(plan, in: webView.configuration.userContentController)
        rulesBlocking = blocking
    }

    private func perform(_ command: NavigationCommand?) {
        switch command {
        case .engineBack: webView.goBack()
        case .engineForward: webView.goForward()
        case .load(let address):
            if let url = URL(string: address) { webView.load(URLRequest(url: url)) }
        case nil: break
        }
    }

    private func refresh() {
        canGoBack = session.canGoBack
        canGoForward = session.canGoForward
        address = session.currentURL ?? ""
        blocking = (try? session.isBlockingCurrentSite()) ?? true
    }

    // MARK: WebKit's events, passed to the session

    func webView(_ webView: WKWebView, decidePolicyFor action: WKNavigationAction) async -> WKNavigationActionPolicy {
        let address = action.request.url?.absoluteString ?? ""
        let mainFrame = action.targetFrame?.isMainFrame ?? true
        if mainFrame {
            // The next main-frame decision after a notice was started is the notice's own load.
            let notice = noticeLoading
            noticeLoading = nil
            if notice == address {
                lastNavigation = action.navigationType
                return .allow
            }
        }
        if mainFrame, let notice = session.picketNotice(for: address) {
            let page = PicketNoticePage.html(for: notice, controls: .scriptMessages(handler: Self.messageHandler))
            noticeLoading = address
            webView.loadHTMLString(page, baseURL: action.request.url)
            return .cancel
        }
        lastNavigation = action.navigationType
        if mainFrame, ((try? session.siteBlocking.isBlocking(on: address)) ?? true) != rulesBlocking {
            await installRules(forPage: address)
        }
        return .allow
    }

    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        noticeLoading = nil
        guard let url = webView.url?.absoluteString else { return }
        let back = webView.backForwardList.backList.count
        switch lastNavigation {
        case .backForward: try? session.engineMoved(by: back - engineBackLength, url: url)
        case .reload: break
        default: try? session.engineAddedItem(url: url, originalURL: webView.backForwardList.currentItem?.initialURL.absoluteString)
        }
        engineBackLength = back
        session.pageCommitted(url: url)
        webView.pageZoom = CGFloat(session.zoom.factor)
        refresh()
    }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        if let title = webView.title, !title.isEmpty { try? session.titleChanged(title) }
    }

    /// "Proceed anyway" and "Go back" on a struck employer's notice. Proceeding goes where every
    /// face's does (`SiteBlocking.proceed(past:)`: only when the policy offers it, 24 hours
    /// through the allowlist).
    func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
        guard let body = message.body as? String else { return }
        if body == PicketNoticePage.backMessage { goBack() }
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
            await installRules()
            open(url)
        }
    }
}
