import Foundation

/// The client's geofencing logic (`docs/picket.md`), free of any location framework so that an iOS
/// app, an Android port and `pepper picket track` share it: which geofences to monitor, when to
/// refresh the cached data, and which events a position change raises.
///
/// - Regions: iOS monitors at most 20 regions per app, so the planner keeps the nearest 20
///   (ties broken by identifier, so the choice is deterministic) and rotates them as the
///   position moves.
/// - Refresh: when the position is farther than `refreshThresholdMeters` from the cached
///   region's centre, or `suggestedRefreshInterval` has passed since the last fetch.
public struct GeofencePlanner: Sendable, Hashable, Codable {
    /// The most regions monitored at once (iOS allows 20 per app).
    public var maximumRegions: Int
    /// The radius of a strike zone: inside it a person is at the picket line. A geofence's
    /// `notificationRadius`, when smaller, wins.
    public var zoneRadius: Double
    /// Metres beyond a boundary before a position counts as outside again, so GPS jitter at
    /// the edge does not raise enter / leave pairs.
    public var hysteresis: Double

    /// A planner; the defaults follow the app designs.
    public init(maximumRegions: Int = 20, zoneRadius: Double = 100, hysteresis: Double = 25) {
        self.maximumRegions = max(0, maximumRegions)
        self.zoneRadius = zoneRadius
        self.hysteresis = max(0, hysteresis)
    }

    /// The regions to monitor around `position`: at most ``maximumRegions``, nearest first.
    public func regions(around position: GeoCoordinate, geofences: [Geofence]) -> [MonitoredRegion] {
        var candidates = geofences.map { geofence in
            MonitoredRegion(
                geofence: geofence, distance: GreatCircle.distance(position, geofence.coordinates.geoCoordinate),
                zoneRadius: min(zoneRadius, Double(max(geofence.notificationRadius, 1))))
        }
        candidates.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.geofence.id < $1.geofence.id) }
        // Two geofences may share an identifier across payload sections; monitor each once.
        var seen = Set<String>()
        var chosen: [MonitoredRegion] = []
        for candidate in candidates where chosen.count < maximumRegions {
            if seen.insert(candidate.geofence.id).inserted { chosen.append(candidate) }
        }
        return chosen
    }

    /// Why the cached data should be refreshed at `position` and `now`, or `nil` to keep it.
    public func refreshReason(position: GeoCoordinate, now: Date, cache: GeofenceCache?) -> RefreshReason? {
        guard let cache else { return .noData }
        let distance = GreatCircle.distance(position, cache.center)
        if distance > Double(cache.data.cachedRegion.refreshThresholdMeters) { return .movedBeyondThreshold(meters: distance) }
        let interval = Double(cache.data.suggestedRefreshInterval) / 1_000
        if now.timeIntervalSince(cache.fetchedAt) >= interval { return .intervalElapsed(seconds: interval) }
        return nil
    }
}

/// A geofence chosen for monitoring.
public struct MonitoredRegion: Sendable, Hashable, Codable {
    /// The geofence.
    public var geofence: Geofence
    /// Metres from the position the regions were chosen at.
    public var distance: Double
    /// The strike zone's radius for this geofence.
    public var zoneRadius: Double

    /// The radius within which "Near Strike" is raised.
    public var notificationRadius: Double { Double(geofence.notificationRadius) }
}

/// Why a client refreshes.
public enum RefreshReason: Sendable, Hashable, CustomStringConvertible {
    /// Nothing cached yet.
    case noData
    /// The position left the cached region's refresh threshold.
    case movedBeyondThreshold(meters: Double)
    /// The suggested refresh interval passed.
    case intervalElapsed(seconds: Double)

    public var description: String {
        switch self {
        case .noData: return "no cached data"
        case .movedBeyondThreshold(let meters): return String(format: "moved %.1f km from the cached centre", meters / 1_000)
        case .intervalElapsed(let seconds): return String(format: "%.0f min since the last fetch", seconds / 60)
        }
    }
}

/// The data a client holds: the last payload, its hash, where its region is centred and when
/// it was fetched or confirmed unchanged.
public struct GeofenceCache: Sendable, Hashable, Codable {
    /// The last payload.
    public var data: MobileData
    /// Its `X-Content-Hash`, sent with the next request.
    public var hash: String?
    /// The centre the refresh threshold is measured from: the payload's, or the position of
    /// the last request the server answered 304 (the same content holds there).
    public var center: GeoCoordinate
    /// When the payload was fetched or last confirmed unchanged.
    public var fetchedAt: Date

    /// A cache entry for a payload fetched at `fetchedAt`.
    public init(data: MobileData, hash: String?, fetchedAt: Date) {
        self.data = data
        self.hash = hash
        self.center = data.cachedRegion.center.geoCoordinate
        self.fetchedAt = fetchedAt
    }
}
