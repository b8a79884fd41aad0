#if os(Linux)
import Browsing
import CWebKitGTK
import FilterEngine
import FilterLists
import Foundation
import Picket
import Storage

/// The browser window: a toolbar (Back, Forward, Reload, the address bar, the zoom level, the
/// shield), the rules' notice when a compile failed, the one-time search suggestion, the
/// starter or the web view (a `GtkStack` that slides between them), and the bar with the
/// current site's blocked requests.
///
/// It renders a `BrowserSession` and forwards to it what the person does and what WebKit
/// reports; the decisions (which history entry or view a step leads to, which zoom step, what
/// counts as blocked, whether a page may load without rules) are the session's and
/// `RuleListSelection`'s.
@MainActor
final class BrowserWindow {
    private let configuration: BrowserConfiguration
    private let session: BrowserSession
    private let filters: ContentFilters

    private let window: UnsafeMutablePointer<GtkWidget>
    private let backButton: UnsafeMutablePointer<GtkWidget>
    private let forwardButton: UnsafeMutablePointer<GtkWidget>
    private let reloadButton: UnsafeMutablePointer<GtkWidget>
    private let entry: UnsafeMutablePointer<GtkWidget>
    private let zoomButton: UnsafeMutablePointer<GtkWidget>
    private let shieldButton: UnsafeMutablePointer<GtkWidget>
    private let infoBar: UnsafeMutablePointer<GtkWidget>
    private let rulesBar: UnsafeMutablePointer<GtkWidget>
    private let rulesLabel: UnsafeMutablePointer<GtkWidget>
    private let stack: UnsafeMutablePointer<GtkWidget>
    private let starterView: UnsafeMutablePointer<GtkWidget>
    private let startLabel: UnsafeMutablePointer<GtkWidget>
    private let countsLabel: UnsafeMutablePointer<GtkWidget>
    /// The web view of the current site (replaced when the main frame goes to another site).
    private var webView: UnsafeMutablePointer<WebKitWebView>
    private var contentManager: UnsafeMutablePointer<WebKitUserContentManager>
    private var backForwardList: UnsafeMutablePointer<WebKitBackForwardList>
    /// The site whose website data store the web view uses (first-party isolation).
    private(set) var partition = SitePartition(site: nil)
    /// Each site's web context, over an ephemeral website data manager of its own, kept for the
    /// window's life: a site finds its cookies and storage again within a run, no other site
    /// sees them, and nothing survives a relaunch.
    private var contexts: [SitePartition: UnsafeMutablePointer<WebKitWebContext>] = [:]
    /// The web view's signal handlers, disconnected when the view is replaced.
    private var viewHandlers: [(instance: UnsafeMutableRawPointer, id: gulong)] = []
    /// How many web views were made (one per move to another site's store).
    private(set) var webViewsMade = 0

    /// The page's touchpad swipes.
    private var pageSwipe = SwipeTracker()
    /// The starter's own touchpad swipes.
    private var starterSwipe = SwipeTracker()
    private var engineBackLength = 0
    private var appliedRules: ContentFilters.Outcome?
    /// The view the stack shows (`nil` until the window is shown).
    private var screenShown: BrowserScreen?
    /// The transition of the last switch between the starter and the page.
    private(set) var lastTransition: ScreenTransition?
    /// How many slide transitions GTK has run.
    private(set) var transitionsRun = 0
    /// Pages not loaded because no rules could be installed.
    private(set) var refusedLoads = 0
    /// Why the last shield click failed, shown in its tooltip until the next one works.
    private var shieldProblem: String?
    /// The Picket notice on screen, shown in place of a struck employer's page.
    private(set) var picketNotice: PicketNotice?
    /// The address whose notice was put in its place: loads of it (the notice's own, WebKit's
    /// error page for the stopped load) are not intercepted again until another page commits or
    /// the person asks for it anew.
    private var noticeAddress: String?
    /// Whether the content blocker is loaded (pages wait for it, so none loads unprotected).
    private(set) var filtersReady = false
    /// Whether the shield is changing the allowlist (or, when the page cannot have its new
    /// filters at once, waiting for WebKit to compile them).
    private(set) var togglingBlocking = false
    /// Sites whose blocking changed after the installed filters were compiled, and whether each
    /// is now blocked: until WebKit has compiled the new output, their pages get the lists
    /// without the allowlist (blocked) or no filters (allowed), which is what the new output
    /// does on them, and every other page the installed filters.
    private var changedSites: [String: Bool] = [:]
    /// Whether WebKit is compiling the new output in the background.
    private var compilingChangedOutput = false
    /// Whether the allowlist changed again during that compile (the output is compiled again).
    private var compileAgain = false
    /// Loads waiting for that compile (a page that could not have its new filters at once).
    private var waitingForCompile: [@MainActor () -> Void] = []
    /// When the shield was last clicked, until its page finishes loading.
    private var shieldClicked: ContinuousClock.Instant?
    /// Milliseconds from the last shield click to its page finishing loading.
    private(set) var lastToggleMilliseconds: Int?
    private var closed = false
    private var shownAddress: String?
    /// What the person asked for while the rules were loading, done once they are.
    private var waitingForFilters: [@MainActor () -> Void] = []

    /// Builds the window (not shown until ``start()``).
    init(configuration: BrowserConfiguration) throws(BrowsingError) {
        self.configuration = configuration
        let session = try BrowserSession(state: configuration.state)
        self.session = session
        filters = ContentFilters(
            outputDirectory: configuration.home.outputURL,
            storeDirectory: configuration.home.url.appendingPathComponent("browser/content-filters", isDirectory: true))

        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_window_set_default_size(cast(window), gint(configuration.width), gint(configuration.height))
        gtk_window_set_title(cast(window), "Pepper")

        backButton = Self.button("←", tooltip: "Back (Alt+←, swipe right); from the first page, the start view")
        forwardButton = Self.button("→", tooltip: "Forward (Alt+→, swipe left); from the start view, the page")
        reloadButton = Self.button("⟳", tooltip: "Reload (Ctrl+R)")
        entry = gtk_entry_new()
        gtk_widget_set_hexpand(entry, 1)
        zoomButton = Self.button("100%", tooltip: "Page zoom: Ctrl + and Ctrl − change it, Ctrl 0 or a click resets it")
        shieldButton = Self.button("Shield", tooltip: Self.shieldTooltip)

        let toolbar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4)!
        gtk_container_set_border_width(cast(toolbar), 4)
        for widget in [backButton, forwardButton, reloadButton] { gtk_box_pack_start(cast(toolbar), widget, 0, 0, 0) }
        gtk_box_pack_start(cast(toolbar), entry, 1, 1, 0)
        for widget in [zoomButton, shieldButton] { gtk_box_pack_start(cast(toolbar), widget, 0, 0, 0) }

