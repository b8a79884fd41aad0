import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PepperActions
import Screens

/// Lists: the catalogue, adding (address or upload), removing, "Update now" with live progress.
struct ListsPage: ConsoleArea {
    static let path: RouterPath = "/lists"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState
    /// The one list update of the console.
    let updates: UpdateRunner
    /// The open live streams, ended when the console stops.
    let streams: LiveStreams

    private struct ListsView {
        struct Row {
            var name: String
            var location: String
            var format: String
            var enabled: Bool
            var builtIn: Bool
            var state: String
            var downloaded: String
            var rulesText: String?
            var lastError: String?
            var hasSkipped: Bool
            var skippedText: String
            var skipped: [ListsScreen.Skipped]
            /// The categories form of a Tracker Radar or Disconnect list with a copy.
            var categories: Categories?
            /// A list with categories but no copy yet: nothing to choose from.
            var categoriesPending: Bool
        }
        /// One list's categories: a checkbox each, the choice saved at once.
        struct Categories {
            struct Item {
                var id: String
                var categoryName: String
                var domains: String
                var chosen: Bool
            }
            var summary: String
            var open: Bool
            var isDefault: Bool
            var items: [Item]
            var error: String?
            var errorID: String
        }
        struct Outcome {
            var kind: String
            var text: String
        }
        var schedule: String
        var nextDue: String
        var lastUpdate: Outcome?
        var lists: [Row]
        var myRules: String?
        var addURL: String
        var addName: String
        var urlError: String?
        var nameError: String?
        var fileError: String?
        var uploadLimit: String
    }

    private struct UpdateView {
        struct Row {
            var name: String
            var result: String
        }
        var running: Bool
        var heading: String
        var status: String
        var rows: [Row]
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = ListsScreen(state: state)
        routes.get { request, context in
            await listsPage(screen, request: request, context: context)
        }
        routes.post("enable") { _, context in
            redirect("/lists", await screen.enable(form(context)["name"] ?? ""), context: context)
        }
        routes.post("disable") { _, context in
            redirect("/lists", await screen.disable(form(context)["name"] ?? ""), context: context)
        }
        routes.post("remove") { _, context in
            redirect("/lists", await screen.remove(form(context)["name"] ?? ""), context: context)
        }
        routes.post("add") { request, context in
            let fields = form(context)
            let notice = await screen.add(address: fields["url"] ?? "", name: fields["name"])
            guard notice.isError else { return redirect("/lists", notice, context: context) }
            return await listsPage(screen, request: request, context: context, notice: notice, url: fields["url"], name: fields["name"])
        }
        routes.post("categories") { request, context in
            let fields = form(context)
            let name = fields["name"] ?? ""
            let notice = await screen.chooseCategories(fields.all("categories"), for: name)
            guard notice.isError else { return redirect("/lists", notice, context: context) }
            return await listsPage(screen, request: request, context: context, notice: notice, categoriesOf: name)
        }
        routes.post("categories/default") { request, context in
            let name = form(context)["name"] ?? ""
            let notice = await screen.useDefaultCategories(for: name)
            guard notice.isError else { return redirect("/lists", notice, context: context) }
            return await listsPage(screen, request: request, context: context, notice: notice, categoriesOf: name)
        }
        routes.post("upload") { request, context in
            let fields = form(context)
            guard let file = fields.files["file"], !file.data.isEmpty else {
                return await listsPage(
                    screen, request: request, context: context, notice: .error("Choose a list file to upload.", field: "file"))
            }
            let notice = await screen.upload(file.data, fileName: file.fileName, name: fields["name"])
            guard notice.isError else { return redirect("/lists", notice, context: context) }
            return await listsPage(screen, request: request, context: context, notice: notice)
        }
        routes.post("update") { _, context in
            await updates.start()
            return redirect("/lists/update", nil, context: context)
        }
        routes.get("update") { request, context in
            let (running, lines, notice) = await updates.snapshot()
            var rows: [UpdateView.Row] = []
            for line in lines {
                guard let list = line.list else { continue }
                if let index = rows.firstIndex(where: { $0.name == list }) {
                    rows[index].result = line.text
                } else {
                    rows.append(.init(name: list, result: line.text))
                }
            }
            let status =
                lines.last(where: { $0.status != nil })?.status ?? (running ? "Starting…" : "No update has run from this console yet.")
            let view = UpdateView(
                running: running, heading: running ? "Updating the lists" : "Last update", status: status, rows: rows)
            let notices = running ? [] : notice.map { [$0] } ?? []
            return renderer.page(
                .update, title: "Update now", view: view, chrome: chrome(request, context, notices: notices, noscriptRefresh: running))
        }
        routes.get("update/events") { _, _ in
            let lines = await updates.follow()
            return streams.response { events in
                for await line in lines { events.yield(LiveStreams.event(line)) }
            }
        }
        return routes
    }

