import Foundation
import PepperActions
import Picket

/// Looks addresses up and submits ``StrikeReport``s to the configured Picket server.
public struct StrikeReportScreen: Sendable {
    /// The state (for the server and key).
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Looks the report's address up through the server's geocode endpoint and fills in the
    /// coordinates it finds.
    public func lookUp(_ report: StrikeReport) async -> (Notice, StrikeReport) {
        var report = report
        report.step = .location
        report.errors = [:]
        let (notice, found) = await PlaceLookup.lookUp(report.place.address, state: state, field: "location.address")
        if let found {
            report.place.latitude = PicketClient.format(found.latitude)
            report.place.longitude = PicketClient.format(found.longitude)
            report.place.found = PlaceLookup.describe(found)
        } else if let field = notice.field {
            report.errors[field] = notice.text
        }
        return (notice, report)
    }

    /// Sends the report. On success the report is at ``StrikeReport/Step/submitted`` with the
    /// receipt; when the server refuses a field, the report goes back to that field's step
    /// with the server's words next to it.
    public func submit(_ report: StrikeReport) async -> (Notice, StrikeReport) {
        var report = report
        guard report.firstIncompleteStep() == nil, let submission = report.submission else {
            return (.error("Something is missing: see the form below.", field: report.errors.keys.sorted().first), report)
        }
        let connection: PicketConnection
        switch PicketServerErrors.connection(state) {
        case .success(let found): connection = found
        case .failure(let notice): return (notice, report)
        }
        do {
            let receipt = try await connection.client().submit(submission)
            report.receipt = receipt
            report.step = .submitted
            report.errors = [:]
            return (.success("\(receipt.message). Its number is \(receipt.id)."), report)
        } catch {
            let notice = PicketServerErrors.notice(error, fields: StrikeReport.fields)
            if let field = notice.field, field != "key" {
                report.errors[field] = notice.text
                report.step = StrikeReport.Step.of(field: field)
                return (Notice(.error, "The server did not accept the report: see the form below."), report)
            }
            report.step = .review
            return (notice, report)
        }
    }
}

/// Address lookups through the server's geocode endpoint, shared by the strike report and the
/// GPS snapshot.
enum PlaceLookup {
    static func lookUp(_ address: String, state: PepperState, field: String) async -> (Notice, GeocodeResult?) {
        let query = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else {
            return (.error("Type an address to look up, such as \"400 Pine St, Seattle, WA\".", field: field), nil)
        }
        let connection: PicketConnection
        switch PicketServerErrors.connection(state) {
        case .success(let found): connection = found
        case .failure(let notice): return (notice, nil)
        }
        do {
            let response = try await connection.client().geocode(GeocodeRequest(address: query))
            guard let result = response.result, response.success else {
                return (.error("The server found no place for \"\(query)\": try the city, or give coordinates.", field: field), nil)
            }
            return (.success("Found \(describe(result))."), result)
        } catch {
            var notice = PicketServerErrors.notice(error, fields: ["address"])
            if notice.field == "address" { notice.field = field }
            return (notice, nil)
        }
    }

    /// `Seattle, Washington, United States (47.6062, -122.3321; city centre)`.
    static func describe(_ result: GeocodeResult) -> String {
        var text = result.displayName ?? "the place"
        text += " (\(PicketClient.format(result.latitude)), \(PicketClient.format(result.longitude))"
        if let source = result.source, source.contains("city centre") { text += "; city centre" }
        return text + ")"
    }
}