        infoBar = gtk_info_bar_new()
        let question = gtk_label_new(
            "Pepper searches with DuckDuckGo, which does not track your searches. Keep it, or choose another search engine.")!
        gtk_label_set_line_wrap(cast(question), 1)
        gtk_container_add(cast(gtk_info_bar_get_content_area(cast(infoBar))), question)
        for (index, engine) in SearchEngine.allCases.enumerated() {
            let title = engine == .duckDuckGo ? "Keep DuckDuckGo" : "Use \(engine.displayName)"
            gtk_info_bar_add_button(cast(infoBar), title, gint(index))
        }

        // Shown when a new output did not compile (the last good rules kept) or no rules could
        // be installed at all (pages refused).
        rulesBar = gtk_info_bar_new()
        rulesLabel = gtk_label_new(nil)
        gtk_label_set_line_wrap(cast(rulesLabel), 1)
        gtk_label_set_xalign(cast(rulesLabel), 0)
        gtk_label_set_selectable(cast(rulesLabel), 1)
        gtk_container_add(cast(gtk_info_bar_get_content_area(cast(rulesBar))), rulesLabel)

        startLabel = gtk_label_new(nil)
        gtk_label_set_justify(cast(startLabel), GTK_JUSTIFY_CENTER)
        gtk_label_set_line_wrap(cast(startLabel), 1)
        // The starter is a view of its own, with its own swipes (an event box gets the
        // touchpad's scroll events a label cannot).
        starterView = gtk_event_box_new()
        gtk_widget_add_events(starterView, gint(GDK_SCROLL_MASK.rawValue | GDK_SMOOTH_SCROLL_MASK.rawValue))
        gtk_container_add(cast(starterView), startLabel)

        countsLabel = gtk_label_new(nil)
        gtk_label_set_xalign(cast(countsLabel), 0)
        gtk_label_set_ellipsize(cast(countsLabel), PANGO_ELLIPSIZE_END)
        gtk_widget_set_margin_start(countsLabel, 8)
        gtk_widget_set_margin_end(countsLabel, 8)
        gtk_widget_set_margin_top(countsLabel, 3)
        gtk_widget_set_margin_bottom(countsLabel, 3)

        // The first view is the store of pages that are no web site (the starter, `about:`);
        // the first page of a site moves to a view of that site's store (``load(_:)``).
        let context = Self.makeContext(proxy: configuration.proxy)
        contexts[partition] = context
        webView = Self.makeWebView(context: context, shieldScript: session.fingerprintShield.script(for: partition))
        webViewsMade = 1
        let viewWidget: UnsafeMutablePointer<GtkWidget> = cast(webView)
        contentManager = webkit_web_view_get_user_content_manager(webView)
        backForwardList = webkit_web_view_get_back_forward_list(webView)

