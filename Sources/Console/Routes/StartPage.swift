import Foundation
import Hummingbird
import PepperActions
import Screens

/// Start: protection state, counts, and what needs attention.
struct StartPage: ConsoleArea {
    static let path: RouterPath = "/"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState
    /// The browser whose content-filter settings Pepper keeps, if any.
    let browser: (any BrowserContentFilters)?

    private struct StartView {
        struct CountRow {
            var label: String
            var today: String
            var week: String
            var detail: String?
        }
        struct AttentionRow {
            var text: String
            var action: String
            var label: String
            var post: Bool
        }
        var statusClass: String
        var statusText: String
        var lists: String
        var rules: String
        var compiledAt: String
        var lastUpdate: String
        var dns: String
        var counts: [CountRow]
        var attention: [AttentionRow]
        var hasAttention: Bool
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.get { request, context in
            let screen = StartScreen(state: state, browser: browser)
            let loaded: StartScreen.State
            do {
                loaded = try await screen.load()
            } catch {
                return failure(error, title: "Start", request: request, context: context)
            }
            // A fresh home opens on the setup, until it is finished or skipped.
            if !loaded.onboardingDone { return Response.redirect(to: "/setup") }
            return renderer.page(.start, title: "Start", view: view(loaded), chrome: chrome(request, context))
        }
        routes.post("rebuild") { _, context in
            redirect("/", await StartScreen(state: state).rebuildNow(), context: context)
        }
        routes.post("fix/gnome-web") { _, context in
            redirect("/", await OnboardingScreen(state: state, browser: browser).installInBrowser(), context: context)
        }
        return routes
    }

    private func view(_ loaded: StartScreen.State) -> StartView {
        let protection = loaded.protection
        let on = protection.rules > 0
        let status: String
        if !on {
            status = "Not protected: nothing is compiled yet."
        } else if protection.usingStarterList {
            status = "Protected by Pepper's small starter list only: enable lists and update them (Lists) for real coverage."
        } else {
            status = "Protected."
        }
        let dns = protection.dnsServer.map { "running on \($0.listen) since \(Format.date($0.startedAt))" } ?? "not running"
        let attention = loaded.attention.map { item -> StartView.AttentionRow in
            switch item.fix {
            case .updateLists: return .init(text: item.text, action: "/lists/update", label: "Update now", post: true)
            case .rebuild: return .init(text: item.text, action: "/rebuild", label: "Compile now", post: true)
            case .onboarding: return .init(text: item.text, action: "/setup", label: "Set up", post: false)
            case .browser: return .init(text: item.text, action: "/fix/gnome-web", label: "Fix GNOME Web", post: true)
            }
        }
        return StartView(
            statusClass: on ? (protection.usingStarterList ? "warn" : "ok") : "off", statusText: status,
            lists: protection.listsInForce.isEmpty ? "none" : protection.listsInForce.joined(separator: ", "),
            rules: Format.count(protection.rules), compiledAt: Format.date(protection.compiledAt),
            lastUpdate: Format.date(protection.lastUpdate),
            dns: dns,
            counts: loaded.counts.map {
                .init(label: $0.label, today: Format.count($0.today), week: Format.count($0.week), detail: $0.detail)
            }, attention: attention, hasAttention: !attention.isEmpty)
    }
}
