import PepperActions
import Picket
import Screens
import SwiftUI

/// Report a strike in the three steps of design 003 — the employer (name, industry, website),
/// the action (organisation, kind, place, start, days, description, demands, contact, where to
/// learn more), the location (the current location, an address looked up on the device first and
/// then by the server, or coordinates) — then review and submit. `StrikeReport` checks each step
/// with the rules every face shares (`PicketReportRules`); the view only shows its fields and
/// errors.
struct StrikeReportView: View {
    @Environment(AppModel.self) private var model
    @State private var report = StrikeReport()
    @State private var locator = OneLocation()
    @State private var busy = false

    var body: some View {
        Form {
            switch report.step {
            case .employer:
                field("Employer", \.employer.name, "employer.name")
                field("Industry (optional)", \.employer.industry, "employer.industry")
                field("Website (optional)", \.employer.website, "employer.website")
            case .action:
                field("Union or group", \.action.organization, "action.organization")
                Picker("Kind", selection: $report.action.actionType) {
                    ForEach(ActionType.allCases, id: \.rawValue) { Text($0.label).tag($0.rawValue) }
                }
                field("Where", \.action.location, "action.location")
                field("Starts (YYYY-MM-DD)", \.action.startDate, "action.startDate")
                field("Days (optional)", \.action.durationDays, "action.durationDays")
                field("What it is about", \.action.description, "action.description", long: true)
                field("Demands (optional)", \.action.demands, "action.demands", long: true)
                field("Contact for the organisers (optional)", \.action.contactInfo, "action.contactInfo")
                field("Learn more at (optional)", \.action.learnMoreUrl, "action.learnMoreUrl")
            case .location:
                Button("Use my current location") {
                    Task {
                        guard let here = await locator.current() else {
                            model.notice = .error("Your position is not available: allow location for Pepper, or give an address.")
                            return
                        }
                        send { screen, report in await screen.useCurrentLocation(report, at: here, device: DeviceGeocoder()) }
                    }
                }
                field("Address", \.place.address, "location.address")
                Button("Look the address up") { send { screen, report in await screen.lookUp(report, device: DeviceGeocoder()) } }
                field("Latitude", \.place.latitude, "action.coordinates.latitude")
                field("Longitude", \.place.longitude, "action.coordinates.longitude")
                if busy { ProgressView() }
                if let found = report.place.found { Text(found).font(.footnote) }
            case .review:
                LabeledContent("Employer", value: report.employer.name)
                fact("Industry", report.employer.industry)
                fact("Website", report.employer.website)
                LabeledContent("Action", value: "\(ActionType.label(of: report.action.actionType)) by \(report.action.organization)")
                LabeledContent("Where", value: report.action.location)
                LabeledContent("Starts", value: report.action.startDate)
                fact("Days", report.action.durationDays)
                fact("About", report.action.description)
                fact("Demands", report.action.demands)
                fact("Contact", report.action.contactInfo)
                fact("Learn more at", report.action.learnMoreUrl)
                fact(
                    "Location",
                    report.place.found ?? [report.place.latitude, report.place.longitude].filter { !$0.isEmpty }.joined(separator: ", "))
                Button("Submit for moderation") { send { screen, report in await screen.submit(report) } }
            case .submitted:
                Text(report.receipt.map { "\($0.message). Its number is \($0.id)." } ?? "Submitted.")
            }
            if report.step != .review, report.step != .submitted {
                Button("Next") { report.advance(from: report.step) }
            }
        }
        .navigationTitle(report.step.title)
    }

    @ViewBuilder private func fact(_ label: String, _ value: String) -> some View {
        if !value.isEmpty { LabeledContent(label, value: value) }
    }

    private func field(
        _ title: String, _ path: WritableKeyPath<StrikeReport, String>, _ name: String, long: Bool = false
    ) -> some View {
        VStack(alignment: .leading) {
            TextField(
                title, text: Binding(get: { report[keyPath: path] }, set: { report[keyPath: path] = $0 }),
                axis: long ? .vertical : .horizontal)
            if let error = report.errors[name] { Text(error).font(.caption).foregroundStyle(.red) }
        }
    }

    private func send(_ action: @escaping @Sendable (StrikeReportScreen, StrikeReport) async -> (Notice, StrikeReport)) {
        guard let pepper = model.pepper else { return }
        let draft = report
        busy = true
        Task {
            let (notice, updated) = await action(StrikeReportScreen(state: pepper), draft)
            model.notice = notice
            report = updated
            busy = false
        }
    }
}