        // The starter and the page slide into each other (the Samaritan design's transitions).
        stack = gtk_stack_new()
        gtk_stack_add_named(cast(stack), starterView, "start")
        gtk_stack_add_named(cast(stack), viewWidget, "web")
        gtk_stack_set_transition_duration(cast(stack), Self.transitionMilliseconds)

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_pack_start(cast(column), toolbar, 0, 0, 0)
        gtk_box_pack_start(cast(column), rulesBar, 0, 0, 0)
        gtk_box_pack_start(cast(column), infoBar, 0, 0, 0)
        gtk_box_pack_start(cast(column), stack, 1, 1, 0)
        gtk_box_pack_start(cast(column), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL), 0, 0, 0)
        gtk_box_pack_start(cast(column), countsLabel, 0, 0, 0)
        gtk_container_add(cast(window), column)
        connectSignals()
    }

    /// A web context over an ephemeral website data manager of its own (one per site: cookies,
    /// caches and storage last as long as the window; what survives a relaunch is Pepper's own
    /// state: history, zoom, search engine), with the test proxy when there is one.
    private static func makeContext(proxy: String?) -> UnsafeMutablePointer<WebKitWebContext> {
        let dataManager = webkit_website_data_manager_new_ephemeral()!
        if let proxy {
            let settings = webkit_network_proxy_settings_new(proxy, nil)
            webkit_website_data_manager_set_network_proxy_settings(dataManager, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings)
            webkit_network_proxy_settings_free(settings)
        }
        let context = webkit_web_context_new_with_website_data_manager(dataManager)!
        g_object_unref(raw(dataManager))
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_WEB_BROWSER)
        return context
    }

    /// A web view of `context` with the page script and the site's fingerprinting shield, both
    /// injected in every frame at document start (the shield before the page's own scripts can
    /// keep a reference to what it replaces).
    private static func makeWebView(
        context: UnsafeMutablePointer<WebKitWebContext>, shieldScript: String
    ) -> UnsafeMutablePointer<WebKitWebView> {
        let view: UnsafeMutablePointer<WebKitWebView> = cast(webkit_web_view_new_with_context(context)!)
        // Swipes are recognised here (SwipeTracker), so that they follow the session's history
        // rather than WebKit's list, which is empty after a relaunch.
        webkit_settings_set_enable_back_forward_navigation_gestures(webkit_web_view_get_settings(view), 0)
        let manager = webkit_web_view_get_user_content_manager(view)!
        // The same scripts as the app's browser (Browsing's FingerprintShield and PageScript),
        // so the shield and the count mean the same in both.
        for source in [shieldScript, PageScript.source] {
            let script = webkit_user_script_new(
                source, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
            webkit_user_content_manager_add_script(manager, script)
            webkit_user_script_unref(script)
        }
        webkit_user_content_manager_register_script_message_handler(manager, PageScript.handlerName)
        return view
    }

    private static let shieldTooltip = "Requests blocked on this page; click to turn blocking off or on for this site"
    /// How long a slide between the starter and the page takes.
    static let transitionMilliseconds: guint = 350

    private static func button(_ label: String, tooltip: String) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_with_label(label)!
        gtk_widget_set_tooltip_text(button, tooltip)
        gtk_widget_set_can_focus(button, 0)
        return button
    }

    // MARK: Start-up

    /// Shows the window, loads the content blocker, then the restored (or given) page.
    func start() {
        gtk_widget_show_all(window)
        gtk_widget_set_visible(infoBar, session.shouldSuggestSearchEngine ? 1 : 0)
        gtk_widget_set_visible(rulesBar, 0)
        // The view the session opens on, without a transition.
        gtk_stack_set_visible_child_full(cast(stack), session.screen == .starter ? "start" : "web", GTK_STACK_TRANSITION_TYPE_NONE)
        screenShown = session.screen
        // Typing goes to the address bar on the start page, to the page otherwise.
        gtk_widget_grab_focus(session.isShowingStartPage && configuration.initialURL == nil ? entry : cast(webView))
        refresh()
        applyFilters { [self] in
            let initial = configuration.initialURL.flatMap { session.open($0) }
            perform(session.launch(opening: initial))
            refresh()
        }
    }

    private func applyFilters(then next: @escaping @MainActor () -> Void) {
        filtersReady = false
        filters.prepare { [self] result in
            switch result {
            case .success(let outcome):
                filters.attach(.installed, to: contentManager)
                appliedRules = outcome
                if let failure = outcome.failure { report("the new rules were not installed, the previous ones are kept: \(failure)") }
            case .failure(let failure):
                // Never fail open: without any rules, protected pages do not load (decide-policy).
                appliedRules = nil
                report("no rules could be installed, pages do not load: \(failure)")
            }
            // The engine for the same rules says which failed requests they blocked, and why.
            session.use(RequestJudge.load(configuration.state))
            session.picketLookup = configuration.loadPicketLookup()
            filtersReady = true
            next()
            let waiting = waitingForFilters
            waitingForFilters = []
            waiting.forEach { $0() }
            refresh()
        }
    }

    // MARK: Signals

    private func connectSignals() {
        Signal.connect(raw(window), "destroy") { [self] in
            closed = true
            session.recordBlockedRequests(waiting: true)
            gtk_main_quit()
        }
        Signal.connect(
            raw(window), "key-press-event",
            event: { [self] event in
                guard let event else { return false }
                let key = event.assumingMemoryBound(to: GdkEventKey.self).pointee
                return handleKey(keyval: key.keyval, state: key.state)
            })
        Signal.connect(raw(backButton), "clicked") { [self] in navigate(.back) }
        Signal.connect(raw(forwardButton), "clicked") { [self] in navigate(.forward) }
        Signal.connect(raw(reloadButton), "clicked") { [self] in reload() }
        Signal.connect(raw(zoomButton), "clicked") { [self] in changeZoom { try $0.resetZoom() } }
        Signal.connect(raw(shieldButton), "clicked") { [self] in toggleBlocking() }
        Signal.connect(raw(entry), "activate") { [self] in
            openTyped(borrowString(gtk_entry_get_text(cast(entry))) ?? "")
        }
        Signal.connect(raw(infoBar), "response", integer: { [self] response in answerSuggestion(response) })
        Signal.connect(raw(starterView), "scroll-event", event: { [self] event in handleScroll(event, on: .starter) })
        Signal.connect(raw(stack), "notify::transition-running") { [self] in
            if gtk_stack_get_transition_running(cast(stack)) != 0 { transitionsRun += 1 }
        }
        connectViewSignals()
    }

    /// The web view's signals (again for each new view), remembered to be disconnected when it is replaced.
    private func connectViewSignals() {
        let view = raw(webView)
        func keep(_ instance: UnsafeMutableRawPointer, _ id: gulong) { viewHandlers.append((instance, id)) }
        keep(view, Signal.connect(view, "load-changed", integer: { [self] event in loadChanged(event) }))
        keep(
            view,
            Signal.connect(
                view, "load-failed",
                loadFailed: { [self] uri in
                    // The stopped load of a struck employer's page: the notice is the page, not an error.
                    guard let uri, uri == noticeAddress || session.picketNotice(for: uri) != nil else { return false }
                    return true
                }))
        keep(
            view,
            Signal.connect(view, "notify::title") { [self] in
                if let title = borrowString(webkit_web_view_get_title(webView)) { attempt { try $0.titleChanged(title) } }
                refresh()
            })
        keep(view, Signal.connect(view, "notify::uri") { [self] in refresh() })
        keep(
            view,
            Signal.connect(view, "notify::estimated-load-progress") { [self] in
                let progress = webkit_web_view_is_loading(webView) != 0 ? webkit_web_view_get_estimated_load_progress(webView) : 0
                gtk_entry_set_progress_fraction(cast(entry), progress >= 1 ? 0 : progress)
            })
        keep(
            view,
            Signal.connect(
                view, "resource-load-started",
                twoPointers: { [self] _, request in
                    guard let request,
                        let uri = borrowString(webkit_uri_request_get_uri(request.assumingMemoryBound(to: WebKitURIRequest.self)))
                    else { return }
                    session.resourceStarted(uri)
                }))
        keep(view, Signal.connect(view, "scroll-event", event: { [self] event in handleScroll(event, on: .page) }))
        keep(
            view,
            Signal.connect(
                view, "button-press-event",
                event: { [self] event in
                    // The mouse's back and forward buttons.
                    guard let event else { return false }
                    switch event.assumingMemoryBound(to: GdkEventButton.self).pointee.button {
                    case 8: navigate(.back)
                    case 9: navigate(.forward)
                    default: return false
                    }
                    return true
                }))
        keep(view, Signal.connect(view, "decide-policy", policy: { [self] decision, type in decidePolicy(decision, type: type) }))
        keep(
            raw(contentManager),
            Signal.connect(
                raw(contentManager), "script-message-received::\(PageScript.handlerName)",
                pointer: { [self] result in
                    guard let result, let value = webkit_javascript_result_get_js_value(OpaquePointer(result)),
                        let body = takeString(jsc_value_to_string(value))
                    else { return }
                    switch body {
                    case PicketNoticePage.proceedMessage:
                        proceedPastPicketLine()
                        return
                    case PicketNoticePage.backMessage:
                        // Back, or to the starter from the first page.
                        navigate(.back)
                        return
                    default: break
                    }
                    switch PageScript.message(body) {
                    case .restoredFromCache?:
                        session.pageRestoredFromCache()
                        refresh()
                    case .failed(let url, let type)?:
                        if session.subresourceFailed(url, type: type) { refresh() }
                    case nil:
                        break
                    }
                }))
        keep(
            raw(backForwardList),
            Signal.connect(raw(backForwardList), "changed", twoPointers: { [self] added, _ in backForwardListChanged(added) }))
    }

    /// WebKit asks before each navigation and new window. Links that open a new window
    /// (`target=_blank`, `window.open`) open in this one: the browser has a single window and a
    /// single history. A navigation goes ahead only when `RuleListSelection` lets it: with rules
    /// in the web view, or to a site the person allowlisted (no rules apply there); it waits
    /// while the first rules load, and is refused when no rules can be installed — never a
    /// protected page without its rules.
    private func decidePolicy(_ decision: UnsafeMutableRawPointer?, type: Int) -> Bool {
        guard let decision else { return false }
        let policy = decision.assumingMemoryBound(to: WebKitPolicyDecision.self)
        switch UInt32(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION.rawValue:
            let navigation = webkit_navigation_policy_decision_get_navigation_action(
                decision.assumingMemoryBound(to: WebKitNavigationPolicyDecision.self))
            if let uri = borrowString(webkit_uri_request_get_uri(webkit_navigation_action_get_request(navigation))) {
                // Not from inside the view's own signal: the load may replace the view.
                MainLoop.perform { [self] in load(uri) }
            }
            webkit_policy_decision_ignore(policy)
            return true
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION.rawValue:
            let navigation = webkit_navigation_policy_decision_get_navigation_action(
                decision.assumingMemoryBound(to: WebKitNavigationPolicyDecision.self))
            guard let uri = borrowString(webkit_uri_request_get_uri(webkit_navigation_action_get_request(navigation))) else {
                return false
            }
            let blocking = (try? session.siteBlocking.isBlocking(on: uri)) ?? true
            switch filters.selection.mayLoad(blocking: blocking) {
            case .load:
                return false
            case .wait:
                webkit_policy_decision_ignore(policy)
                waitingForFilters.append { [self] in load(uri) }
                return true
            case .refuse(let failure):
                webkit_policy_decision_ignore(policy)
                refusedLoads += 1
                report("not loading \(uri) without rules: \(failure)")
                refresh()
                return true
            }
        default:
            return false
        }
    }

    // MARK: Engine events

    private func loadChanged(_ event: Int) {
        switch UInt32(event) {
        case WEBKIT_LOAD_STARTED.rawValue, WEBKIT_LOAD_REDIRECTED.rawValue:
            // The main frame is going to another site (a link, a form, a script, a redirect): the
            // page goes to a web view of that site's store instead (first-party isolation). The
            // first request went from this view, whose store holds no cookies of the other site
            // (WebKit keeps no third-party cookies).
            if let uri = borrowString(webkit_web_view_get_uri(webView)), partition.crosses(to: uri) {
                webkit_web_view_stop_loading(webView)
                MainLoop.perform { [self] in load(uri) }
                return
            }
            // Another site while a changed one's filters are in: the installed ones (the page's
            // subresources are requested after this).
            if !changedSites.isEmpty { selectFilters(for: borrowString(webkit_web_view_get_uri(webView))) }
            // A struck employer's page is not loaded: the notice takes its place (and its address,
            // so the history and Back work as for any page).
            guard let uri = borrowString(webkit_web_view_get_uri(webView)), uri != noticeAddress,
                let notice = session.picketNotice(for: uri)
            else { break }
            webkit_web_view_stop_loading(webView)
            picketNotice = notice
            noticeAddress = uri
            webkit_web_view_load_alternate_html(
                webView,
                PicketNoticePage.html(
                    for: notice, controls: .scriptMessages(handler: PageScript.handlerName), policyCommand: "pepper picket policy ask"),
                uri, nil)
        case WEBKIT_LOAD_COMMITTED.rawValue:
            let uri = borrowString(webkit_web_view_get_uri(webView))
            if uri != noticeAddress {
                picketNotice = nil
                noticeAddress = nil
            }
            session.pageCommitted(url: borrowString(webkit_web_view_get_uri(webView)) ?? "")
            // The zoom of this device, applied again to every page.
            webkit_web_view_set_zoom_level(webView, session.zoom.factor)
        case WEBKIT_LOAD_FINISHED.rawValue:
            if let clicked = shieldClicked {
                shieldClicked = nil
                let elapsed = ContinuousClock.now - clicked
                lastToggleMilliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            }
        default:
            break
        }
        refresh()
    }

    private func backForwardListChanged(_ added: UnsafeMutableRawPointer?) {
        let back = backLength()
        defer { engineBackLength = back }
        if let added {
            let item = added.assumingMemoryBound(to: WebKitBackForwardListItem.self)
            guard let uri = borrowString(webkit_back_forward_list_item_get_uri(item)) else { return }
            let original = borrowString(webkit_back_forward_list_item_get_original_uri(item))
            attempt { try $0.engineAddedItem(url: uri, originalURL: original) }
        } else if back != engineBackLength, let current = webkit_back_forward_list_get_current_item(backForwardList),
            let uri = borrowString(webkit_back_forward_list_item_get_uri(current))
        {
            attempt { try $0.engineMoved(by: back - engineBackLength, url: uri) }
        }
        refresh()
    }

    private func backLength() -> Int {
        guard let list = webkit_back_forward_list_get_back_list(backForwardList) else { return 0 }
        defer { g_list_free(list) }
        return Int(g_list_length(list))
    }

    // MARK: What the person does

    /// Back or forward: the buttons, Alt+← and Alt+→, the mouse's side buttons, the page's
    /// swipes and the starter's (`view`, the view the swipe was made on) — one function,
    /// `BrowserSession.step(_:)`. A step between the starter and the page slides (``refresh()``).
    func navigate(_ direction: NavigationDirection, from view: BrowserScreen? = nil) {
        guard filtersReady else { return }
        guard let step = view.map({ session.swipe(direction, on: $0) }) ?? session.step(direction) else { return }
        perform(step.command)
        refresh()
        if session.screen == .starter { gtk_widget_grab_focus(entry) }
    }

    /// Reload the page.
    func reload() {
        guard filtersReady, session.currentURL != nil else { return }
        noticeAddress = nil
        webkit_web_view_reload(webView)
    }

    /// The address bar's Enter: an address, or words for the search engine.
    func openTyped(_ text: String) {
        guard filtersReady else {
            // No page loads before the content blocker is in place.
            waitingForFilters.append { [self] in openTyped(text) }
            return
        }
        guard let url = session.open(text) else { return }
        gtk_entry_set_text(cast(entry), url)
        load(url)
        gtk_widget_grab_focus(cast(webView))
        refresh()
    }

    /// Loads `url` in the main frame, in a web view of its site's store: the current one when
    /// the site is the same, else a new view of that site's context (``SitePartition``).
    private func load(_ url: String) {
        let wanted = SitePartition(pageURL: url)
        if wanted != partition { replaceWebView(with: wanted) }
        webkit_web_view_load_uri(webView, url)
    }

    /// Replaces the web view with one of `wanted`'s context (made at the site's first page of
    /// the run), with the same scripts, filters and zoom; the old view is destroyed. The
    /// session's history learns that the engine's list is empty again (steps then load stored
    /// entries, as after a relaunch).
    private func replaceWebView(with wanted: SitePartition) {
        let context: UnsafeMutablePointer<WebKitWebContext>
        if let known = contexts[wanted] {
            context = known
        } else {
            context = Self.makeContext(proxy: configuration.proxy)
            contexts[wanted] = context
        }
        let old = webView
        for handler in viewHandlers { g_signal_handler_disconnect(handler.instance, handler.id) }
        viewHandlers = []
        webkit_web_view_stop_loading(old)
        let pageShown = borrowString(gtk_stack_get_visible_child_name(cast(stack))) == "web"
        let hadFocus = gtk_widget_has_focus(cast(old)) != 0
        webView = Self.makeWebView(context: context, shieldScript: session.fingerprintShield.script(for: wanted))
        contentManager = webkit_web_view_get_user_content_manager(webView)
        backForwardList = webkit_web_view_get_back_forward_list(webView)
        partition = wanted
        webViewsMade += 1
        engineBackLength = 0
        session.engineReplaced()
        filters.attachAgain(to: contentManager)
        webkit_web_view_set_zoom_level(webView, session.zoom.factor)
        // The stack destroys the view it lets go of; with no transition of its own, the swap is not seen.
        gtk_container_remove(cast(stack), cast(old))
        gtk_stack_add_named(cast(stack), cast(webView), "web")
        gtk_widget_show(cast(webView))
        if pageShown { gtk_stack_set_visible_child_full(cast(stack), "web", GTK_STACK_TRANSITION_TYPE_NONE) }
        if hadFocus { gtk_widget_grab_focus(cast(webView)) }
        connectViewSignals()
    }

    private func perform(_ command: NavigationCommand?) {
        // A new request from the person: a struck employer's page gets its notice again.
        if command != nil { noticeAddress = nil }
        switch command {
        case nil: return
        case .engineBack: webkit_web_view_go_back(webView)
        case .engineForward: webkit_web_view_go_forward(webView)
        case .load(let url): load(url)
        }
    }

    /// Zoom in, out or back to 100 %, for every page of this device.
    func changeZoom(_ change: (BrowserSession) throws -> PageZoom) {
        attempt { try _ = change($0) }
        webkit_web_view_set_zoom_level(webView, session.zoom.factor)
        refresh()
    }

    /// The shield: turn blocking off or on for the current site. The allowlist changes and
    /// `$PEPPER_HOME/out` is rebuilt on a worker thread (tens of milliseconds: the lists' rules
    /// are reused), then the page reloads at once with the filters the new output gives it,
    /// while WebKit compiles the new output in the background (seconds for large lists).
    func toggleBlocking() {
        guard filtersReady, !togglingBlocking, let url = session.currentURL, let site = SiteBlocking.site(of: url),
            session.canToggleBlocking
        else { return }
        togglingBlocking = true
        shieldClicked = .now
        lastToggleMilliseconds = nil
        refresh()
        let siteBlocking = session.siteBlocking
        let state = configuration.state
        Task.detached {
            let result: Result<(Bool, [String]), BrowsingError>
            do {
                // Turning blocking on removes every entry covering the site (a parent domain's too).
                let covering = try siteBlocking.coveringEntries(of: site)
                result = .success((try await siteBlocking.toggle(on: url), covering))
            } catch let error as BrowsingError {
                result = .failure(error)
            } catch {
                result = .failure(.storage("\(error)"))
            }
            // The engine for the new allowlist, so the reloaded page's count is right.
            let judge = try? state.engine()
            MainLoop.perform { [self] in
                switch result {
                case .failure(let error):
                    togglingBlocking = false
                    shieldClicked = nil
                    report("\(error)")
                    // Said where the person looks, not only on stderr.
                    shieldProblem = "Could not change blocking for this site: \(error)"
                    refresh()
                case .success(let (blocking, covering)):
                    shieldProblem = nil
                    let sites = blocking ? Set(covering + [site]) : [site]
                    siteBlockingChanged(sites, blocking: blocking, judge: judge) { [self] in webkit_web_view_reload(webView) }
                }
            }
        }
    }

    /// "Proceed anyway" on a Picket notice: the employer's site is let through for 24 hours (an
    /// expiring allowlist entry, so the content blocker lets it load too), then the page loads.
    func proceedPastPicketLine() {
        guard let notice = picketNotice, notice.canProceed, !togglingBlocking, let site = SiteBlocking.site(of: notice.url) else {
            return
        }
        togglingBlocking = true
        refresh()
        let siteBlocking = session.siteBlocking
        let state = configuration.state
        Task.detached {
            let result: Result<Void, BrowsingError>
            do {
                result = .success(try await siteBlocking.proceed(past: notice))
            } catch let error as BrowsingError {
                result = .failure(error)
            } catch {
                result = .failure(.storage("\(error)"))
            }
            let judge = try? state.engine()
            MainLoop.perform { [self] in
                if case .failure(let error) = result {
                    togglingBlocking = false
                    report("\(error)")
                    shieldProblem = "Could not let this site through: \(error)"
                    refresh()
                    return
                }
                siteBlockingChanged([site], blocking: false, judge: judge) { [self] in
                    picketNotice = nil
                    noticeAddress = nil
                    load(notice.url)
                }
            }
        }
    }

    /// After the allowlist changed for `sites` (the output on disk is already rebuilt): loads
    /// the page with the filters the new output gives it, at once when WebKit has them (none
    /// for an allowed site, the lists without the allowlist for a blocked one), else once the
    /// new output is compiled; meanwhile WebKit compiles it in the background.
    private func siteBlockingChanged(
        _ sites: Set<String>, blocking: Bool, judge: FilterEngine?, then load: @escaping @MainActor () -> Void
    ) {
        for site in sites { changedSites[site] = blocking }
        if let judge { session.requestJudge = judge }
        let finish: @MainActor () -> Void = { [self] in
            togglingBlocking = false
            load()
            refresh()
        }
        // The lists without the allowlist are compiled in the background after each launch's
        // first output; until then a site turned back on waits for the new output.
        if blocking && !filters.hasBase {
            waitingForCompile.append(finish)
        } else {
            selectFilters(for: session.currentURL)
            finish()
        }
        compileChangedOutput()
    }

    /// Compiles the output on disk in WebKit (one compile at a time: a change during it is
    /// compiled next), then gives every page the installed filters again.
    private func compileChangedOutput() {
        guard !compilingChangedOutput else {
            compileAgain = true
            return
        }
        compilingChangedOutput = true
        // The output being compiled has every change made so far.
        let settled = changedSites
        filters.prepare { [self] result in
            compilingChangedOutput = false
            switch result {
            case .success(let outcome) where outcome.failure == nil:
                appliedRules = outcome
                for (site, blocking) in settled where changedSites[site] == blocking { changedSites[site] = nil }
            case .success(let outcome):
                // WebKit refused the new output: the changed sites keep their filters, other
                // pages the installed ones; the rules' bar says why.
                report("the new rules were not installed, the previous ones are kept: \(outcome.failure!)")
            case .failure(let failure):
                report("no rules could be installed: \(failure)")
            }
            if compileAgain {
                compileAgain = false
                compileChangedOutput()
            } else {
                selectFilters(for: borrowString(webkit_web_view_get_uri(webView)))
                let waiting = waitingForCompile
                waitingForCompile = []
                waiting.forEach { $0() }
            }
            refresh()
        }
    }

    /// Puts the filters for the page at `url` into the content manager: those of a changed
    /// site (or a parent domain's) while the new output compiles, the installed ones otherwise.
    private func selectFilters(for url: String?) {
        let site = url.flatMap { SiteBlocking.site(of: $0) }
        let change = site.flatMap { site in
            changedSites.filter { AllowlistSnapshot.domain($0.key, covers: site) }.max { $0.key.count < $1.key.count }
        }
        switch change?.value {
        case true?:
            if !filters.attach(.base, to: contentManager) { filters.attach(.installed, to: contentManager) }
        case false?:
            filters.attach(.none, to: contentManager)
        case nil:
            filters.attach(.installed, to: contentManager)
        }
    }

    private func answerSuggestion(_ response: Int) {
        let engines = SearchEngine.allCases
        let engine = engines.indices.contains(response) ? engines[response] : .duckDuckGo
        attempt { try $0.answerSearchSuggestion(using: engine) }
        gtk_widget_set_visible(infoBar, 0)
        refresh()
    }

    /// Answers the search suggestion as its buttons do (for automation).
    func answerSuggestion(with engine: SearchEngine) {
        answerSuggestion(SearchEngine.allCases.firstIndex(of: engine) ?? 0)
    }

    /// Keyboard shortcuts; returns whether the key was handled.
    func handleKey(keyval: guint, state: guint) -> Bool {
        let control = state & GDK_CONTROL_MASK.rawValue != 0
        let alt = state & GDK_MOD1_MASK.rawValue != 0
        let key = Int32(bitPattern: keyval)
        switch (control, alt, key) {
        case (false, true, GDK_KEY_Left), (false, true, GDK_KEY_KP_Left): navigate(.back)
        case (false, true, GDK_KEY_Right), (false, true, GDK_KEY_KP_Right): navigate(.forward)
        case (true, false, GDK_KEY_plus), (true, false, GDK_KEY_equal), (true, false, GDK_KEY_KP_Add): changeZoom { try $0.zoomIn() }
        case (true, false, GDK_KEY_minus), (true, false, GDK_KEY_KP_Subtract): changeZoom { try $0.zoomOut() }
        case (true, false, GDK_KEY_0), (true, false, GDK_KEY_KP_0): changeZoom { try $0.resetZoom() }
        case (true, false, GDK_KEY_r), (false, false, GDK_KEY_F5): reload()
        case (true, false, GDK_KEY_l), (false, false, GDK_KEY_F6):
            gtk_widget_grab_focus(entry)
            gtk_editable_select_region(OpaquePointer(entry), 0, -1)
        default: return false
        }
        return true
    }

    /// Two-finger touchpad scrolling on `view` (the page or the starter, each with its own
    /// recogniser): a horizontal swipe goes back or forward.
    private func handleScroll(_ event: UnsafeMutableRawPointer?, on view: BrowserScreen) -> Bool {
        guard let event else { return false }
        let gdkEvent = event.assumingMemoryBound(to: GdkEvent.self)
        guard let device = gdk_event_get_source_device(gdkEvent), gdk_device_get_source(device) == GDK_SOURCE_TOUCHPAD else { return false }
        let scroll = event.assumingMemoryBound(to: GdkEventScroll.self).pointee
        guard scroll.direction == GDK_SCROLL_SMOOTH else { return false }
        if gdk_event_is_scroll_stop_event(gdkEvent) != 0 {
            return finishSwipe(on: view)
        }
        return trackSwipe(dx: scroll.delta_x, dy: scroll.delta_y, on: view)
    }

    /// Feeds one touchpad scroll step to `view`'s swipe recogniser; returns whether it is consumed.
    func trackSwipe(dx: Double, dy: Double, on view: BrowserScreen) -> Bool {
        view == .starter ? starterSwipe.scroll(dx: dx, dy: dy) : pageSwipe.scroll(dx: dx, dy: dy)
    }

    /// Ends a touchpad gesture on `view`, stepping when it was a swipe.
    @discardableResult
    func finishSwipe(on view: BrowserScreen) -> Bool {
        guard let direction = view == .starter ? starterSwipe.end() : pageSwipe.end() else { return false }
        navigate(direction, from: view)
        return true
    }

    /// The view the stack shows (what a person swipes on).
    var visibleView: BrowserScreen {
        borrowString(gtk_stack_get_visible_child_name(cast(stack))) == "start" ? .starter : .page
    }

    // MARK: Rendering

    /// Brings every widget in line with the session.
    func refresh() {
        guard !closed else { return }
        gtk_widget_set_sensitive(backButton, filtersReady && session.canStepBack ? 1 : 0)
        gtk_widget_set_sensitive(forwardButton, filtersReady && session.canStepForward ? 1 : 0)
        gtk_widget_set_sensitive(reloadButton, session.currentURL != nil ? 1 : 0)
        gtk_button_set_label(cast(zoomButton), session.zoom.description)
        gtk_widget_set_visible(zoomButton, session.zoom == .actualSize ? 0 : 1)
        gtk_button_set_label(cast(shieldButton), shieldLabel)
        gtk_widget_set_tooltip_text(shieldButton, shieldTooltipText)
        gtk_widget_set_sensitive(shieldButton, session.canToggleBlocking && !togglingBlocking ? 1 : 0)
        gtk_entry_set_placeholder_text(cast(entry), "Search with \(session.searchEngine.displayName) or enter an address")
        // The address follows the page whenever the page changes; in between, what the person
        // types stays.
        let address = borrowString(webkit_web_view_get_uri(webView)) ?? session.currentURL ?? ""
        if address != shownAddress {
            shownAddress = address
            gtk_entry_set_text(cast(entry), address)
        }
        let title = session.currentTitle.flatMap { $0.isEmpty ? nil : $0 }
        gtk_window_set_title(cast(window), title.map { "\($0) — Pepper" } ?? "Pepper")
        gtk_label_set_markup(cast(startLabel), startPageMarkup)
        let notice = rulesNotice
        gtk_label_set_text(cast(rulesLabel), notice ?? "")
        gtk_info_bar_set_message_type(cast(rulesBar), filters.selection.installed ? GTK_MESSAGE_WARNING : GTK_MESSAGE_ERROR)
        gtk_widget_set_visible(rulesBar, notice == nil ? 0 : 1)
        let counts = countsLine
        gtk_label_set_text(cast(countsLabel), counts)
        gtk_widget_set_tooltip_text(countsLabel, counts)
        gtk_widget_set_visible(countsLabel, counts.isEmpty ? 0 : 1)
        showScreen()
    }

    /// Switches the stack to the session's view, sliding: the starter in from the left (going
    /// back), the page in from the right (going forward, or opening an address).
    private func showScreen() {
        guard let shown = screenShown, shown != session.screen else { return }
        let transition: ScreenTransition = session.screen == .starter ? .slideInFromLeading : .slideInFromTrailing
        gtk_stack_set_visible_child_full(
            cast(stack), session.screen == .starter ? "start" : "web",
            transition == .slideInFromLeading ? GTK_STACK_TRANSITION_TYPE_SLIDE_RIGHT : GTK_STACK_TRANSITION_TYPE_SLIDE_LEFT)
        screenShown = session.screen
        lastTransition = transition
    }

    /// What the rules' bar says: a new output WebKit refused (the previous rules kept), or no
    /// rules at all (pages refused).
    var rulesNotice: String? {
        guard filtersReady else { return nil }
        return filters.selection.notice
    }

    /// The bar under the page: the current site's blocked requests on this page and over the
    /// last days, per list; why they are not counted; nothing on the starter.
    var countsLine: String {
        guard session.screen == .page, session.currentURL != nil else { return "" }
        if let problem = session.countsProblem, filtersReady { return "Blocked requests are not counted: \(problem)." }
        return session.siteSummary?.line ?? ""
    }

    /// The shield's text: the blocked count, or why nothing is blocked.
    var shieldLabel: String {
        if togglingBlocking { return "Shield …" }
        if filtersReady && !filters.selection.installed { return "No rules" }
        if !((try? session.isBlockingCurrentSite()) ?? true) { return "Shield off" }
        return "Shield: \(session.blockedCount) blocked"
    }

    /// The shield's tooltip: what it does (or why it failed), then what was blocked and by which rule.
    var shieldTooltipText: String {
        var lines = [shieldProblem ?? Self.shieldTooltip]
        let blocked = session.blocked
        for url in blocked.blocked.prefix(8) {
            let rule = blocked.rules[url].map { "\($0.text)  (\($0.list):\($0.line))" } ?? "blocked"
            lines.append("\(url.count > 80 ? url.prefix(79) + "…" : Substring(url)) — \(rule)")
        }
        if blocked.count > 8 { lines.append("and \(blocked.count - 8) more") }
        return lines.joined(separator: "\n")
    }

    private var startPageMarkup: String {
        var lines = ["Type an address, or words to search with \(session.searchEngine.displayName)."]
        if let rules = appliedRules {
            let ruleCount = rules.rules.formatted(.number)
            lines.append(
                "Ads and trackers are blocked by \(ruleCount) rule\(rules.rules == 1 ? "" : "s") "
                    + "in \(rules.lists) list\(rules.lists == 1 ? "" : "s").")
        } else if filtersReady {
            lines.append("No rules are installed: pages do not load until they are.")
        }
        if session.canStepForward { lines.append("Swipe left or press Alt+→ to return to the page.") }
        let body = takeString(g_markup_escape_text(lines.joined(separator: "\n"), -1)) ?? ""
        return "<span size=\"xx-large\" weight=\"bold\">Pepper</span>\n\n" + body
    }

    // MARK: For automation

    /// The state the automation channel reports.
    /// The window's current state, read from the widgets where the person sees it.
    var state: BrowserAutomationState {
        BrowserAutomationState(
            url: borrowString(webkit_web_view_get_uri(webView)), title: session.currentTitle,
            address: borrowString(gtk_entry_get_text(cast(entry))) ?? "",
            startPage: session.isShowingStartPage, canGoBack: session.canGoBack, canGoForward: session.canGoForward,
            backEnabled: gtk_widget_get_sensitive(backButton) != 0, forwardEnabled: gtk_widget_get_sensitive(forwardButton) != 0,
            engineCanGoBack: webkit_web_view_can_go_back(webView) != 0, zoom: session.zoom.percent,
            engineZoom: Int((webkit_web_view_get_zoom_level(webView) * 100).rounded()), blocked: session.blockedCount,
            blockedURLs: session.blocked.blocked, blockedRules: session.blocked.blocked.map { session.blocked.rules[$0]?.text ?? "" },
            picketNotice: picketNotice?.employer, picketCanProceed: picketNotice?.canProceed,
            blocking: (try? session.isBlockingCurrentSite()) ?? true,
            shield: borrowString(gtk_button_get_label(cast(shieldButton))) ?? "", loading: isLoading, filtersReady: filtersReady,
            rulesIdentifier: appliedRules?.identifier, rulesCompiled: appliedRules?.compiled,
            suggestionVisible: gtk_widget_get_visible(infoBar) != 0, searchEngine: session.searchEngine.rawValue,
            historyEntries: session.history.entries.map(\.url), historyIndex: session.history.currentIndex,
            rulesCompilingInBackground: compilingChangedOutput, baseRulesReady: filters.hasBase,
            lastToggleMilliseconds: lastToggleMilliseconds, screen: session.screen.rawValue,
            visibleView: borrowString(gtk_stack_get_visible_child_name(cast(stack))) ?? "", lastTransition: lastTransition?.rawValue,
            transitionsRun: transitionsRun, countsLine: countsLine, siteSummary: session.siteSummary, rulesNotice: rulesNotice,
            rulesFailure: filters.selection.failure,
            rulesInForce: filters.selection.installed ? filters.selection.lastGood?.identifier : nil, refusedLoads: refusedLoads,
            dataStore: partition.description, dataStores: contexts.count, webViewsMade: webViewsMade)
    }

    /// Whether WebKit has nothing left to compile: the output and the lists without the
    /// allowlist are ready (or cannot be), and no changed output is compiling.
    var rulesSettled: Bool { filtersReady && !compilingChangedOutput && !filters.isPreparingBase }

    /// Whether anything is still in progress: the rules, a page load, the shield.
    var isLoading: Bool {
        !filtersReady || togglingBlocking || webkit_web_view_is_loading(webView) != 0 || gtk_stack_get_transition_running(cast(stack)) != 0
    }

    /// Clicks a toolbar button as a person would (`back`, `forward`, `reload`, `shield`, `zoom`);
    /// returns an error when it is disabled.
    func click(_ name: String) -> String? {
        let buttons = ["back": backButton, "forward": forwardButton, "reload": reloadButton, "zoom": zoomButton, "shield": shieldButton]
        guard let button = buttons[name] else { return "no button '\(name)'" }
        guard gtk_widget_get_sensitive(button) != 0 else { return "the \(name) button is disabled" }
        gtk_button_clicked(cast(button))
        return nil
    }

    /// Sends a key press through the window's key handling, as the keyboard would.
    func pressKey(keyval: guint, state: guint) {
        guard let event = gdk_event_new(GDK_KEY_PRESS) else { return }
        defer { gdk_event_free(event) }
        if let gdkWindow = gtk_widget_get_window(window) {
            // The event owns a reference to its window, released by gdk_event_free.
            event.pointee.key.window = OpaquePointer(g_object_ref(raw(gdkWindow)))
        }
        event.pointee.key.send_event = 1
        event.pointee.key.keyval = keyval
        event.pointee.key.state = state
        event.pointee.key.time = guint32(GDK_CURRENT_TIME)
        if let seat = gdk_display_get_default_seat(gdk_display_get_default()), let keyboard = gdk_seat_get_keyboard(seat) {
            gdk_event_set_device(event, keyboard)
        }
        gtk_widget_event(window, event)
    }

    /// Saves a PNG of the whole window (toolbar, shield and page).
    func screenshot(to path: String) -> String? {
        guard let gdkWindow = gtk_widget_get_window(window) else { return "the window is not shown" }
        let width = gdk_window_get_width(gdkWindow)
        let height = gdk_window_get_height(gdkWindow)
        guard let pixbuf = gdk_pixbuf_get_from_window(gdkWindow, 0, 0, width, height) else { return "cannot read the window" }
        defer { g_object_unref(raw(pixbuf)) }
        var error: UnsafeMutablePointer<GError>?
        gdk_pixbuf_savev(pixbuf, path, "png", nil, nil, &error)
        return GLibError.take(error)?.description
    }

    /// Closes the window, ending `pepper browse`.
    func close() {
        guard !closed else { return }
        gtk_widget_destroy(window)
    }

    // MARK: Errors

    private func attempt(_ body: (BrowserSession) throws -> Void) {
        do {
            try body(session)
        } catch {
            report("\(error)")
        }
    }

    private func report(_ message: String) {
        FileHandle.standardError.write(Data("pepper: warning: \(message)\n".utf8))
    }
}
#endif
