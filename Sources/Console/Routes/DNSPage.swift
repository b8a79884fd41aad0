import Foundation
import Hummingbird
import PepperActions
import Screens

/// DNS: the 24-hour chart, top names and clients, the query log with one-click allow/block,
/// and the client groups (read-only).
struct DNSPage: ConsoleArea {
    static let path: RouterPath = "/dns"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The DNS screen, one for the console's life: it keeps the top lists it counted.
    let screen: DNSScreen
    /// The open live streams, ended when the console stops.
    let streams: LiveStreams

    private struct DNSView {
        struct TopRow {
            var name: String
            var count: String
        }
        struct Row {
            var time: String
            var client: String
            var name: String
            var type: String
            var outcome: String
            var blocked: Bool
            var allow: Bool
            var block: Bool
            var note: String?
            var back: String
        }
        struct Group {
            var name: String
            var clients: String
            var lists: String
            var allowlist: String
        }
        var statusClass: String
        var statusText: String
        var total: String
        var blocked: String
        var blockedPercent: String
        var chart: String
        var topBlocked: [TopRow]
        var topClients: [TopRow]
        var topListsCounted: String
        var search: String
        var blockedOnly: Bool
        var blockedFlag: String
        var tail: Bool
        var latest: String
        var rows: [Row]
        var newer: String?
        var older: String?
        var groups: [Group]
        var hasGroups: Bool
        var groupsProblem: String?
        var noGroups: String
    }

    /// One row of the live tail, as the page's script shows it.
    struct TailRow: Encodable, Sendable {
        var time: String
        var client: String
        var name: String
        var type: String
        var outcome: String
        var blocked: Bool
        var action: String
        var note: String?
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.get { request, context in
            let query = FormData(query: request.uri.query)
            let logQuery = DNSScreen.LogQuery(
                before: query["before"].flatMap { Int64($0) }, search: query["search"] ?? "",
                blockedOnly: query["blocked"] == "1")
            let loaded: DNSScreen.State
            do {
                loaded = try await screen.load(logQuery)
            } catch {
                return failure(error, title: "DNS", request: request, context: context)
            }
            return renderer.page(
                .dns, title: "DNS", view: view(loaded, path: request.uri.description),
                chrome: chrome(request, context))
        }
        routes.get("log/events") { request, _ in
            let query = FormData(query: request.uri.query)
            let search = (query["search"] ?? "").lowercased()
            let blockedOnly = query["blocked"] == "1"
            let rows = screen.live.rows(after: query["after"].flatMap { Int64($0) })
            return streams.response { events in
                // A minute at most per connection: the browser reconnects by itself, and a
                // stream never outlives its page for long.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await batch in rows {
                            let shown = batch.filter { (!blockedOnly || $0.blocked) && (search.isEmpty || $0.name.contains(search)) }
                            // Oldest first: the script puts each row on top, so the newest ends on top.
                            if !shown.isEmpty { events.yield(LiveStreams.event(shown.map(Self.tailRow))) }
                        }
                    }
                    group.addTask { try? await Task.sleep(for: .seconds(60)) }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
        routes.post("allow") { _, context in
            let fields = form(context)
            return redirect(LocalPath.checked(fields["back"]) ?? "/dns", await screen.allow(fields["name"] ?? ""), context: context)
        }
        routes.post("block") { _, context in
            let fields = form(context)
            return redirect(LocalPath.checked(fields["back"]) ?? "/dns", await screen.block(fields["name"] ?? ""), context: context)
        }
        return routes
    }

    static func tailRow(_ row: DNSScreen.Row) -> TailRow {
        TailRow(
            time: Format.time(row.at), client: row.client, name: row.name, type: row.type, outcome: row.outcome.rawValue,
            blocked: row.blocked,
            action: row.action.rawValue, note: note(row.action))
    }

    static func note(_ action: DNSScreen.RowAction) -> String? {
        switch action {
        case .allowedSince: return "allowed since"
        case .blockedSince: return "blocked since"
        case .allow, .block: return nil
        }
    }

    private func view(_ loaded: DNSScreen.State, path: String) -> DNSView {
        let summary = loaded.summary
        let query = loaded.query
        func link(before: Int64?) -> String {
            var items = [URLQueryItem]()
            if !query.search.isEmpty { items.append(URLQueryItem(name: "search", value: query.search)) }
            if query.blockedOnly { items.append(URLQueryItem(name: "blocked", value: "1")) }
            if let before { items.append(URLQueryItem(name: "before", value: String(before))) }
            var components = URLComponents()
            components.path = "/dns"
            components.queryItems = items.isEmpty ? nil : items
            return components.string ?? "/dns"
        }
        let rows = loaded.log.map { row in
            DNSView.Row(
                time: Format.time(row.at), client: row.client, name: row.name, type: row.type, outcome: row.outcome.rawValue,
                blocked: row.blocked,
                allow: row.action == .allow, block: row.action == .block, note: Self.note(row.action), back: path)
        }
        let server = loaded.server
        return DNSView(
            statusClass: server == nil ? "off" : "ok",
            statusText: server.map { "pepper dns serve is running on \($0.listen)." }
                ?? "pepper dns serve is not running; the figures are from when it ran.",
            total: Wording.plural(summary.total, "query", "queries"), blocked: Format.count(summary.blocked),
            blockedPercent: String(format: "%.1f %%", summary.blockedPercent), chart: BarChart.svg(summary.chart),
            topBlocked: summary.topBlocked.map { .init(name: $0.name, count: Format.count($0.count)) },
            topClients: summary.topClients.map { .init(name: $0.name, count: Format.count($0.count)) },
            topListsCounted:
                "Both lists counted at \(Format.time(summary.topListsCountedAt)) UTC (they are counted again every 30 s at most).",
            search: query.search,
            blockedOnly: query.blockedOnly, blockedFlag: query.blockedOnly ? "1" : "", tail: query.before == nil,
            latest: String(loaded.latestID), rows: rows, newer: query.before == nil ? nil : link(before: nil),
            older: loaded.nextBefore.map { link(before: $0) },
            groups: loaded.groups.map {
                .init(
                    name: $0.name, clients: $0.clients.joined(separator: ", "),
                    lists: $0.lists?.joined(separator: ", ") ?? "the default lists",
                    allowlist: $0.allowlist.isEmpty ? "—" : $0.allowlist.joined(separator: ", "))
            }, hasGroups: !loaded.groups.isEmpty, groupsProblem: loaded.groupsProblem,
            noGroups: server?.groupsFile == nil ? "The DNS filter runs without client groups (pepper dns serve --groups FILE)." : "")
    }
}
