import Foundation
import Hummingbird
import PepperActions
import Screens

/// Allowlist: add (for good or 24 h), remove, and "Check a URL".
struct AllowlistPage: ConsoleArea {
    static let path: RouterPath = "/allowlist"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState

    private struct AllowlistView {
        struct Entry {
            var domain: String
            var unicode: String?
            var until: String
        }
        struct TypeOption {
            var value: String
            var selected: Bool
        }
        struct Result {
            var decision: String
            var decisionClass: String
            var explanation: String
            var rule: String?
            var list: String?
            var line: String?
            var overridden: String?
            var type: String
            var url: String
            var page: String?
        }
        var site: String
        var siteError: String?
        var entries: [Entry]
        var hasEntries: Bool
        var checkURL: String
        var checkPage: String
        var urlError: String?
        var pageError: String?
        var types: [TypeOption]
        var result: Result?
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = AllowlistScreen(state: state)
        routes.get { request, context in
            await allowlistPage(screen, request: request, context: context)
        }
        routes.post("add") { request, context in
            let fields = form(context)
            let duration = AllowlistScreen.Duration(rawValue: fields["for"] ?? "") ?? .forGood
            let notice = await screen.add(site: fields["site"] ?? "", duration: duration)
            guard notice.isError else { return redirect("/allowlist", notice, context: context) }
            return await allowlistPage(screen, request: request, context: context, notice: notice, site: fields["site"])
        }
        routes.post("remove") { _, context in
            redirect("/allowlist", await screen.remove(form(context)["domain"] ?? ""), context: context)
        }
        return routes
    }

    private func allowlistPage(
        _ screen: AllowlistScreen, request: Request, context: ConsoleContext, notice: Notice? = nil, site: String? = nil
    ) async -> Response {
        let loaded: AllowlistScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Allowlist", request: request, context: context)
        }
        let query = FormData(query: request.uri.query)
        let url = query["url"] ?? ""
        let page = query["page"] ?? ""
        let type = query["type"] ?? "auto"
        var result: AllowlistView.Result?
        var checkError: Notice?
        if !url.isEmpty {
            switch await screen.check(url: url, page: page, type: type) {
            case .success(let checked):
                result = .init(
                    decision: checked.decision, decisionClass: checked.decision.lowercased(), explanation: checked.explanation,
                    rule: checked.rule, list: checked.list, line: checked.line.map(String.init), overridden: checked.overridden,
                    type: checked.type, url: checked.url, page: checked.page)
            case .failure(let error):
                checkError = error
            }
        }
        let entries = loaded.entries.map { entry in
            AllowlistView.Entry(
                domain: entry.domain, unicode: entry.unicode,
                until: entry.expiresAt.map { entry.expired ? "lapsed \(Format.date($0))" : Format.date($0) } ?? "for good")
        }
        let view = AllowlistView(
            site: site ?? "", siteError: notice?.field == "site" ? notice?.text : nil, entries: entries, hasEntries: !entries.isEmpty,
            checkURL: url, checkPage: page, urlError: checkError?.field == "url" ? checkError?.text : nil,
            pageError: checkError?.field == "page" ? checkError?.text : nil,
            types: loaded.types.map { .init(value: $0, selected: $0 == type) }, result: result)
        var notices: [Notice] = []
        if let notice { notices.append(notice.banner("Nothing was added")) }
        if let checkError, checkError.field == "type" { notices.append(checkError) }
        let failed = notice?.isError == true || checkError != nil
        return renderer.page(
            .allowlist, title: "Allowlist", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: failed))
    }
}
