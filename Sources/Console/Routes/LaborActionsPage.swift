import Foundation
import Hummingbird
import PepperActions
import Picket
import Screens

/// Labor actions, the person's side of the Online Picket Line: the server and key, the policy
/// for struck employers' sites, the Picket lists in force; "Report a strike" in three steps;
/// "GPS snapshot" for an active strike.
struct LaborActionsPage: ConsoleArea {
    static let path: RouterPath = "/picket"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState

    /// One form field, rendered by the `field` part of the report and snapshot templates.
    struct FieldView {
        struct Option {
            var value: String
            var label: String
            var selected: Bool
        }
        var id: String
        var name: String
        var label: String
        var value: String
        var error: String?
        var hint: String?
        var type = "text"
        var required = false
        var isTextArea = false
        var options: [Option]? = nil
        var inputMode: String? = nil
        /// Whether it is a choice (``options``); stored, as templates read stored properties only.
        var isSelect = false
        /// `employer.name` → `employer-name`: an id without dots.
        static func id(_ name: String) -> String { name.replacingOccurrences(of: ".", with: "-") }
    }

    private struct LaborView {
        struct Source {
            var name: String
            var location: String
            var state: String
        }
        struct Policy {
            var value: String
            var text: String
            var checked: Bool
        }
        var address: String
        var hasServer: Bool
        var maskedKey: String?
        var serverError: String?
        var keyError: String?
        var policies: [Policy]
        var sources: [Source]
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = LaborActionsScreen(state: state)
        routes.get { request, context in
            await laborPage(screen, request: request, context: context)
        }
        routes.post("server") { request, context in
            let fields = form(context)
            let notice = await screen.setServer(address: fields["server"] ?? "", key: fields["key"] ?? "")
            guard notice.isError else { return redirect("/picket", notice, context: context) }
            return await laborPage(screen, request: request, context: context, notice: notice, address: fields["server"])
        }
        routes.post("server/forget") { _, context in
            redirect("/picket", await screen.forgetServer(), context: context)
        }
        routes.post("policy") { _, context in
            redirect("/picket", await screen.setPolicy(form(context)["policy"] ?? ""), context: context)
        }
        routes.post("blocklist") { _, context in
            redirect("/picket", await screen.useServerBlocklist(), context: context)
        }
        addStrikeReport(to: routes)
        addSnapshot(to: routes)
        return routes
    }

