import CallFilter
import Foundation
import Hummingbird
import PepperActions
import Screens

/// Calls: the block list and labels (a number or `#` range is shown normalised before it is
/// saved), "block all except contacts" with the contacts import, "Try a number", what the call
/// directory holds and the counts.
struct CallsPage: ConsoleArea {
    static let path: RouterPath = "/calls"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState

    private struct CallsView {
        struct Row {
            var index: Int
            var shown: String
            var value: String
            var label: String?
        }
        struct Preview {
            var normalized: String
            var value: String
            var numbers: String
            var isRange: Bool
            var first: String
            var last: String
        }
        struct Trial {
            var e164: String
            var action: String
            var explanation: String
        }
        struct Region {
            var code: String
            var selected: Bool
        }
        var region: String
        var regions: [Region]
        var number: String
        var numberError: String?
        var labelError: String?
        var preview: Preview?
        var label: String
        var blocked: [Row]
        var identified: [Row]
        var notShown: String?
        var blockAll: Bool
        var contacts: String
        var contactsError: String?
        var note: String
        var exportBlocking: String
        var exportIdentification: String
        var exportVersion: String
        var exportSince: String
        var counts: [CountRow]
        var tryNumber: String
        var tryError: String?
        var trial: Trial?
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = CallsScreen(state: state)
        routes.get { request, context in
            await callsPage(screen, request: request, context: context)
        }
        routes.post("block") { request, context in
            let fields = form(context)
            let notice = await screen.block(fields["number"] ?? "")
            guard notice.isError else { return redirect("/calls", notice, context: context) }
            return await callsPage(screen, request: request, context: context, notice: notice, number: fields["number"])
        }
        routes.post("unblock") { _, context in
            redirect("/calls", await screen.unblock(form(context)["number"] ?? ""), context: context)
        }
        routes.post("identify") { request, context in
            let fields = form(context)
            let notice = await screen.identify(fields["number"] ?? "", label: fields["label"] ?? "")
            guard notice.isError else { return redirect("/calls", notice, context: context) }
            return await callsPage(
                screen, request: request, context: context, notice: notice, number: fields["typed"] ?? fields["number"],
                label: fields["label"])
        }
        routes.post("unidentify") { _, context in
            redirect("/calls", await screen.unidentify(form(context)["number"] ?? ""), context: context)
        }
        routes.post("region") { request, context in
            let notice = await screen.setRegion(form(context)["region"] ?? "")
            guard notice.isError else { return redirect("/calls", notice, context: context) }
            return await callsPage(screen, request: request, context: context, notice: notice)
        }
        routes.post("block-all-except-contacts") { _, context in
            redirect("/calls", await screen.setBlockAllExceptContacts(form(context)["on"] == "1"), context: context)
        }
        routes.post("contacts") { request, context in
            guard let file = form(context).files["vcard"], !file.data.isEmpty else {
                return await callsPage(
                    screen, request: request, context: context,
                    notice: .error("Choose a contacts file (.vcf) to import.", field: "contacts"))
            }
            let notice = await screen.importContacts(vCard: String(decoding: file.data, as: UTF8.self))
            guard notice.isError else { return redirect("/calls", notice, context: context) }
            return await callsPage(screen, request: request, context: context, notice: notice)
        }
        return routes
    }

    private func callsPage(
        _ screen: CallsScreen, request: Request, context: ConsoleContext, notice: Notice? = nil, number: String? = nil,
        label: String? = nil
    ) async -> Response {
        let loaded: CallsScreen.State
        do {
            loaded = try await screen.load()
        } catch {
            return failure(error, title: "Calls", request: request, context: context)
        }
        let query = FormData(query: request.uri.query)
        let typed = number ?? query["number"] ?? ""
        var preview: CallsView.Preview?
        var previewError: Notice?
        if notice == nil, !typed.isEmpty {
            switch await screen.preview(typed) {
            case .success(let found):
                preview = .init(
                    normalized: found.normalized, value: found.value, numbers: Format.count(found.numbers), isRange: found.numbers > 1,
                    first: found.first, last: found.last)
            case .failure(let error):
                previewError = error
            }
        }
        let tryNumber = query["try"] ?? ""
        var trial: CallsView.Trial?
        var tryError: Notice?
        if !tryNumber.isEmpty {
            switch await screen.tryCall(tryNumber) {
            case .success(let result): trial = .init(e164: result.e164, action: result.action, explanation: result.explanation)
            case .failure(let error): tryError = error
            }
        }
        let fieldError = notice ?? previewError
        let rows = { (entries: [CallsScreen.Entry]) in
            entries.enumerated().map {
                CallsView.Row(index: $0.offset, shown: $0.element.shown, value: $0.element.value, label: $0.element.label)
            }
        }
        let export = loaded.export
        let view = CallsView(
            region: loaded.region, regions: loaded.regions.map { .init(code: $0, selected: $0 == loaded.region) }, number: typed,
            numberError: ["number", "identify-number", "region"].contains(fieldError?.field ?? "") ? fieldError?.text : nil,
            labelError: fieldError?.field == "label" ? fieldError?.text : nil, preview: preview, label: label ?? "",
            blocked: rows(loaded.blocked), identified: rows(loaded.identified),
            notShown: loaded.notShown > 0 ? "\(Format.count(loaded.notShown)) more lines: pepper calls list shows them all." : nil,
            blockAll: loaded.blockAllExceptContacts, contacts: Format.count(loaded.contacts),
            contactsError: notice?.field == "contacts" ? notice?.text : nil, note: CallsScreen.blockAllExceptContactsNote,
            exportBlocking: Format.count(export.blocking), exportIdentification: Format.count(export.identification),
            exportVersion: String(export.version), exportSince: String(export.incrementalSince), counts: CountRow.rows(loaded.counts),
            tryNumber: tryNumber, tryError: tryError?.text, trial: trial)
        var notices: [Notice] = []
        if let notice { notices.append(notice.banner("Nothing was saved")) }
        let failed = notice?.isError == true || previewError != nil || tryError != nil
        return renderer.page(
            .calls, title: "Calls", view: view, chrome: chrome(request, context, notices: notices),
            status: .form(refused: failed))
    }
}
