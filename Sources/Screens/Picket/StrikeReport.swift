import Foundation
import Picket

/// A strike report as a person fills it in, in the three steps of the OPL app — employer,
/// action, optional location — then review and submit. A value: the console keeps one per
/// session, the app one per sheet; ``StrikeReportScreen`` looks addresses up and submits it.
///
/// Fields are named by their paths in the API (`employer.name`, `action.startDate`), so the
/// server's validation errors, which name those paths, land next to the field they are about.
public struct StrikeReport: Sendable, Hashable {
    /// The steps, in order.
    public enum Step: String, Sendable, Hashable, CaseIterable {
        /// Who is struck.
        case employer
        /// The action.
        case action
        /// Where (optional).
        case location
        /// Everything once more before submitting.
        case review
        /// Sent: waiting for a moderator.
        case submitted

        /// The step's title.
        public var title: String {
            switch self {
            case .employer: "Employer"
            case .action: "The action"
            case .location: "Location (optional)"
            case .review: "Review and submit"
            case .submitted: "Submitted"
            }
        }

        /// The step a field belongs to.
        static func of(field: String) -> Step {
            if field.hasPrefix("employer.") { return .employer }
            if field.hasPrefix("action.coordinates") || field.hasPrefix("location.") { return .location }
            return .action
        }
    }

    /// Step 1: the employer.
    public struct Employer: Sendable, Hashable {
        /// Its name (required).
        public var name = ""
        /// Its industry.
        public var industry = ""
        /// Its website; its host joins the blocklist when the report is approved.
        public var website = ""
    }

    /// Step 2: the action.
    public struct Action: Sendable, Hashable {
        /// The union or group (required).
        public var organization = ""
        /// `strike`, `boycott`, `picket`, `protest` or `other`.
        public var actionType = ActionType.strike.rawValue
        /// Where, in words (required).
        public var location = ""
        /// `YYYY-MM-DD` (required).
        public var startDate = ""
        /// Days, empty when not known.
        public var durationDays = ""
        /// What it is about (required).
        public var description = ""
        /// The workers' demands.
        public var demands = ""
        /// How to reach the organisers.
        public var contactInfo = ""
        /// Where to learn more.
        public var learnMoreUrl = ""
    }

    /// Step 3: where, by address (looked up on the server) or coordinates.
    public struct Place: Sendable, Hashable {
        /// An address to look up.
        public var address = ""
        /// Latitude in degrees, as typed or found.
        public var latitude = ""
        /// Longitude in degrees, as typed or found.
        public var longitude = ""
        /// What the lookup found (`Seattle, Washington, United States`), with its precision.
        public var found: String?
    }

    /// The step shown.
    public var step: Step = .employer
    /// Step 1.
    public var employer = Employer()
    /// Step 2.
    public var action = Action()
    /// Step 3.
    public var place = Place()
    /// Problems by field path, shown next to the fields.
    public var errors: [String: String] = [:]
    /// The server's receipt, once submitted.
    public var receipt: SubmissionReceipt?

    /// An empty report at the first step.
    public init() {}

    /// Every field path, for mapping the server's errors.
    public static let fields = [
        "employer.name", "employer.industry", "employer.website", "action.organization", "action.actionType", "action.location",
        "action.startDate", "action.durationDays", "action.description", "action.demands", "action.contactInfo", "action.learnMoreUrl",
        "action.coordinates", "action.coordinates.latitude", "action.coordinates.longitude", "location.address",
    ]

    /// Checks the fields of `step` that must be there for the report to be sent; on success
    /// moves to the next step.
    @discardableResult
    public mutating func advance(from step: Step) -> Bool {
        errors = [:]
        switch step {
        case .employer:
            if employer.name.isBlank { errors["employer.name"] = "Give the employer's name." }
        case .action:
            if action.organization.isBlank { errors["action.organization"] = "Give the union or group organising it." }
            if ActionType(rawValue: action.actionType) == nil { errors["action.actionType"] = "Choose the kind of action." }
            if action.location.isBlank { errors["action.location"] = "Say where it happens, such as a store and its city." }
            if action.startDate.isBlank { errors["action.startDate"] = "Give the day it starts." }
            if !action.durationDays.isBlank, Int(action.durationDays.trimmed).map({ $0 >= 0 }) != true {
                errors["action.durationDays"] = "Give the number of days, or leave it empty."
            }
            if action.description.isBlank { errors["action.description"] = "Say what the action is about." }
        case .location:
            let hasLatitude = !place.latitude.isBlank
            let hasLongitude = !place.longitude.isBlank
            if hasLatitude != hasLongitude {
                errors[hasLatitude ? "action.coordinates.longitude" : "action.coordinates.latitude"] = "Give both coordinates, or neither."
            }
            if hasLatitude, Double(place.latitude.trimmed) == nil {
                errors["action.coordinates.latitude"] = "A latitude is a number such as 47.6062."
            }
            if hasLongitude, Double(place.longitude.trimmed) == nil {
                errors["action.coordinates.longitude"] = "A longitude is a number such as -122.3321."
            }
        case .review, .submitted:
            break
        }
        guard errors.isEmpty else {
            self.step = step
            return false
        }
        let order = Step.allCases
        self.step = order[min(order.firstIndex(of: step)! + 1, order.firstIndex(of: .review)!)]
        return true
    }

    /// The first step with a problem, checking every step; `nil` when the report can be sent.
    public mutating func firstIncompleteStep() -> Step? {
        var copy = self
        for step in [Step.employer, .action, .location] where !copy.advance(from: step) {
            self.errors = copy.errors
            self.step = step
            return step
        }
        return nil
    }

    /// The request the API takes; `nil` until every step is complete.
    public var submission: StrikeSubmission? {
        var copy = self
        guard copy.firstIncompleteStep() == nil else { return nil }
        let coordinates = Double(place.latitude.trimmed).flatMap { latitude in
            Double(place.longitude.trimmed).map { GPSCoordinates(latitude: latitude, longitude: $0) }
        }
        return StrikeSubmission(
            employer: .init(name: employer.name.trimmed, industry: employer.industry.nonBlank, website: employer.website.nonBlank),
            action: .init(
                organization: action.organization.trimmed, actionType: action.actionType, location: action.location.trimmed,
                startDate: action.startDate.trimmed, durationDays: Int(action.durationDays.trimmed) ?? 0,
                description: action.description.trimmed, demands: action.demands.nonBlank, contactInfo: action.contactInfo.nonBlank,
                learnMoreUrl: action.learnMoreUrl.nonBlank, coordinates: coordinates))
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    var isBlank: Bool { trimmed.isEmpty }
    var nonBlank: String? { isBlank ? nil : trimmed }
}
