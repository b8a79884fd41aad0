import PepperActions
import Picket
import Screens
import SwiftUI

/// Report a strike in the three steps of the OPL app — employer, action, optional location —
/// then review and submit. `StrikeReport` checks each step; the view only shows its fields
/// and errors.
struct StrikeReportView: View {
    @Environment(AppModel.self) private var model
    @State private var report = StrikeReport()

    var body: some View {
        Form {
            switch report.step {
            case .employer:
                field("Employer", \.employer.name, "employer.name")
                field("Industry", \.employer.industry, "employer.industry")
                field("Website", \.employer.website, "employer.website")
            case .action:
                field("Union or group", \.action.organization, "action.organization")
                Picker("Kind", selection: $report.action.actionType) {
                    ForEach(ActionType.allCases, id: \.rawValue) { Text($0.label).tag($0.rawValue) }
                }
                field("Where", \.action.location, "action.location")
                field("Starts (YYYY-MM-DD)", \.action.startDate, "action.startDate")
                field("Days", \.action.durationDays, "action.durationDays")
                field("What it is about", \.action.description, "action.description")
                field("Demands", \.action.demands, "action.demands")
            case .location:
                field("Address", \.place.address, "location.address")
                field("Latitude", \.place.latitude, "action.coordinates.latitude")
                field("Longitude", \.place.longitude, "action.coordinates.longitude")
                Button("Look the address up") { send { await StrikeReportScreen(state: $0).lookUp($1) } }
                if let found = report.place.found { Text(found).font(.footnote) }
            case .review:
                LabeledContent("Employer", value: report.employer.name)
                LabeledContent("Action", value: "\(ActionType.label(of: report.action.actionType)) by \(report.action.organization)")
                LabeledContent("Where", value: report.action.location)
                Button("Submit for moderation") { send { await StrikeReportScreen(state: $0).submit($1) } }
            case .submitted:
                Text(report.receipt.map { "\($0.message). Its number is \($0.id)." } ?? "Submitted.")
            }
            if report.step != .review, report.step != .submitted {
                Button("Next") { report.advance(from: report.step) }
            }
        }
        .navigationTitle(report.step.title)
    }

    private func field(_ title: String, _ path: WritableKeyPath<StrikeReport, String>, _ name: String) -> some View {
        VStack(alignment: .leading) {
            TextField(title, text: Binding(get: { report[keyPath: path] }, set: { report[keyPath: path] = $0 }))
            if let error = report.errors[name] { Text(error).font(.caption).foregroundStyle(.red) }
        }
    }

    private func send(_ action: @escaping @Sendable (PepperState, StrikeReport) async -> (Notice, StrikeReport)) {
        guard let pepper = model.pepper else { return }
        let draft = report
        Task {
            let (notice, updated) = await action(pepper, draft)
            model.notice = notice
            report = updated
        }
    }
}
