import Foundation
import PepperActions
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

    /// Step 3: where, by the current location, an address looked up (on the device first,
    /// then by the server), or coordinates.
    public struct Place: Sendable, Hashable {
        /// An address to look up.
        public var address = ""
        /// Latitude in degrees, as typed or found.
        public var latitude = ""
        /// Longitude in degrees, as typed or found.
        public var longitude = ""
        /// What the lookup found (`Seattle, Washington, United States`), with its precision; for
        /// the current location, the address there.
        public var found: String?
        /// How the coordinates were chosen.
        public var origin: PointOrigin?

        /// Sets the coordinates to `point` (full precision: the person sends it on purpose).
        public mutating func choose(_ point: GeoCoordinate, origin: PointOrigin) {
            latitude = PicketClient.format(point.latitude)
            longitude = PicketClient.format(point.longitude)
            self.origin = origin
            found = nil
        }
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

    /// Checks the fields of `step` with `PicketReportRules` (the rules every face shares: the
    /// API's required fields, lengths, addresses, dates and ranges); on success moves to the
    /// next step.
    @discardableResult
    public mutating func advance(from step: Step, now: Date = Date()) -> Bool {
        errors = [:]
        switch step {
        case .employer:
            errors = PicketReportRules.employer(name: employer.name, industry: employer.industry, website: employer.website)
        case .action:
            errors = PicketReportRules.action(
                organization: action.organization, actionType: action.actionType, location: action.location,
                startDate: action.startDate, durationDays: action.durationDays, description: action.description,
                demands: action.demands, contactInfo: action.contactInfo, learnMoreUrl: action.learnMoreUrl, now: now)
        case .location:
            errors =
                PicketReportRules.coordinates(
                    latitude: place.latitude, longitude: place.longitude, latitudeField: "action.coordinates.latitude",
                    longitudeField: "action.coordinates.longitude"
                ).problems
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
