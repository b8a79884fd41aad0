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

    /// What told of it.
    public enum Source: String, Sendable, Hashable {
        /// A position (a fix): ``GeofenceEvent/distance`` is measured.
        case position
        /// The device's region monitoring crossed a circle: ``GeofenceEvent/distance`` is the
        /// circle's radius (the person is about there).
        case region
    }

    /// What happened.
    public var kind: Kind
    /// Where.
    public var geofence: Geofence
    /// Metres from the position to the geofence's centre.
    public var distance: Double
    /// When (the position's time).
    public var time: Date
    /// A fix or a region crossing.
    public var source: Source = .position

    /// The title the apps show ("Entering Strike Zone").
    public var title: String { kind.rawValue }
}

/// Replays positions and region crossings against cached data: keeps the monitored geofences
/// and circles, decides when precise location updates run, and raises events.
///
/// Each geofence moves through outside → near → inside → exited (inside a notification radius
/// after leaving the zone, so "Near Strike" is not repeated) → outside; a boundary is crossed
/// outwards only ``GeofencePlanner/hysteresis`` metres past it. A geofence the position is in
/// that stops being monitored (rotated out, or gone from refreshed data) raises "Leaving".
/// A crossing of an exact circle (``GeofenceCircle/exact``) moves the same states, so a
/// transition is raised once whichever tells of it first; a fix older than the last one is
/// ignored (Core Location may hand over a cached one after a newer one).
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
    /// The geofences events are decided for after the last position (at most
    /// ``GeofencePlanner/maximumRegions``, nearest first).
    public private(set) var monitored: [MonitoredRegion] = []
    /// The circles to monitor after the last position (at most
    /// ``GeofencePlanner/maximumRegions``).
    public private(set) var circles: [GeofenceCircle] = []
    /// The last position moved to, and its time.
    public private(set) var lastPosition: GeoCoordinate?
    /// The time of ``lastPosition``.
    public private(set) var lastFixTime: Date?
    private var states: [String: State] = [:]
    /// The geofences monitored at the last move, for "Leaving" events after they vanish from
    /// refreshed data.
    private var lastKnown: [String: Geofence] = [:]

    /// A tracker with no data yet.
    public init(planner: GeofencePlanner = GeofencePlanner()) {
        self.planner = planner
    }

    private enum CodingKeys: String, CodingKey {
        case planner, cache, monitored, circles, lastPosition, lastFixTime, states, lastKnown
    }

    /// Reads a tracker; what an earlier version did not save starts empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        planner = try container.decode(GeofencePlanner.self, forKey: .planner)
        cache = try container.decodeIfPresent(GeofenceCache.self, forKey: .cache)
        monitored = try container.decodeIfPresent([MonitoredRegion].self, forKey: .monitored) ?? []
        circles = try container.decodeIfPresent([GeofenceCircle].self, forKey: .circles) ?? []
        lastPosition = try container.decodeIfPresent(GeoCoordinate.self, forKey: .lastPosition)
        lastFixTime = try container.decodeIfPresent(Date.self, forKey: .lastFixTime)
        states = try container.decodeIfPresent([String: State].self, forKey: .states) ?? [:]
        lastKnown = try container.decodeIfPresent([String: Geofence].self, forKey: .lastKnown) ?? [:]
    }

    /// Why the data should be refreshed now, or `nil`. `server`: the server asked now, if known.
    public func refreshReason(at position: GeoCoordinate, now: Date, server: String? = nil) -> RefreshReason? {
        planner.refreshReason(position: position, now: now, cache: cache, server: server)
    }

    /// Records a new payload fetched from `server` at `now`.
    public mutating func store(_ data: MobileData, hash: String?, at now: Date, server: String? = nil) {
        cache = GeofenceCache(data: data, hash: hash, fetchedAt: now, server: server)
    }

    /// Records a 304: the cached payload still holds at `position`, so the refresh threshold
    /// and interval start again from there and now (and it holds for `server`, when given).
    public mutating func confirmUnchanged(at position: GeoCoordinate, now: Date, server: String? = nil) {
        guard var cache else { return }
        cache.center = position
        cache.fetchedAt = now
        if let server { cache.server = server }
        self.cache = cache
    }

    /// Whether standard location updates run: while the position is in a monitored geofence's
    /// notification circle (a state other than outside), until it is the hysteresis past it.
    public var locationUpdates: LocationUpdates {
        let ids = Set(monitored.map(\.geofence.id))
        let inside = states.keys.filter { ids.contains($0) }.sorted()
        return LocationUpdates(isOn: !inside.isEmpty, distanceFilter: planner.distanceFilter, geofenceIDs: inside)
    }

    /// Moves to `position` at `time`: re-chooses the monitored geofences and circles (radii at
    /// most `maximumRadius`, what the device monitors) and returns the events, leaving first,
    /// then entering, then near, each nearest first. A fix older than the last one raises
    /// nothing and changes nothing.
    public mutating func move(to position: GeoCoordinate, at time: Date, maximumRadius: Double = .infinity) -> [GeofenceEvent] {
        if let lastFixTime, time < lastFixTime { return [] }
        lastPosition = position
        lastFixTime = time
        let geofences = cache?.data.geofences.all ?? []
        monitored = planner.regions(around: position, geofences: geofences)
        circles = planner.circles(for: monitored, maximumRadius: maximumRadius)
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
        return Self.ordered(events)
    }

    /// A monitored circle was crossed at `time` (the device's region monitoring): an exact
    /// circle moves the geofence's state as a fix at its boundary would — the zone in raises
    /// "Entering", out "Leaving"; the notification circle in raises "Near" (unless the zone was
    /// entered), out "Leaving" if the zone was still entered, and ends the geofence's precise
    /// updates. The device's own hysteresis applies (iOS reports a crossing once the position
    /// is some distance past the boundary for about 20 seconds). Raises nothing for a circle
    /// that is not exact or no longer planned (the app reads the position instead), or when a
    /// fix less than ``GeofencePlanner/fixLifetime`` old says otherwise under the fixes' own
    /// rule (inside until the hysteresis past the boundary).
    public mutating func crossed(_ role: GeofenceCircle.Role, of geofenceID: String, entering: Bool, at time: Date) -> [GeofenceEvent] {
        guard let circle = circles.first(where: { $0.geofenceID == geofenceID && $0.role == role }), circle.exact,
            let region = monitored.first(where: { $0.geofence.id == geofenceID })
        else { return [] }
        if let lastPosition, let lastFixTime, time.timeIntervalSince(lastFixTime) < planner.fixLifetime {
            let distance = GreatCircle.distance(lastPosition, circle.center)
            let contradicted = entering ? distance > circle.radius : distance <= circle.radius + planner.hysteresis
            if contradicted { return [] }
        }
        let previous = states[geofenceID]
        var kind: GeofenceEvent.Kind?
        switch (role, entering) {
        case (.zone, true):
            if previous != .inside { kind = .entering }
            states[geofenceID] = .inside
        case (.zone, false):
            if previous == .inside {
                kind = .leaving
                states[geofenceID] = .exited
            }
        case (.notification, true):
            if previous == nil {
                kind = .near
                states[geofenceID] = .near
            }
        case (.notification, false):
            if previous == .inside { kind = .leaving }
            states[geofenceID] = nil
        }
        guard let kind else { return [] }
        return [GeofenceEvent(kind: kind, geofence: region.geofence, distance: circle.radius, time: time, source: .region)]
    }

    /// Events in the order the apps show them: leaving, entering, near; nearest first.
    static func ordered(_ events: [GeofenceEvent]) -> [GeofenceEvent] {
        let order: [GeofenceEvent.Kind: Int] = [.leaving: 0, .entering: 1, .near: 2]
        return events.sorted {
            (order[$0.kind]!, $0.distance, $0.geofence.id) < (order[$1.kind]!, $1.distance, $1.geofence.id)
        }
    }
}
