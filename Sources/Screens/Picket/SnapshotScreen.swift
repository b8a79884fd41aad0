import Foundation
import PepperActions
import Picket

/// A GPS snapshot as the person fills it in: which active strike, the point (the current
/// location, an address looked up, a pin on the map, or typed coordinates), the point's address
/// as a reverse lookup shows it, and notes.
///
/// The point goes through four stages (``GPSSnapshotDraft/stage``): none chosen; chosen, its address not shown
/// yet; its address shown; sent. ``SnapshotScreen`` moves it along, and sends only a point
/// whose address was shown — the person sees where the point is before it leaves.
public struct GPSSnapshotDraft: Sendable, Hashable {
    /// Where the draft is.
    public enum Stage: Sendable, Hashable {
        /// No point chosen yet.
        case noPoint
        /// A point chosen; its address not shown yet.
        case pointChosen
        /// The point's address is shown: the snapshot can be sent.
        case addressShown
        /// Sent: the server's receipt is in ``receipt``.
        case sent
    }

    /// The strike it is for.
    public var actionId = ""
    /// An address to look up (and sent with the snapshot when the point came from it).
    public var address = ""
    /// Latitude in degrees, as typed or found.
    public var latitude = ""
    /// Longitude in degrees, as typed or found.
    public var longitude = ""
    /// How the point was chosen.
    public var origin: PointOrigin?
    /// The point's address, as last looked up (for the point it was looked up for).
    public var shown: ShownAddress?
    /// Where the chosen strike is, when its place could be found: the map starts there.
    public var strikePlace: GeoCoordinate?
    /// Notes for the moderators.
    public var notes = ""
    /// Problems by field.
    public var errors: [String: String] = [:]
    /// The server's receipt, once submitted.
    public var receipt: SubmissionReceipt?

    /// An empty draft.
    public init() {}

    /// Fields as the API names them.
    public static let fields = ["actionId", "latitude", "longitude", "address", "notes"]

    /// The chosen point, when the coordinates are numbers in range.
    public var point: GeoCoordinate? { PlaceLookup.point(latitude: latitude, longitude: longitude) }

    /// Where the draft is.
    public var stage: Stage {
        if receipt != nil { return .sent }
        guard let point else { return .noPoint }
        return shown?.point == point ? .addressShown : .pointChosen
    }

    /// The address shown for the chosen point, if it is still the point chosen.
    public var shownForPoint: ShownAddress? { stage == .addressShown ? shown : nil }

    /// Chooses `point` (full precision: the person sends it on purpose), chosen as `origin`.
    public mutating func choose(_ point: GeoCoordinate, origin: PointOrigin) {
        latitude = PicketClient.format(point.latitude)
        longitude = PicketClient.format(point.longitude)
        self.origin = origin
        errors["latitude"] = nil
        errors["longitude"] = nil
        errors["address"] = nil
    }

    /// The region the map starts at: around the chosen point, else around the chosen strike
    /// (``strikePlace``), else around the person (`person`, when the app knows where they
    /// are); `nil` leaves the map where it is.
    public func startingRegion(person: GeoCoordinate?) -> MapRegion? {
        if let point { return MapRegion(center: point, spanMeters: MapRegion.pointSpan) }
        if !actionId.isEmpty, let strikePlace { return MapRegion(center: strikePlace, spanMeters: MapRegion.strikeSpan) }
        if let person { return MapRegion(center: person, spanMeters: MapRegion.personSpan) }
        return nil
    }

    /// The request, or `nil` with ``errors`` set when something is missing or wrong
    /// (`PicketReportRules`).
    public mutating func submission() -> GPSSnapshotSubmission? {
        errors = PicketReportRules.snapshot(actionId: actionId, address: address, notes: notes)
        if latitude.isBlank && longitude.isBlank {
            errors["address"] = errors["address"] ?? "Choose the place: your location, an address, the map, or coordinates."
        } else {
            let (_, problems) = PicketReportRules.coordinates(
                latitude: latitude, longitude: longitude, latitudeField: "latitude", longitudeField: "longitude")
            errors.merge(problems) { first, _ in first }
        }
        guard errors.isEmpty, let point else { return nil }
        // The address the person typed when the point came from it; else the one shown for
        // the point, which the person saw before sending.
        let sentAddress = origin == .address ? address.nonBlank : shownForPoint?.text
        return GPSSnapshotSubmission(
            actionId: actionId.trimmed, latitude: point.latitude, longitude: point.longitude, address: sentAddress, notes: notes.nonBlank)
    }
}

