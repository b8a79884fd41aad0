import Foundation
import Picket
import UTCTime

/// What a strike report and a GPS snapshot must be before they are sent: the Picket API's own
/// rules (`docs/picket.md`: required fields, lengths, http(s) addresses, dates, ranges), checked
/// on the device so a person learns of a problem at the field, before anything leaves, and in
/// the same words on every face (the app and the console call these through the Screens models).
///
/// Each check returns the problems by field, named as the API names them (`employer.name`,
/// `action.coordinates.latitude`, `actionId`), so the server's own refusals, which name the
/// same paths, land in the same places. No problem: an empty dictionary.
public enum PicketReportRules {
    /// The longest text of each field, as the server allows it (characters).
    public enum Limit {
        /// `employer.name`, `action.organization`.
        public static let name = 200
        /// `employer.industry`.
        public static let industry = 100
        /// `action.location`, `action.contactInfo`, a snapshot's `address`.
        public static let place = 500
        /// `action.description`, `action.demands`.
        public static let text = 5_000
        /// A snapshot's `notes`.
        public static let notes = 2_000
        /// `employer.website`, `action.learnMoreUrl`.
        public static let address = 2_048
    }

    /// The longest a strike may be said to last, in days (ten years).
    public static let maximumDurationDays = 3_650

    /// Step 1: the employer. The name is required; the website, when given, is an http(s) address.
    public static func employer(name: String, industry: String, website: String) -> [String: String] {
        var problems: [String: String] = [:]
        if name.isBlank {
            problems["employer.name"] = "Give the employer's name."
        } else {
            problems["employer.name"] = text(name, limit: Limit.name)
        }
        problems["employer.industry"] = text(industry, limit: Limit.industry)
        problems["employer.website"] = webAddress(website, example: "https://acme.example")
        return problems
    }

    /// Step 2: the action. Organisation, kind, place, start and description are required; the
    /// duration, when given, is 0 to ``maximumDurationDays`` days; the start a day between 1900
    /// and two years from `now`; the page to learn more an http(s) address.
    public static func action(
        organization: String, actionType: String, location: String, startDate: String, durationDays: String, description: String,
        demands: String, contactInfo: String, learnMoreUrl: String, now: Date = Date()
    ) -> [String: String] {
        var problems: [String: String] = [:]
        problems["action.organization"] =
            organization.isBlank ? "Give the union or group organising it." : text(organization, limit: Limit.name)
        if ActionType(rawValue: actionType) == nil { problems["action.actionType"] = "Choose the kind of action." }
        problems["action.location"] =
            location.isBlank ? "Say where it happens, such as a store and its city." : text(location, limit: Limit.place)
        if startDate.isBlank {
            problems["action.startDate"] = "Give the day it starts."
        } else if let date = ISO8601.parse(startDate.trimmed) {
            if date < earliest || date > now.addingTimeInterval(2 * 366 * 86_400) {
                problems["action.startDate"] = "Give a day between 1900 and two years from now."
            }
        } else {
            problems["action.startDate"] = "Give the day as YYYY-MM-DD, such as 2025-05-01."
        }
        if !durationDays.isBlank, Int(durationDays.trimmed).map({ (0...maximumDurationDays).contains($0) }) != true {
            problems["action.durationDays"] = "Give the number of days (0 to \(maximumDurationDays)), or leave it empty."
        }
        problems["action.description"] =
            description.isBlank ? "Say what the action is about." : text(description, limit: Limit.text)
        problems["action.demands"] = text(demands, limit: Limit.text)
        problems["action.contactInfo"] = text(contactInfo, limit: Limit.place)
        problems["action.learnMoreUrl"] = webAddress(learnMoreUrl, example: "https://union.example/strike")
        return problems
    }

    /// Coordinates typed as text: both or neither, each a number in range. The problems are filed
    /// under `latitudeField` and `longitudeField`.
    ///
    /// - Returns: The point when both are given and valid, and the problems.
    public static func coordinates(
        latitude: String, longitude: String, latitudeField: String, longitudeField: String
    ) -> (point: GeoCoordinate?, problems: [String: String]) {
        var problems: [String: String] = [:]
        let hasLatitude = !latitude.isBlank
        let hasLongitude = !longitude.isBlank
        if hasLatitude != hasLongitude {
            problems[hasLatitude ? longitudeField : latitudeField] = "Give both coordinates, or neither."
        }
        let lat = hasLatitude ? Double(latitude.trimmed) : nil
        let lng = hasLongitude ? Double(longitude.trimmed) : nil
        if hasLatitude, lat.map({ $0.isFinite && (-90...90).contains($0) }) != true {
            problems[latitudeField] = "A latitude is a number from -90 to 90, such as 47.6062."
        }
        if hasLongitude, lng.map({ $0.isFinite && (-180...180).contains($0) }) != true {
            problems[longitudeField] = "A longitude is a number from -180 to 180, such as -122.3321."
        }
        guard problems.isEmpty, let lat, let lng else { return (nil, problems) }
        return (GeoCoordinate(latitude: lat, longitude: lng), problems)
    }

    /// A GPS snapshot's fields other than its point: the strike it is for, and the address and
    /// notes when given.
    public static func snapshot(actionId: String, address: String, notes: String) -> [String: String] {
        var problems: [String: String] = [:]
        if actionId.isBlank { problems["actionId"] = "Choose the strike the snapshot is for." }
        problems["address"] = text(address, limit: Limit.place)
        problems["notes"] = text(notes, limit: Limit.notes)
        return problems
    }

    /// 1900-01-01, the earliest start the server takes.
    static let earliest = Date(timeIntervalSince1970: -2_208_988_800)

    /// A problem with free text: too long, or a control character the server refuses.
    static func text(_ value: String, limit: Int) -> String? {
        if value.count > limit { return "At most \(limit) characters (this has \(value.count))." }
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 && !["\n", "\r", "\t"].contains($0)) || $0.value == 0x7F }) {
            return "Remove the control characters (such as a pasted NUL)."
        }
        return nil
    }

    /// A problem with an optional web address: it must be http(s) and name a host.
    static func webAddress(_ value: String, example: String) -> String? {
        guard !value.isBlank else { return nil }
        let text = value.trimmed
        if text.count > Limit.address { return "At most \(Limit.address) characters." }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, !text.contains(" "),
            BlocklistMatcher.normalizedHost(text) != nil
        else {
            return "Give a web address starting with https://, such as \(example)."
        }
        return nil
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    fileprivate var isBlank: Bool { trimmed.isEmpty }
}
