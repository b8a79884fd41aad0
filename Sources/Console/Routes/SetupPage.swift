import Foundation
import Hummingbird
import PepperActions
import Screens

/// Setup (the onboarding): lists, GNOME Web, Pepper's browser, DNS, DuckDuckGo.
struct SetupPage: ConsoleArea {
    static let path: RouterPath = "/setup"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState
    /// The browser whose content-filter settings Pepper keeps, if any.
    let browser: (any BrowserContentFilters)?
    /// The one list update of the console.
    let updates: UpdateRunner

    private struct SetupView {
        struct ListRow {
            var name: String
            var summary: String
            var enabled: Bool
            var downloaded: Bool
        }
        struct GNOMEWeb {
            var name: String
            var notInstalled: String?
            var installed: Bool
            var fileCount: String
            var currentCount: String
            var problem: String?
            var outputPath: String
        }
        struct PepperBrowser {
            var statusClass: String
            var statusText: String
            var outputPath: String
        }
        struct DNS {
            var statusClass: String
            var statusText: String
            var address: String
            var dropInPath: String
            var dropIn: String
            var addressError: String?
        }
        struct Search {
            var answered: Bool
            var pepperEngine: String
            var gnomeEngine: String?
        }
        var lists: [ListRow]
        var browser: GNOMEWeb?
        var pepperBrowser: PepperBrowser
        var dns: DNS
        var search: Search
        var done: Bool
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = OnboardingScreen(state: state, browser: browser)
        routes.get { request, context in
            await setupPage(screen, request: request, context: context)
        }
        routes.post("lists") { _, context in
            // Answered at once: the choice, the downloads and the rebuild run in the background
            // and show their progress as "Update now" does (queued behind a running update).
            let names = Set(form(context).all("lists"))
            if let problem = await screen.checkListChoice(names) { return redirect("/setup", problem, context: context) }
            await updates.start { await screen.chooseLists(names, download: false) }
            return redirect("/lists/update", nil, context: context)
        }
        routes.post("gnome-web") { _, context in
            redirect("/setup", await screen.installInBrowser(), context: context)
        }
        routes.post("dns-check") { request, context in
            let address = (form(context)["address"] ?? "").trimmingCharacters(in: .whitespaces)
            let notice = await screen.checkDNS(address: address.isEmpty ? nil : address, startCommand: "pepper dns serve")
            if notice.isError && notice.field != nil {
                return await setupPage(screen, request: request, context: context, notice: notice, address: address)
            }
            return redirect("/setup", notice, context: context)
        }
        routes.post("duckduckgo") { _, context in redirect("/setup", await screen.useDuckDuckGo(), context: context) }
        routes.post("duckduckgo/dismiss") { _, context in redirect("/setup", await screen.dismissSearchSuggestion(), context: context) }
        routes.post("finish") { _, context in redirect("/", await screen.finish(), context: context) }
        return routes
    }

    private func setupPage(
        _ screen: OnboardingScreen, request: Request, context: ConsoleContext, notice: Notice? = nil, address: String? = nil
    ) async -> Response {
        let loaded: OnboardingScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Setup", request: request, context: context)
        }
        let output = state.home.outputURL.path
        let gnome = loaded.browser.map { setup -> SetupView.GNOMEWeb in
            var reason: String?
            if case .notInstalled(let why) = setup.availability { reason = why }
            return SetupView.GNOMEWeb(
                name: setup.name, notInstalled: reason, installed: setup.installed,
                fileCount: setup.expected.count == 1 ? "filter file" : "\(setup.expected.count) filter files",
                currentCount: setup.filters.isEmpty
                    ? "no filter file" : setup.filters.count == 1 ? "another filter file" : "\(setup.filters.count) other filter files",
                problem: setup.problem, outputPath: output)
        }
        let browser = loaded.pepperBrowser
        let browserCurrent = browser.currentIdentifier != nil && browser.compiledIdentifier == browser.currentIdentifier
        let browserText =
            browser.currentIdentifier == nil
            ? "Nothing is compiled yet: choose lists above."
            : browserCurrent
                ? "Pepper's browser uses the current lists."
                : "Pepper's browser loads the current lists the next time it starts."
        let dns = loaded.dns
        let fieldError = notice?.field == "address" ? notice?.text : nil
        let view = SetupView(
            lists: loaded.lists.map { .init(name: $0.name, summary: $0.summary, enabled: $0.enabled, downloaded: $0.downloaded) },
            browser: gnome,
            pepperBrowser: .init(statusClass: browserCurrent ? "ok" : "warn", statusText: browserText, outputPath: output),
            dns: .init(
                statusClass: dns.server == nil ? "off" : "ok",
                statusText: dns.server.map { "The DNS filter is running on \($0.listen)." } ?? "The DNS filter is not running.",
                address: address ?? dns.server?.listen ?? OnboardingScreen.defaultDNSAddress, dropInPath: dns.dropInPath,
                dropIn: dns.dropIn,
                addressError: fieldError),
            search: .init(
                answered: loaded.search.answered, pepperEngine: loaded.search.pepperBrowserEngine.displayName,
                gnomeEngine: loaded.search.browserEngine),
            done: loaded.done)
        let notices = notice.map { $0.field == nil ? [$0] : [Notice(.error, "The check did not work: see below.")] } ?? []
        return renderer.page(
            .setup, title: "Set up Pepper", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: notice?.isError == true))
    }
}
