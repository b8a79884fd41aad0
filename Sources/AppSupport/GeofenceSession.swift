import Foundation
import Picket

/// The labor-action awareness the app runs in the background, as a value it saves after each
/// location event (iOS relaunches the app for region events, so nothing may live only in
/// memory): when to fetch the Picket data and with which hash, which regions to monitor, when
/// to run precise location updates, and which notifications to show.
///
/// The app's Core Location glue only passes positions and region crossings in and applies what
/// comes out; ``GeofenceCoordinator`` is the one owner of the saved session in the app.
public struct GeofenceSession: Sendable, Codable {
    /// The tracker: cached data with its hash and server, monitored geofences and circles,
    /// per-geofence states, the last position.
    public private(set) var tracker: GeofenceTracker
    /// When the last fetch failed (a refresh is not tried again for
    /// ``GeofenceRefreshSchedule/retryDelay``); `nil` once one succeeds.
    public private(set) var lastFailedFetch: Date?

    /// A session with no data yet.
    public init(planner: GeofencePlanner = GeofencePlanner()) {
        tracker = GeofenceTracker(planner: planner)
    }

    /// A fetch the app should make: where, with which hash, and why.
    public struct Refresh: Sendable, Hashable {
        /// The position to ask about.
        public var position: GeoCoordinate
        /// The hash of the data held, so an unchanged payload costs a 304.
        public var lastHash: String?
        /// Why (no data, another server, moved past 80 % of the cached radius, expired, the
        /// hourly interval).
        public var reason: RefreshReason
    }

    /// The fetch due at `position` and `now`, or `nil` when the cached data still holds (the
    /// planner's rule alone; ``refreshDecision(_:position:now:lowPowerMode:server:)`` adds the
    /// server, Low Power Mode and retries).
    public func refresh(at position: GeoCoordinate, now: Date) -> Refresh? {
        tracker.refreshReason(at: position, now: now).map { Refresh(position: position, lastHash: tracker.cache?.hash, reason: $0) }
    }

    /// Records the server's answer to a ``Refresh`` asked at `position`, from `server`.
    public mutating func received(_ result: PicketClient.DataResult, at position: GeoCoordinate, now: Date, server: String? = nil) {
        switch result {
        case .updated(let data, let hash, _): tracker.store(data, hash: hash, at: now, server: server)
        case .notModified: tracker.confirmUnchanged(at: position, now: now, server: server)
        }
        lastFailedFetch = nil
    }

    /// Records a fetch that failed at `now`: the data held stays in use.
    public mutating func fetchFailed(at now: Date) {
        lastFailedFetch = now
    }

    /// What a move or a region crossing means for the app.
    public struct Update: Sendable, Hashable {
        /// The events, leaving first.
        public var events: [GeofenceEvent]
        /// The notifications to show for them.
        public var notifications: [StrikeZoneNotification]
        /// How to change the monitored regions.
        public var regions: GeofenceRegions.Changes
        /// Pepper's regions once the changes are applied (at most 20).
        public var planned: [GeofenceRegion]
        /// Whether standard location updates run now, and their distance filter.
        public var locationUpdates: LocationUpdates
        /// Whether to ask Core Location for one fix (`requestLocation()`): after a crossing,
        /// when precise updates are off, so the regions are planned around the new position.
        public var requestsLocation: Bool
    }

    /// Moves to `position` at `time`, given the regions monitored now and the largest radius
    /// the device monitors.
    public mutating func move(
        to position: GeoCoordinate, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double
    ) -> Update {
        let events = tracker.move(to: position, at: time, maximumRadius: maximumRadius)
        return update(events, monitoring: current, requestsLocation: false)
    }

    /// Core Location reported that the region `identifier` was entered or exited at `time`.
    /// A region that is not one of Pepper's circles changes nothing.
    public mutating func crossed(
        region identifier: String, entering: Bool, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double
    ) -> Update {
        var events: [GeofenceEvent] = []
        if let circle = GeofenceRegions.circle(named: identifier) {
            events = tracker.crossed(circle.role, of: circle.geofenceID, entering: entering, at: time)
        }
        return update(events, monitoring: current, requestsLocation: !tracker.locationUpdates.isOn)
    }

    private func update(_ events: [GeofenceEvent], monitoring current: [GeofenceRegion], requestsLocation: Bool) -> Update {
        let planned = GeofenceRegions.regions(for: tracker.circles)
        return Update(
            events: events, notifications: events.map(StrikeZoneNotification.init),
            regions: GeofenceRegions.changes(current: current, planned: planned), planned: planned,
            locationUpdates: tracker.locationUpdates, requestsLocation: requestsLocation)
    }

    /// The session saved at `url`, or a new one when there is none (or it cannot be read: a
    /// cleared cache, which makes the next refresh due at once).
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
        // A region crossing has no measured distance, only the circle crossed.
        let measured = event.source == .position
        switch event.kind {
        case .entering: body = "\(what). You are at the picket line" + (measured ? " (\(distance) from its centre)." : ".")
        case .near: body = "\(what), " + (measured ? "\(distance) away." : "within \(distance).")
        case .leaving: body = "\(what). You have left the strike zone."
        }
    }

    /// `80 m`, `1.2 km`.
    static func distance(_ meters: Double) -> String {
        meters < 1_000 ? "\(Int(meters.rounded())) m" : String(format: "%.1f km", meters / 1_000)
    }
}