/// The GPS snapshot screen: the server's active strikes, choosing the point (an address looked up
/// on the device first, then by the server; the current location; a pin), showing its address
/// from the server's reverse geocoder, and sending it.
///
/// `device` is the face's own geocoder (`CLGeocoder` in the app; the console has none): see
/// `PlaceFinder` for the order.
public struct SnapshotScreen: Sendable {
    /// The state (for the server and key).
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// The server's active strikes, most recently started first.
    public func activeStrikes() async -> Result<[ActiveStrike], Notice> {
        switch PicketServerErrors.connection(state) {
        case .failure(let notice): return .failure(notice)
        case .success(let connection):
            do {
                return .success(try await connection.client().activeStrikes().strikes)
            } catch {
                return .failure(PicketServerErrors.notice(error))
            }
        }
    }

    /// Chooses the strike the snapshot is for, and looks its place up from its words (the
    /// device first, then the server) so the map can start there; a place not found leaves
    /// ``GPSSnapshotDraft/strikePlace`` empty, which is no error.
    public func chooseStrike(_ strike: ActiveStrike, _ draft: GPSSnapshotDraft, device: (any Geocoder)? = nil) async -> GPSSnapshotDraft {
        var draft = draft
        draft.actionId = strike.id
        draft.errors["actionId"] = nil
        draft.strikePlace = nil
        guard let words = strike.location?.nonBlank else { return draft }
        if let found = await PlaceLookup.finder(state, device: device).geocode(GeocodeRequest(address: words)).value {
            draft.strikePlace = GeoCoordinate(latitude: found.latitude, longitude: found.longitude)
        }
        return draft
    }

    /// Looks the draft's address up (the device first, then the server), chooses the point
    /// found, and shows its address.
    public func lookUp(_ draft: GPSSnapshotDraft, device: (any Geocoder)? = nil) async -> (Notice, GPSSnapshotDraft) {
        var draft = draft
        draft.errors = [:]
        let (notice, found) = await PlaceLookup.lookUp(draft.address, state: state, device: device, field: "address")
        guard let found else {
            if let field = notice.field { draft.errors[field] = notice.text }
            return (notice, draft)
        }
        draft.choose(GeoCoordinate(latitude: found.latitude, longitude: found.longitude), origin: .address)
        return await showAddress(draft, device: device)
    }

    /// Chooses `point` (the current location, a pin), then shows its address.
    public func choose(
        _ point: GeoCoordinate, origin: PointOrigin, _ draft: GPSSnapshotDraft, device: (any Geocoder)? = nil
    ) async -> (Notice, GPSSnapshotDraft) {
        guard point.isValid else { return (.error("That point is not on the Earth's map.", field: "latitude"), draft) }
        var draft = draft
        draft.choose(point, origin: origin)
        return await showAddress(draft, device: device)
    }

    /// Shows the address of the draft's point (the server's reverse geocoder first, then the
    /// device's).
    public func showAddress(_ draft: GPSSnapshotDraft, device: (any Geocoder)? = nil) async -> (Notice, GPSSnapshotDraft) {
        var draft = draft
        let (_, problems) = PicketReportRules.coordinates(
            latitude: draft.latitude, longitude: draft.longitude, latitudeField: "latitude", longitudeField: "longitude")
        guard let point = draft.point, problems.isEmpty else {
            draft.errors.merge(problems) { _, new in new }
            if problems.isEmpty { draft.errors["address"] = "Choose the place: your location, an address, the map, or coordinates." }
            return (.error("Choose the place first: see the form below."), draft)
        }
        switch await PlaceLookup.address(at: point, state: state, device: device) {
        case .success(let shown):
            draft.shown = shown
            return (Notice(.info, shown.text.map { "The point is at \($0). Check it, then send." } ?? shown.line), draft)
        case .failure(let notice):
            draft.shown = nil
            return (notice, draft)
        }
    }

    /// Sends the snapshot once the point's address was shown; a point whose address was not
    /// shown yet is looked up instead, and nothing is sent (the person checks it, then sends).
    /// The server's refusals go next to the fields they name.
    public func submit(_ draft: GPSSnapshotDraft, device: (any Geocoder)? = nil) async -> (Notice, GPSSnapshotDraft) {
        var draft = draft
        guard draft.submission() != nil else { return (.formProblems(draft.errors), draft) }
        if draft.stage == .pointChosen {
            var (notice, shown) = await showAddress(draft, device: device)
            if !notice.isError { notice = Notice(.warning, "Nothing was sent yet: " + notice.text) }
            return (notice, shown)
        }
        guard let submission = draft.submission() else { return (.formProblems(draft.errors), draft) }
        let connection: PicketConnection
        switch PicketServerErrors.connection(state) {
        case .success(let found): connection = found
        case .failure(let notice): return (notice, draft)
        }
        do {
            let receipt = try await connection.client().submit(submission)
            draft.receipt = receipt
            return (.success("\(receipt.message). Its number is \(receipt.id)."), draft)
        } catch {
            let notice = PicketServerErrors.notice(error, fields: GPSSnapshotDraft.fields)
            if let field = notice.field, field != "key" {
                draft.errors[field] = notice.text
                return (Notice(.error, "The server did not accept the snapshot: see the form below."), draft)
            }
            return (notice, draft)
        }
    }
}