    private func laborPage(
        _ screen: LaborActionsScreen, request: Request, context: ConsoleContext, notice: Notice? = nil, address: String? = nil
    ) async -> Response {
        let loaded: LaborActionsScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Labor actions", request: request, context: context)
        }
        let view = LaborView(
            address: address ?? loaded.server?.address ?? "", hasServer: loaded.server != nil, maskedKey: loaded.server?.maskedKey,
            serverError: notice?.field == "server" ? notice?.text : nil, keyError: notice?.field == "key" ? notice?.text : nil,
            policies: LaborActionsScreen.policyExplanations.map {
                .init(value: $0.policy.rawValue, text: $0.text, checked: $0.policy == loaded.policy)
            },
            sources: loaded.sources.map { source in
                .init(
                    name: source.name, location: source.location,
                    state: (source.enabled ? "in force" : "disabled")
                        + (source.lastError.map { "; last update failed: \($0)" } ?? source.lastSuccess.map {
                            "; updated \(Format.date($0))"
                        } ?? ""))
            })
        var notices: [Notice] = []
        if let notice { notices.append(notice.banner("Nothing was saved")) }
        return renderer.page(
            .picket, title: "Labor actions", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: notice?.isError == true))
    }

    // MARK: Report a strike

    private struct ReportView {
        struct Step {
            var title: String
            var current: Bool
            var done: Bool
        }
        struct Fact {
            var label: String
            var value: String
        }
        var steps: [Step]
        var step: String
        var isEmployer: Bool
        var isAction: Bool
        var isLocation: Bool
        var isReview: Bool
        var isSubmitted: Bool
        var fields: [FieldView]
        var found: String?
        var review: [Fact]
        var receipt: String?
        var hasServer: Bool
    }

    private func addStrikeReport(to routes: RouteCollection<ConsoleContext>) {
        let screen = StrikeReportScreen(state: state)
        routes.get("report") { request, context in
            reportPage(report(context), request: request, context: context)
        }
        routes.post("report/step") { request, context in
            let fields = form(context)
            var report = report(context)
            guard let step = StrikeReport.Step(rawValue: fields["step"] ?? ""), step != .submitted, report.step != .submitted else {
                return redirect("/picket/report", nil, context: context)
            }
            Self.read(fields, into: &report, step: step)
            var notice: Notice?
            switch fields["go"] ?? "next" {
            case "back":
                report.errors = [:]
                report.step = StrikeReport.Step.allCases[max(0, (StrikeReport.Step.allCases.firstIndex(of: step) ?? 0) - 1)]
            case "lookup":
                (notice, report) = await screen.lookUp(report)
            case "here":
                // The browser's position, sent by the page's script ("Use my current location").
                guard let here = Self.position(fields) else {
                    notice = Notice(.error, "Your browser sent no position: look an address up, or type the coordinates.")
                    break
                }
                (notice, report) = await screen.useCurrentLocation(report, at: here)
            default:
                if !report.advance(from: step) { notice = .formProblems(report.errors) }
            }
            keep(report, at: \.strikeReport, context)
            // A place found shows beside the address; only a failed lookup, or an address that
            // could not be shown, needs a notice.
            guard notice?.isError == true || notice?.kind == .warning else { return redirect("/picket/report", nil, context: context) }
            return reportPage(report, request: request, context: context, notice: notice)
        }
        routes.post("report/edit") { _, context in
            var report = report(context)
            if report.step != .submitted, let step = StrikeReport.Step(rawValue: form(context)["step"] ?? ""), step != .submitted {
                report.step = step
                report.errors = [:]
                keep(report, at: \.strikeReport, context)
            }
            return redirect("/picket/report", nil, context: context)
        }
        routes.post("report/submit") { request, context in
            let (notice, report) = await screen.submit(report(context))
            keep(report, at: \.strikeReport, context)
            // Once sent, the page shows the receipt itself.
            guard notice.isError else { return redirect("/picket/report", nil, context: context) }
            return reportPage(report, request: request, context: context, notice: notice)
        }
        routes.post("report/restart") { _, context in
            keep(StrikeReport(), at: \.strikeReport, context)
            return redirect("/picket/report", nil, context: context)
        }
    }

    private func report(_ context: ConsoleContext) -> StrikeReport {
        context.session.flatMap { sessions.kept(\.strikeReport, for: $0.id) } ?? StrikeReport()
    }

    private func keep<Value: Sendable>(_ value: Value, at slot: WritableKeyPath<SessionDrafts, Value?>, _ context: ConsoleContext) {
        if let session = context.session { sessions.keep(value, at: slot, for: session.id) }
    }

    /// Copies the submitted fields of `step` into `report` (every step's fields are in its form).
    private static func read(_ fields: FormData, into report: inout StrikeReport, step: StrikeReport.Step) {
        func value(_ name: String) -> String { fields[name] ?? "" }
        switch step {
        case .employer:
            report.employer.name = value("employer.name")
            report.employer.industry = value("employer.industry")
            report.employer.website = value("employer.website")
        case .action:
            report.action.organization = value("action.organization")
            report.action.actionType = value("action.actionType")
            report.action.location = value("action.location")
            report.action.startDate = value("action.startDate")
            report.action.durationDays = value("action.durationDays")
            report.action.description = value("action.description")
            report.action.demands = value("action.demands")
            report.action.contactInfo = value("action.contactInfo")
            report.action.learnMoreUrl = value("action.learnMoreUrl")
        case .location:
            let address = value("location.address")
            let latitude = value("action.coordinates.latitude")
            let longitude = value("action.coordinates.longitude")
            if address != report.place.address && report.place.origin == .address { report.place.found = nil }
            if latitude != report.place.latitude || longitude != report.place.longitude {
                report.place.found = nil
                report.place.origin = latitude.isEmpty && longitude.isEmpty ? nil : .typed
            }
            report.place.address = address
            report.place.latitude = latitude
            report.place.longitude = longitude
        case .review, .submitted:
            break
        }
    }

    private func reportPage(_ report: StrikeReport, request: Request, context: ConsoleContext, notice: Notice? = nil) -> Response {
        func field(
            _ name: String, _ label: String, _ value: String, required: Bool = false, type: String = "text", hint: String? = nil,
            textArea: Bool = false, options: [FieldView.Option]? = nil
        ) -> FieldView {
            FieldView(
                id: FieldView.id(name), name: name, label: label + (required ? "" : " (optional)"), value: value,
                error: report.errors[name],
                hint: hint, type: type, required: required, isTextArea: textArea, options: options, isSelect: options != nil)
        }
        var fields: [FieldView] = []
        switch report.step {
        case .employer:
            fields = [
                field("employer.name", "Employer", report.employer.name, required: true),
                field("employer.industry", "Industry", report.employer.industry),
                field(
                    "employer.website", "Website", report.employer.website, type: "url",
                    hint: "Its address joins the blocklist if the report is approved."),
            ]
        case .action:
            let types = ActionType.allCases.map {
                FieldView.Option(value: $0.rawValue, label: $0.label, selected: $0.rawValue == report.action.actionType)
            }
            fields = [
                field("action.organization", "Union or group", report.action.organization, required: true),
                field("action.actionType", "Kind of action", report.action.actionType, required: true, options: types),
                field("action.location", "Where", report.action.location, required: true, hint: "Such as the store and its city."),
                field("action.startDate", "Starts on", report.action.startDate, required: true, type: "date"),
                field(
                    "action.durationDays", "Lasts (days)", report.action.durationDays, type: "number", hint: "Leave empty when not known."),
                field("action.description", "What it is about", report.action.description, required: true, textArea: true),
                field("action.demands", "Demands", report.action.demands, textArea: true),
                field("action.contactInfo", "Contact", report.action.contactInfo, hint: "Seen only by the moderators."),
                field("action.learnMoreUrl", "Learn more at", report.action.learnMoreUrl, type: "url"),
            ]
        case .location:
            fields = [
                field("location.address", "Address to look up", report.place.address, hint: "Looked up by the Picket server."),
                field("action.coordinates.latitude", "Latitude", report.place.latitude, hint: "Or type the coordinates."),
                field("action.coordinates.longitude", "Longitude", report.place.longitude),
            ]
        case .review, .submitted:
            break
        }
        for index in fields.indices where fields[index].type == "number" || fields[index].name.hasPrefix("action.coordinates") {
            fields[index].inputMode = "decimal"
        }
        let place =
            report.place.found
            ?? ([report.place.latitude, report.place.longitude].allSatisfy { !$0.isEmpty }
                ? "\(report.place.latitude), \(report.place.longitude)" : "not given")
        let review: [ReportView.Fact] = [
            .init(label: "Employer", value: report.employer.name), .init(label: "Industry", value: report.employer.industry),
            .init(label: "Website", value: report.employer.website), .init(label: "Union or group", value: report.action.organization),
            .init(label: "Kind", value: ActionType.label(of: report.action.actionType)),
            .init(label: "Where", value: report.action.location),
            .init(label: "Starts on", value: report.action.startDate), .init(label: "Lasts (days)", value: report.action.durationDays),
            .init(label: "What it is about", value: report.action.description), .init(label: "Demands", value: report.action.demands),
            .init(label: "Contact", value: report.action.contactInfo), .init(label: "Learn more at", value: report.action.learnMoreUrl),
            .init(label: "Location", value: place),
        ].filter { !$0.value.isEmpty }
        let order = StrikeReport.Step.allCases
        let current = order.firstIndex(of: report.step) ?? 0
        let view = ReportView(
            steps: order.dropLast().enumerated().map {
                .init(title: $0.element.title, current: $0.offset == current, done: $0.offset < current)
            },
            step: report.step.rawValue, isEmployer: report.step == .employer, isAction: report.step == .action,
            isLocation: report.step == .location, isReview: report.step == .review, isSubmitted: report.step == .submitted, fields: fields,
            found: report.place.found, review: review, receipt: report.receipt.map { "\($0.message) (\($0.id))." },
            hasServer: (try? state.picketConnection()) != nil)
        return renderer.page(
            .report, title: "Report a strike", view: view, chrome: chrome(request, context, notices: notice.map { [$0] } ?? []),
            status: .form(refused: notice?.isError == true))
    }

    // MARK: GPS snapshot

    private struct SnapshotView {
        struct Strike {
            var id: String
            var title: String
            var detail: String
            var checked: Bool
        }
        var strikes: [Strike]
        var strikesProblem: String?
        var actionError: String?
        var fields: [FieldView]
        /// The chosen point's address, once shown (the snapshot can then be sent).
        var shown: String?
        /// A point is chosen but its address not shown yet.
        var pointNotShown: Bool
        var receipt: String?
        var hasServer: Bool
    }

    /// The position the page's script sent (`here.latitude`, `here.longitude`), when both are
    /// numbers on the Earth.
    static func position(_ fields: FormData) -> GeoCoordinate? {
        guard let latitude = fields["here.latitude"].flatMap(Double.init), let longitude = fields["here.longitude"].flatMap(Double.init)
        else { return nil }
        let point = GeoCoordinate(latitude: latitude, longitude: longitude)
        return point.isValid ? point : nil
    }

    private func addSnapshot(to routes: RouteCollection<ConsoleContext>) {
        let screen = SnapshotScreen(state: state)
        routes.get("snapshot") { request, context in
            await snapshotPage(screen, snapshot(context), request: request, context: context)
        }
        routes.post("snapshot") { request, context in
            let fields = form(context)
            var draft = snapshot(context)
            if draft.receipt != nil { draft = GPSSnapshotDraft() }
            let latitude = fields["latitude"] ?? ""
            let longitude = fields["longitude"] ?? ""
            if latitude != draft.latitude || longitude != draft.longitude { draft.origin = .typed }
            draft.actionId = fields["actionId"] ?? ""
            draft.address = fields["address"] ?? ""
            draft.latitude = latitude
            draft.longitude = longitude
            draft.notes = fields["notes"] ?? ""
            var notice: Notice
            switch fields["go"] ?? "submit" {
            case "lookup":
                (notice, draft) = await screen.lookUp(draft)
            case "show":
                (notice, draft) = await screen.showAddress(draft)
            case "here":
                if let here = Self.position(fields) {
                    (notice, draft) = await screen.choose(here, origin: .currentLocation, draft)
                } else {
                    notice = Notice(.error, "Your browser sent no position: look an address up, or type the coordinates.")
                }
            default:
                (notice, draft) = await screen.submit(draft)
            }
            keep(draft, at: \.snapshot, context)
            // A point's address shows beside the form, a sent snapshot its receipt: only what
            // went wrong, or was not sent, needs a notice.
            guard notice.isError || notice.kind == .warning else { return redirect("/picket/snapshot", nil, context: context) }
            return await snapshotPage(screen, draft, request: request, context: context, notice: notice)
        }
        routes.post("snapshot/new") { _, context in
            keep(GPSSnapshotDraft(), at: \.snapshot, context)
            return redirect("/picket/snapshot", nil, context: context)
        }
    }

    private func snapshot(_ context: ConsoleContext) -> GPSSnapshotDraft {
        context.session.flatMap { sessions.kept(\.snapshot, for: $0.id) } ?? GPSSnapshotDraft()
    }

    private func snapshotPage(
        _ screen: SnapshotScreen, _ draft: GPSSnapshotDraft, request: Request, context: ConsoleContext, notice: Notice? = nil
    ) async -> Response {
        let hasServer = (try? state.picketConnection()) != nil
        var strikes: [SnapshotView.Strike] = []
        var problem: String?
        if hasServer, draft.receipt == nil {
            switch await screen.activeStrikes() {
            case .success(let found):
                strikes = found.map { strike in
                    .init(
                        id: strike.id, title: "\(strike.employerName) — \(ActionType.noun(of: strike.actionType))",
                        detail: [strike.organization, strike.location].compactMap { $0 }.joined(separator: ", "),
                        checked: strike.id == draft.actionId)
                }
                if strikes.isEmpty { problem = "The server has no active strike right now." }
            case .failure(let error):
                problem = error.text
            }
        }
        func field(_ name: String, _ label: String, _ value: String, hint: String? = nil, textArea: Bool = false) -> FieldView {
            FieldView(
                id: "snapshot-" + name, name: name, label: label, value: value, error: draft.errors[name], hint: hint, isTextArea: textArea,
                inputMode: name == "latitude" || name == "longitude" ? "decimal" : nil)
        }
        let view = SnapshotView(
            strikes: strikes, strikesProblem: problem, actionError: draft.errors["actionId"],
            fields: [
                field("address", "Address (looked up by the server)", draft.address),
                field("latitude", "Latitude", draft.latitude, hint: "Or type the coordinates, then show their address."),
                field("longitude", "Longitude", draft.longitude),
                field("notes", "Notes for the moderators (optional)", draft.notes, textArea: true),
            ], shown: draft.shownForPoint?.line, pointNotShown: draft.stage == .pointChosen,
            receipt: draft.receipt.map { "\($0.message) (\($0.id))." }, hasServer: hasServer)
        return renderer.page(
            .snapshot, title: "GPS snapshot", view: view, chrome: chrome(request, context, notices: notice.map { [$0] } ?? []),
            status: .form(refused: notice?.isError == true))
    }
}
