import Foundation

/// Moderating a Picket store: the pending submissions with what a moderator needs to judge
/// them, decisions recorded with who made them and why, the audit trail, and the API keys.
///
/// `pepper picket moderate` and `pepper picket keys` (moderator `cli`) and the console's
/// Moderation and API keys screens (moderator `console:NAME`) all go through this one type.
public struct PicketModeration: Sendable {
    /// A pending submission and where it says it is.
    public struct Submission: Sendable, Hashable, Identifiable {
        /// The submission as the store lists it.
        public var item: ModerationItem
        /// For snapshots: the action it is for (`BrightMart — strike`), when the store has it.
        public var action: String?
        /// Where it is, in words, when it has coordinates.
        public var place: PlaceSummary?

        /// The submission's identifier.
        public var id: String { item.id }
    }

    /// A map-free summary of a submitted location: the nearest place of the gazetteer and, for
    /// a snapshot, how far it is from its action's own location.
    public struct PlaceSummary: Sendable, Hashable, CustomStringConvertible {
        /// The coordinates given.
        public var coordinate: GeoCoordinate
        /// The nearest place of the offline gazetteer (`Seattle, Washington, United States`).
        public var nearestPlace: String?
        /// Metres from ``nearestPlace``'s centre.
        public var nearestPlaceDistance: Double?
        /// Snapshots: metres from the location of the action it names, when that has one.
        public var actionDistance: Double?

        /// `2.1 km from Seattle, Washington, United States; 140 m from the action's location`.
        public var description: String {
            var parts: [String] = []
            if let nearestPlace, let nearestPlaceDistance {
                parts.append("\(Self.distance(nearestPlaceDistance)) from \(nearestPlace)")
            } else {
                parts.append("no town within 200 km")
            }
            if let actionDistance { parts.append("\(Self.distance(actionDistance)) from the action's location") }
            return parts.joined(separator: "; ")
        }

        /// `140 m`, `2.1 km`, `35 km`.
        public static func distance(_ metres: Double) -> String {
            if metres < 1_000 { return "\(Int(metres.rounded())) m" }
            if metres < 10_000 { return String(format: "%.1f km", metres / 1_000) }
            return "\(Int((metres / 1_000).rounded())) km"
        }
    }

    /// Why a moderation request was refused before it reached the store.
    public enum RequestError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason is too long or has control characters.
        case invalidReason(String)
        /// A key needs at least one scope.
        case noScope
        /// The key's label is too long or has control characters.
        case invalidLabel(String)

        public var description: String {
            switch self {
            case .invalidReason(let why): return "the reason \(why)"
            case .noScope: return "choose at least one scope"
            case .invalidLabel(let why): return "the label \(why)"
            }
        }
    }

    /// Longest reason kept with a decision.
    public static let maximumReasonLength = 500
    /// Longest key label.
    public static let maximumLabelLength = 100

    /// The store moderated.
    public let store: any PicketStore
    /// Who decides: `cli`, or `console:NAME`.
    public let moderator: String
    /// Where nearest places come from.
    public let gazetteer: Gazetteer

    /// Moderation of `store` by `moderator`.
    public init(store: any PicketStore, moderator: String, gazetteer: Gazetteer = .shared) {
        self.store = store
        self.moderator = moderator
        self.gazetteer = gazetteer
    }

    /// The pending submissions, oldest first, each with its location summary.
    public func pending() async throws -> [Submission] {
        var actions: [String: ActionRecord?] = [:]
        var employers: [String: EmployerRecord?] = [:]
        var result: [Submission] = []
        for item in try await store.pendingSubmissions() {
            var submission = Submission(item: item)
            var actionCoordinate: GeoCoordinate?
            if item.kind == .snapshot, let actionId = item.actionId {
                if actions[actionId] == nil { actions[actionId] = try await store.action(id: actionId) }
                if let action = actions[actionId] ?? nil {
                    if employers[action.employerId] == nil {
                        employers[action.employerId] = try await store.employer(id: action.employerId)
                    }
                    let employer = (employers[action.employerId] ?? nil)?.name ?? action.employerId
                    submission.action = "\(employer) — \(ActionType.noun(of: action.actionType))"
                    actionCoordinate = action.coordinate
                }
            }
            if let latitude = item.latitude, let longitude = item.longitude {
                submission.place = summary(of: GeoCoordinate(latitude: latitude, longitude: longitude), action: actionCoordinate)
            }
            result.append(submission)
        }
        return result
    }

    /// Where `coordinate` is, in words; `action` is the location of the action it belongs to.
    public func summary(of coordinate: GeoCoordinate, action: GeoCoordinate? = nil) -> PlaceSummary {
        let nearest = gazetteer.nearest(to: coordinate, within: 200_000)
        return PlaceSummary(
            coordinate: coordinate, nearestPlace: nearest.map { gazetteer.displayName(of: $0.place) },
            nearestPlaceDistance: nearest?.distance, actionDistance: action.map { GreatCircle.distance(coordinate, $0) })
    }

    /// Approves or rejects a submission; `reason` (optional, at most 500 characters) is kept in
    /// the audit trail with ``moderator`` and the time.
    public func decide(
        _ id: String, _ decision: ModerationDecision, reason: String? = nil, at date: Date = Date()
    ) async throws -> ModerationOutcome {
        let reason = try Self.cleaned(reason, limit: Self.maximumReasonLength, RequestError.invalidReason)
        return try await store.moderate(
            id: id.trimmingCharacters(in: .whitespaces), decision: decision, at: date, by: moderator, reason: reason)
    }

    /// The latest decisions, newest first.
    public func log(limit: Int = 50) async throws -> [ModerationLogEntry] {
        try await store.moderationLog(limit: limit)
    }

    /// Every API key, newest first (never the keys themselves: only their hashes are stored).
    public func keys() async throws -> [APIKeyRecord] {
        try await store.apiKeys().sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    /// Creates a key; the key itself is in the result and nowhere else, ever.
    public func createKey(scopes: [APIScope], label: String?) async throws -> (key: String, record: APIKeyRecord) {
        guard !scopes.isEmpty else { throw RequestError.noScope }
        let label = try Self.cleaned(label, limit: Self.maximumLabelLength, RequestError.invalidLabel)
        return try await APIKeys.create(scopes: scopes, label: label, in: store)
    }

    /// Creates a key with the scopes of `preset`, labelled `label` or else the preset's label.
    public func createKey(preset: APIKeyPreset, label: String?) async throws -> (key: String, record: APIKeyRecord) {
        let given = try Self.cleaned(label, limit: Self.maximumLabelLength, RequestError.invalidLabel)
        return try await createKey(scopes: preset.scopes, label: given ?? preset.defaultLabel)
    }

    /// Revokes a key; `false` when there is no active key with that identifier. Servers on the
    /// same store refuse it within their refresh interval (`--refresh-check`, 1 s by default).
    public func revokeKey(id: String) async throws -> Bool {
        try await store.revokeAPIKey(id: id.trimmingCharacters(in: .whitespaces), at: Date())
    }

    /// Blank is `nil`; otherwise at most `limit` characters and no control characters but line breaks.
    static func cleaned(
        _ text: String?, limit: Int, _ error: (String) -> RequestError
    ) throws(RequestError) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= limit else { throw error("must be at most \(limit) characters (it has \(text.count))") }
        guard !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\r") || $0.value == 0x7F }) else {
            throw error("must not contain control characters")
        }
        return text
    }
}
