import Foundation
import PepperActions
import Picket

/// A GPS snapshot as the person fills it in: which active strike, where (an address looked up
/// through the server, or coordinates), and notes.
public struct GPSSnapshotDraft: Sendable, Hashable {
    /// The strike it is for.
    public var actionId = ""
    /// An address to look up, and sent with the snapshot.
    public var address = ""
    /// Latitude in degrees, as typed or found.
    public var latitude = ""
    /// Longitude in degrees, as typed or found.
    public var longitude = ""
    /// What the lookup found.
    public var found: String?
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

    /// The request, or `nil` with ``errors`` set when something is missing.
    public mutating func submission() -> GPSSnapshotSubmission? {
        errors = [:]
        if actionId.isBlank { errors["actionId"] = "Choose the strike the snapshot is for." }
        let latitude = Double(self.latitude.trimmed)
        let longitude = Double(self.longitude.trimmed)
        if latitude == nil || longitude == nil {
            if self.latitude.isBlank && self.longitude.isBlank {
                errors["address"] = "Look an address up, or give coordinates."
            } else {
                if latitude == nil { errors["latitude"] = "A latitude is a number such as 47.6062." }
                if longitude == nil { errors["longitude"] = "A longitude is a number such as -122.3321." }
            }
        }
        guard errors.isEmpty, let latitude, let longitude else { return nil }
        return GPSSnapshotSubmission(
            actionId: actionId.trimmed, latitude: latitude, longitude: longitude, address: address.nonBlank, notes: notes.nonBlank)
    }
}

/// The GPS snapshot screen: the server's active strikes, an address lookup, and submitting.
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

    /// Looks the draft's address up and fills in its coordinates.
    public func lookUp(_ draft: GPSSnapshotDraft) async -> (Notice, GPSSnapshotDraft) {
        var draft = draft
        draft.errors = [:]
        let (notice, found) = await PlaceLookup.lookUp(draft.address, state: state, field: "address")
        if let found {
            draft.latitude = PicketClient.format(found.latitude)
            draft.longitude = PicketClient.format(found.longitude)
            draft.found = PlaceLookup.describe(found)
        } else if let field = notice.field {
            draft.errors[field] = notice.text
        }
        return (notice, draft)
    }

    /// Sends the snapshot; the server's refusals go next to the fields they name.
    public func submit(_ draft: GPSSnapshotDraft) async -> (Notice, GPSSnapshotDraft) {
        var draft = draft
        guard let submission = draft.submission() else { return (.error("Something is missing: see the form below."), draft) }
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
