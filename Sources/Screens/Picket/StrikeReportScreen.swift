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

    /// Looks the report's address up (the device's geocoder first, then the server's
    /// `/api/mobile/geocode`: `PlaceFinder`) and fills in the coordinates it finds.
    public func lookUp(_ report: StrikeReport, device: (any Geocoder)? = nil) async -> (Notice, StrikeReport) {
        var report = report
        report.step = .location
        report.errors = [:]
        let (notice, found) = await PlaceLookup.lookUp(report.place.address, state: state, device: device, field: "location.address")
        if let found {
            report.place.choose(GeoCoordinate(latitude: found.latitude, longitude: found.longitude), origin: .address)
            report.place.found = PlaceLookup.describe(found)
        } else if let field = notice.field {
            report.errors[field] = notice.text
        }
        return (notice, report)
    }

    /// Step 3's "current location": the coordinates become `position` (as the device gave it:
    /// the person sends it on purpose), and the address there is shown (the server's
    /// `/api/mobile/reverse-geocode` first, then the device's); an address that cannot be found
    /// keeps the coordinates, with a warning.
    public func useCurrentLocation(
        _ report: StrikeReport, at position: GeoCoordinate, device: (any Geocoder)? = nil
    ) async -> (Notice, StrikeReport) {
        var report = report
        report.step = .location
        report.errors = [:]
        guard position.isValid else {
            return (.error("The device gave no usable position.", field: "action.coordinates.latitude"), report)
        }
        report.place.choose(position, origin: .currentLocation)
        switch await PlaceLookup.address(at: position, state: state, device: device) {
        case .success(let shown):
            report.place.found = shown.line
            return (.success("Your current location: \(shown.line)"), report)
        case .failure(let notice):
            return (Notice(.warning, "Your current location is set; its address could not be shown: " + notice.text), report)
        }
    }

    /// Sends the report. On success the report is at ``StrikeReport/Step/submitted`` with the
    /// receipt; when the server refuses a field, the report goes back to that field's step
    /// with the server's words next to it.
    public func submit(_ report: StrikeReport) async -> (Notice, StrikeReport) {
        var report = report
        guard report.firstIncompleteStep() == nil, let submission = report.submission else {
            return (.formProblems(report.errors), report)
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