    private func listsPage(
        _ screen: ListsScreen, request: Request, context: ConsoleContext, notice: Notice? = nil, url: String? = nil, name: String? = nil,
        categoriesOf refused: String? = nil
    ) async -> Response {
        let loaded: ListsScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Lists", request: request, context: context)
        }
        let schedule: String
        if let running = loaded.schedule.running {
            schedule =
                "pepper update --every runs (pid \(running.pid)) every \(Self.duration(running.every)); next at \(Format.date(running.nextRun))."
        } else if let timer = loaded.schedule.timer {
            schedule = "The systemd timer \(timer) updates the lists."
        } else {
            schedule =
                "No scheduled updates run: start pepper update --every 4h, or install the systemd timer (docs/lists.md)."
        }
        let nextDue =
            loaded.schedule.nextDue.map { "The lists are next due \(Format.date($0))." } ?? "A list has never been downloaded: update now."
        let (_, _, lastNotice) = await updates.snapshot()
        let rows = loaded.lists.map { row -> ListsView.Row in
            var rules: [String] = []
            if let rulesIn = row.rulesIn { rules.append("\(Format.count(rulesIn)) rules in") }
            if let rulesOut = row.rulesOut { rules.append("\(Format.count(rulesOut)) WebKit rules out") }
            let skippedTotal = row.skipped.reduce(0) { $0 + $1.count }
            return ListsView.Row(
                name: row.name, location: row.location, format: row.format, enabled: row.enabled, builtIn: row.builtIn,
                state: row.enabled ? "enabled" : "disabled",
                downloaded: row.lastSuccess.map { "Downloaded \(Format.date($0))" }
                    ?? (row.location.hasPrefix("/") ? "Local file" : "Not downloaded yet"),
                rulesText: rules.isEmpty ? nil : rules.joined(separator: ", "), lastError: row.lastError, hasSkipped: skippedTotal > 0,
                skippedText: "\(Format.count(skippedTotal)) lines skipped, by reason", skipped: row.skipped,
                categories: Self.categoriesView(row, error: refused == row.name ? notice?.text : nil),
                categoriesPending: row.categories != nil && row.categories?.offered == nil)
        }
        let view = ListsView(
            schedule: schedule, nextDue: nextDue, lastUpdate: lastNotice.map { .init(kind: $0.kind.rawValue, text: $0.text) }, lists: rows,
            myRules: loaded.myRules == 0 ? "none yet" : "\(Format.count(loaded.myRules)) rules",
            addURL: url ?? "", addName: name ?? "", urlError: notice?.field == "url" ? notice?.text : nil,
            nameError: notice?.field == "name" ? notice?.text : nil, fileError: notice?.field == "file" ? notice?.text : nil,
            uploadLimit: "\(PepperState.maximumUploadBytes / 1_048_576) MB")
        // A refused choice of categories is shown in the list's categories form; a list that has
        // none to show (a filter list, one never downloaded) gets the reason in the banner.
        let refusedHasForm = rows.contains { $0.name == refused && $0.categories != nil }
        let shown: [Notice]
        if let notice, refused != nil, !refusedHasForm {
            shown = [Notice(notice.kind, "Nothing was changed: \(notice.text)")]
        } else {
            shown = notice.map { [$0.banner(refused == nil ? "Nothing was added" : "Nothing was changed")] } ?? []
        }
        return renderer.page(
            .lists, title: "Lists", view: view, chrome: chrome(request, context, notices: shown),
            status: .form(refused: notice?.isError == true))
    }

    /// The categories form of `row`, when it has categories to choose from.
    private static func categoriesView(_ row: ListsScreen.Row, error: String?) -> ListsView.Categories? {
        guard let categories = row.categories, let offered = categories.offered else { return nil }
        let chosen = offered.filter(\.chosen).count
        let summary =
            "Categories: \(chosen) of \(offered.count) blocked" + (categories.isDefault ? " (the default)" : "")
        return ListsView.Categories(
            summary: summary, open: error != nil, isDefault: categories.isDefault,
            items: offered.enumerated().map { index, category in
                .init(
                    id: "category-\(row.name)-\(index)", categoryName: category.name,
                    domains: Format.count(category.domains) + (category.domains == 1 ? " domain" : " domains"), chosen: category.chosen)
            },
            error: error, errorID: "categories-\(row.name)-error")
    }

    static func duration(_ seconds: TimeInterval) -> String {
        if seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return "\(Int(seconds / 86_400)) d" }
        if seconds.truncatingRemainder(dividingBy: 3_600) == 0 { return "\(Int(seconds / 3_600)) h" }
        return "\(Int(seconds / 60)) min"
    }

}
