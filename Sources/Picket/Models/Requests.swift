import Foundation

/// The body of `GET /api/mobile/active-strikes`: every approved, current action, for a client
/// to pick the one a GPS snapshot belongs to.
public struct ActiveStrikes: Codable, Sendable, Hashable {
    /// Always `true` on success.
    public var success: Bool
    /// How many strikes ``strikes`` holds.
    public var count: Int
    /// When the server produced it (ISO 8601).
    public var generatedAt: String
    /// The actions, most recently started first.
    public var strikes: [ActiveStrike]

    /// A list of strikes.
    public init(success: Bool = true, count: Int, generatedAt: String, strikes: [ActiveStrike]) {
        self.success = success
        self.count = count
        self.generatedAt = generatedAt
        self.strikes = strikes
    }
}

/// One approved, current labor action.
public struct ActiveStrike: Codable, Sendable, Hashable, Identifiable {
    /// The action's identifier.
    public var id: String
    /// The organisation (union) running it.
    public var organization: String?
    /// An ``ActionType`` raw value (`strike`, `work_stoppage`, …).
    public var actionType: String
    /// Where, as written by people.
    public var location: String?
    /// The employer's name.
    public var employerName: String
    /// The employer's identifier.
    public var employerId: String
    /// When it started (ISO 8601).
    public var startDate: String?
    /// When it ends (ISO 8601), if known.
    public var endDate: String?
    /// What it is about.
    public var description: String?

    /// A strike.
    public init(
        id: String, organization: String?, actionType: String, location: String?, employerName: String, employerId: String,
        startDate: String?, endDate: String?, description: String?
    ) {
        self.id = id
        self.organization = organization
        self.actionType = actionType
        self.location = location
        self.employerName = employerName
        self.employerId = employerId
        self.startDate = startDate
        self.endDate = endDate
        self.description = description
    }
}

/// The body of `POST /api/mobile/gps-snapshot`: where a picket line of an action really is.
public struct GPSSnapshotSubmission: Codable, Sendable, Hashable {
    /// The action the snapshot belongs to.
    public var actionId: String
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// The address, if the person typed or looked one up.
    public var address: String?
    /// Free-form notes.
    public var notes: String?

    /// A snapshot.
    public init(actionId: String, latitude: Double, longitude: Double, address: String? = nil, notes: String? = nil) {
        self.actionId = actionId
        self.latitude = latitude
        self.longitude = longitude
        self.address = address
        self.notes = notes
    }
}

/// The body of `POST /api/mobile/submit-strike`: a new labor action reported by a person.
public struct StrikeSubmission: Codable, Sendable, Hashable {
    /// The struck employer.
    public var employer: Employer
    /// The action.
    public var action: Action

    /// A submission.
    public init(employer: Employer, action: Action) {
        self.employer = employer
        self.action = action
    }

    /// The employer part.
    public struct Employer: Codable, Sendable, Hashable {
        /// The employer's name.
        public var name: String
        /// Its industry.
        public var industry: String?
        /// Its website (an http(s) URL); its host joins the blocklist when the strike is approved.
        public var website: String?

        /// An employer.
        public init(name: String, industry: String? = nil, website: String? = nil) {
            self.name = name
            self.industry = industry
            self.website = website
        }
    }

    /// The action part.
    public struct Action: Codable, Sendable, Hashable {
        /// The organisation (union) running it.
        public var organization: String
        /// An ``ActionType`` raw value (`strike`, `work_stoppage`, …); others are refused.
        public var actionType: String
        /// Where, as written by people.
        public var location: String
        /// When it starts: `YYYY-MM-DD` or an ISO 8601 date and time.
        public var startDate: String
        /// How many days it lasts; the iOS client always sends it (0 or `null`: not known).
        public var durationDays: Int?
        /// What it is about.
        public var description: String
        /// The workers' demands.
        public var demands: String?
        /// How to reach the organisers.
        public var contactInfo: String?
        /// Where to learn more (an http(s) URL).
        public var learnMoreUrl: String?
        /// Where it takes place.
        public var coordinates: GPSCoordinates?

        /// An action.
        public init(
            organization: String, actionType: String, location: String, startDate: String, durationDays: Int? = nil,
            description: String, demands: String? = nil, contactInfo: String? = nil, learnMoreUrl: String? = nil,
            coordinates: GPSCoordinates? = nil
        ) {
            self.organization = organization
            self.actionType = actionType
            self.location = location
            self.startDate = startDate
            self.durationDays = durationDays
            self.description = description
            self.demands = demands
            self.contactInfo = contactInfo
            self.learnMoreUrl = learnMoreUrl
            self.coordinates = coordinates
        }
    }
}

/// A point as requests write it: `{latitude, longitude}`.
public struct GPSCoordinates: Codable, Sendable, Hashable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double

    /// A point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The answer to a submission (`gps-snapshot`, `submit-strike`).
public struct SubmissionReceipt: Codable, Sendable, Hashable {
    /// Always `true` on success.
    public var success: Bool
    /// "Snapshot submitted for moderation" or "Submitted for moderation".
    public var message: String
    /// The new snapshot's or action's identifier.
    public var id: String

    /// A receipt.
    public init(success: Bool = true, message: String, id: String) {
        self.success = success
        self.message = message
        self.id = id
    }
}

/// The body of every error response: `{"error": "message"}`.
public struct APIErrorBody: Codable, Sendable, Hashable {
    /// What went wrong; for validation errors it names the field.
    public var error: String

    /// An error body.
    public init(error: String) {
        self.error = error
    }
}

/// Where an action or a snapshot is in moderation.
public enum ModerationStatus: String, Codable, Sendable, CaseIterable {
    /// Submitted, not yet reviewed: invisible to clients.
    case pending
    /// Approved: served while current.
    case approved
    /// Rejected: never served.
    case rejected
    /// Over (its end date passed): no longer served.
    case completed
}

/// What an API key may do (`docs/picket.md`).
public enum APIScope: String, Codable, Sendable, CaseIterable, Comparable {
    /// `data`, `active-strikes`, `geocode`, `reverse-geocode`.
    case readMobile = "read:mobile"
    /// `/api/blocklist.json` only (`read:mobile` may read it too): for the OPL DNS server and
    /// browser extension, which need nothing else.
    case readBlocklist = "read:blocklist"
    /// `gps-snapshot`.
    case writeGPSSnapshot = "write:gps-snapshot"
    /// `submit-strike`.
    case writeSubmitStrike = "write:submit-strike"

    public static func < (lhs: APIScope, rhs: APIScope) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The syntax of API keys: `opl_` followed by 64 lower- or upper-case hex digits.
public enum APIKeyFormat {
    /// The prefix every key starts with.
    public static let prefix = "opl_"

    /// Whether `key` has the form of an API key (it may still be unknown or revoked).
    public static func isWellFormed(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 68, key.hasPrefix(prefix) else { return false }
        return bytes[4...].allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
        }
    }
}
