import DNSFilter
import DNSProfiles
import Foundation
import Hummingbird
import NIOCore
import PepperActions
import Screens

/// DNS: the 24-hour chart, top names and clients, the query log with one-click allow/block,
/// the client groups (read-only), and each device's encrypted-DNS addresses and Apple profile
/// ("Phones and laptops away from home").
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
        var away: Away
    }

    /// The "away from home" section: a device's addresses and profile.
    private struct Away {
        struct Option {
            var value: String
            var label: String
            var selected: Bool
        }
        struct Addresses {
            var device: String
            var httpsURL: String
            var tlsName: String
            var android: String
            var download: String
            var fileName: String
            var note: String
        }
        /// Whether the running server answers DNS over TLS or HTTPS.
        var serving: Bool
        var notServing: String
        var device: String
        var deviceError: String?
        var protocolError: String?
        var protocols: [Option]
        var addresses: Addresses?
    }

    /// What the device form asked for (`?device=NAME&protocol=https`), when it was sent.
    private struct DeviceQuery {
        var device: String
        var transport: EncryptedDNSTransport?

        init?(_ query: FormData) {
            guard let device = query["device"] else { return nil }
            self.device = device
            transport = query["protocol"].flatMap(EncryptedDNSTransport.init(rawValue:))
        }
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
            await dnsPage(request: request, context: context)
        }
        // The device's Apple profile, or the page with the form's error (422).
        routes.get("profile") { request, context in
            let query = FormData(query: request.uri.query)
            let device = DeviceQuery(query) ?? DeviceQuery(FormData(query: "device="))!
            let server = DNSServerStatus.current(home: screen.state.home)
            let profile: AppleDNSProfile
            do {
                let plan = try plan(device, server: server)
                profile = try AppleDNSProfile(
                    device: plan.device, endpoint: plan.endpoint, transport: plan.transport, serverAddresses: plan.addresses,
                    rootCertificate: try plan.certificateAuthority.map { try AppleDNSProfile.RootCertificate(pem: $0) })
            } catch {
                return await dnsPage(request: request, context: context, device: device)
            }
            let data: Data
            do {
                data = try profile.propertyList()
            } catch {
                return failure(error, title: "DNS", request: request, context: context)
            }
            var headers = HTTPFields()
            headers[.contentType] = AppleDNSProfile.contentType
            headers[.contentDisposition] = "attachment; filename=\"\(profile.fileName)\""
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
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

    /// The DNS page; with the device form's addresses, or its error (status 422), when it was sent.
    private func dnsPage(request: Request, context: ConsoleContext, device: DeviceQuery? = nil) async -> Response {
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
        let asked = device ?? DeviceQuery(query)
        let away = away(asked, server: loaded.server)
        var notices: [Notice] = []
        if away.deviceError != nil || away.protocolError != nil {
            notices.append(.error("No profile was made: see the form below."))
        } else if asked != nil && !away.serving {
            notices.append(.error("No profile was made: \(away.notServing)"))
        }
        return renderer.page(
            .dns, title: "DNS", view: view(loaded, path: request.uri.description, away: away),
            chrome: chrome(request, context, notices: notices),
            status: .form(refused: !notices.isEmpty))
    }

    /// The plan for the device asked about, from the running server.
    private func plan(_ device: DeviceQuery, server: DNSServerStatus?) throws(DNSProfilePlan.Problem) -> DNSProfilePlan {
        let files = DNSCertificateFiles(home: screen.state.home)
        return try DNSProfilePlan.make(
            .init(device: device.device, transport: device.transport), server: server,
            homeCertificateAuthority: { files.certificateAuthority(forServer: $0)?.path })
    }

    /// The "away from home" section for `device` (nothing asked yet: the empty form).
    private func away(_ device: DeviceQuery?, server: DNSServerStatus?) -> Away {
        let served = server?.encrypted
        let chosen = device?.transport ?? (served.map { $0.httpsPort != nil ? .https : .tls } ?? .https)
        var away = Away(
            serving: served != nil,
            notServing: server == nil
                ? "pepper dns serve is not running. Start it with \(DNSProfilePlan.startFlags) to answer DNS over TLS and HTTPS; "
                    + "without a certificate from a public CA, make one first with pepper dns certificate --server-name HOST."
                : "pepper dns serve does not answer DNS over TLS or HTTPS. Restart it with \(DNSProfilePlan.startFlags); "
                    + "without a certificate from a public CA, make one first with pepper dns certificate --server-name HOST.",
            device: device?.device ?? "", protocols: [], addresses: nil)
        away.protocols = EncryptedDNSTransport.allCases.map {
            .init(value: $0.rawValue, label: $0.description, selected: $0 == chosen)
        }
        guard let device, served != nil else { return away }
        do {
            let plan = try plan(device, server: server)
            var note = "The profile sends this device's DNS to Pepper as \(plan.transport), on every network."
            if let authority = plan.certificateAuthority {
                let root = try AppleDNSProfile.RootCertificate(pem: authority)
                note +=
                    " It carries \(root.name), which issued the server's certificate: on the device, turn on full trust for it in Settings → General → About → Certificate Trust Settings."
            }
            var link = URLComponents()
            link.path = "/dns/profile"
            link.queryItems = [
                URLQueryItem(name: "device", value: plan.device.value), URLQueryItem(name: "protocol", value: plan.transport.rawValue),
            ]
            away.addresses = .init(
                device: plan.device.value, httpsURL: plan.httpsURL ?? "not served (--https-listen)",
                tlsName: plan.tlsServerName ?? "not served (--tls-listen)",
                android: plan.androidHostname.map {
                    plan.androidNeedsPublicCertificate ? "\($0) (with a certificate from a public CA)" : $0
                }
                    ?? "needs DNS over TLS on port 853",
                download: link.string ?? "/dns/profile", fileName: "\(plan.device.value).mobileconfig", note: note)
        } catch let problem as DNSProfilePlan.Problem {
            if problem.field == "device" { away.deviceError = problem.description } else { away.protocolError = problem.description }
        } catch {
            away.protocolError = "The private CA's certificate cannot be read (\(error)): run pepper dns certificate again."
        }
        return away
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

    private func view(_ loaded: DNSScreen.State, path: String, away: Away) -> DNSView {
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
            noGroups: server?.groupsFile == nil ? "The DNS filter runs without client groups (pepper dns serve --groups FILE)." : "",
            away: away)
    }
}
