import Foundation

/// Something a person should hear about as they move.
public struct GeofenceEvent: Sendable, Hashable {
    /// The kinds of event, with the titles the apps show.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The position entered a strike zone.
        case entering = "Entering Strike Zone"
        /// The position came within a geofence's notification radius, outside its zone.
        case near = "Near Strike"
        /// The position left a strike zone it had entered.
        case leaving = "Leaving Strike Zone"
    }

    /// What happened.
    public var kind: Kind
    /// Where.
    public var geofence: Geofence
    /// Metres from the position to the geofence's centre.
    public var distance: Double
    /// When (the position's time).
    public var time: Date

    /// The title the apps show ("Entering Strike Zone").
    public var title: String { kind.rawValue }
}

/// Replays positions against cached data: keeps the monitored regions and raises events.
///
/// Each geofence moves through outside → near → inside → exited (inside a notification radius
/// after leaving the zone, so "Near Strike" is not repeated) → outside; a boundary is crossed
/// outwards only ``GeofencePlanner/hysteresis`` metres past it. A geofence the position is in
/// that stops being monitored (rotated out, or gone from refreshed data) raises "Leaving".
///
/// `Codable`, so an app the system relaunches for each location event resumes where it was
/// (a zone it is in is not "entered" again).
public struct GeofenceTracker: Sendable, Codable {
    private enum State: String, Sendable, Codable {
        case near, inside, exited
    }

    /// The planner's settings.
    public let planner: GeofencePlanner
    /// The cached data, if any.
    public private(set) var cache: GeofenceCache?
    /// The regions monitored after the last position.
    public private(set) var monitored: [MonitoredRegion] = []
    private var states: [String: State] = [:]

    /// A tracker with no data yet.
    public init(planner: GeofencePlanner = GeofencePlanner()) {
        self.planner = planner
    }

    /// Why the data should be refreshed now, or `nil`.
    public func refreshReason(at position: GeoCoordinate, now: Date) -> RefreshReason? {
        planner.refreshReason(position: position, now: now, cache: cache)
    }

    /// Records a new payload fetched at `now`.
    public mutating func store(_ data: MobileData, hash: String?, at now: Date) {
        cache = GeofenceCache(data: data, hash: hash, fetchedAt: now)
    }

    /// Records a 304: the cached payload still holds at `position`, so the refresh threshold
    /// and interval start again from there and now.
    public mutating func confirmUnchanged(at position: GeoCoordinate, now: Date) {
        guard var cache else { return }
        cache.center = position
        cache.fetchedAt = now
        self.cache = cache
    }

    /// Moves to `position` at `time`: re-chooses the monitored regions and returns the events,
    /// leaving first, then entering, then near, each nearest first.
    public mutating func move(to position: GeoCoordinate, at time: Date) -> [GeofenceEvent] {
        let geofences = cache?.data.geofences.all ?? []
        monitored = planner.regions(around: position, geofences: geofences)
        var events: [GeofenceEvent] = []
        var nextStates: [String: State] = [:]
        for region in monitored {
            let id = region.geofence.id
            let distance = region.distance
            let previous = states[id]
            let zoneExit = region.zoneRadius + planner.hysteresis
            let notificationExit = region.notificationRadius + planner.hysteresis
            func event(_ kind: GeofenceEvent.Kind) {
                events.append(GeofenceEvent(kind: kind, geofence: region.geofence, distance: distance, time: time))
            }
            switch previous {
            case .inside:
                if distance <= zoneExit {
                    nextStates[id] = .inside
                } else {
                    event(.leaving)
                    if distance <= notificationExit { nextStates[id] = .exited }
                }
            case .near, .exited:
                if distance <= region.zoneRadius {
                    event(.entering)
                    nextStates[id] = .inside
                } else if distance <= notificationExit {
                    nextStates[id] = previous
                }
            case nil:
                if distance <= region.zoneRadius {
                    event(.entering)
                    nextStates[id] = .inside
                } else if distance <= region.notificationRadius {
                    event(.near)
                    nextStates[id] = .near
                }
            }
        }
        // A zone the position was in that is no longer monitored: the person is no longer
        // told about it, so they hear that they left it.
        let monitoredIDs = Set(monitored.map(\.geofence.id))
        for (id, state) in states where state == .inside && !monitoredIDs.contains(id) {
            guard let geofence = lastKnown[id] else { continue }
            let distance = GreatCircle.distance(position, geofence.coordinates.geoCoordinate)
            events.append(GeofenceEvent(kind: .leaving, geofence: geofence, distance: distance, time: time))
        }
        states = nextStates
        lastKnown = Dictionary(monitored.map { ($0.geofence.id, $0.geofence) }, uniquingKeysWith: { first, _ in first })
        let order: [GeofenceEvent.Kind: Int] = [.leaving: 0, .entering: 1, .near: 2]
        events.sort { (order[$0.kind]!, $0.distance, $0.geofence.id) < (order[$1.kind]!, $1.distance, $1.geofence.id) }
        return events
    }

    /// The geofences monitored at the last move, for "Leaving" events after they vanish from
    /// refreshed data.
    private var lastKnown: [String: Geofence] = [:]
}
