import Foundation
import Picket

/// The labor-action awareness the app runs in the background, as a value it saves after each
/// location event (iOS relaunches the app for region events, so nothing may live only in
/// memory): when to fetch the Picket data and with which hash, which regions to monitor, and
/// which notifications to show.
///
/// The app's Core Location glue only passes positions in and applies what comes out.
public struct GeofenceSession: Sendable, Codable {
    /// The tracker: cached data with its hash, monitored geofences, per-geofence states.
    public private(set) var tracker: GeofenceTracker

    /// A session with no data yet.
    public init(planner: GeofencePlanner = GeofencePlanner()) {
        tracker = GeofenceTracker(planner: planner)
    }

    /// A fetch the app should make before moving: where, with which hash, and why.
    public struct Refresh: Sendable, Hashable {
        /// The position to ask about.
        public var position: GeoCoordinate
        /// The hash of the data held, so an unchanged payload costs a 304.
        public var lastHash: String?
        /// Why (no data, moved past 80 % of the cached radius, the hourly interval).
        public var reason: RefreshReason
    }

    /// The fetch due at `position` and `now`, or `nil` when the cached data still holds.
    public func refresh(at position: GeoCoordinate, now: Date) -> Refresh? {
        tracker.refreshReason(at: position, now: now).map { Refresh(position: position, lastHash: tracker.cache?.hash, reason: $0) }
    }

    /// Records the server's answer to a ``Refresh``.
    public mutating func received(_ result: PicketClient.DataResult, at position: GeoCoordinate, now: Date) {
        switch result {
        case .updated(let data, let hash, _): tracker.store(data, hash: hash, at: now)
        case .notModified: tracker.confirmUnchanged(at: position, now: now)
        }
    }

    /// What a move means for the app.
    public struct Update: Sendable, Hashable {
        /// The events, leaving first.
        public var events: [GeofenceEvent]
        /// The notifications to show for them.
        public var notifications: [StrikeZoneNotification]
        /// How to change the monitored regions.
        public var regions: GeofenceRegions.Changes
    }

    /// Moves to `position` at `time`, given the regions monitored now and the largest radius
    /// the device monitors.
    public mutating func move(
        to position: GeoCoordinate, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double
    ) -> Update {
        let events = tracker.move(to: position, at: time)
        let planned = GeofenceRegions.regions(for: tracker.monitored, maximumRadius: maximumRadius)
        return Update(
            events: events, notifications: events.map(StrikeZoneNotification.init),
            regions: GeofenceRegions.changes(current: current, planned: planned))
    }

    /// The session saved at `url`, or a new one when there is none (or it cannot be read).
    public static func load(from url: URL) -> GeofenceSession {
        guard let data = try? Data(contentsOf: url), let session = try? JSONDecoder().decode(GeofenceSession.self, from: data) else {
            return GeofenceSession()
        }
        return session
    }

    /// Saves the session at `url`.
    public func save(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: url, options: .atomic)
    }
}

/// The local notification for a geofence event: the titles the Online Picket Line apps use
/// ("Entering Strike Zone", "Near Strike", "Leaving Strike Zone") and a sentence about the action.
public struct StrikeZoneNotification: Sendable, Hashable {
    /// The notification category.
    public static let category = "pepper.strike-zone"

    /// One per geofence and kind: a repeat replaces the last one.
    public var identifier: String
    /// The event's title.
    public var title: String
    /// What and where.
    public var body: String
    /// Notifications about one action are grouped.
    public var threadIdentifier: String

    /// The notification for `event`.
    public init(_ event: GeofenceEvent) {
        let geofence = event.geofence
        identifier = "pepper.strike-zone.\(geofence.id).\(event.kind)"
        title = event.title
        threadIdentifier = "pepper.action." + geofence.actionId
        var what = "\(geofence.employerName): \(ActionType.noun(of: geofence.actionType))"
        if let organization = geofence.organization, !organization.isEmpty { what += " by \(organization)" }
        if let place = geofence.locationName ?? geofence.location, !place.isEmpty { what += " at \(place)" }
        let distance = Self.distance(event.distance)
        switch event.kind {
        case .entering: body = "\(what). You are at the picket line (\(distance) from its centre)."
        case .near: body = "\(what), \(distance) away."
        case .leaving: body = "\(what). You have left the strike zone."
        }
    }

    /// `80 m`, `1.2 km`.
    static func distance(_ meters: Double) -> String {
        meters < 1_000 ? "\(Int(meters.rounded())) m" : String(format: "%.1f km", meters / 1_000)
    }
}
