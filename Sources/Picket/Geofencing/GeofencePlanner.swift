import Foundation

/// The client's geofencing logic (`docs/picket.md`), free of any location framework so that an iOS
/// app, an Android port and `pepper picket track` share it: which geofences and circles to
/// monitor, when to run precise location updates, when to refresh the cached data, and which
/// events a position change or a region crossing raises.
///
/// - Regions: iOS monitors at most 20 regions per app. Each nearby geofence gets two circles, its
///   notification circle and its strike zone (one when they coincide), nearest geofence first
///   (ties broken by identifier, so the choice is deterministic), until ``maximumRegions``
///   circles; they rotate as the position moves.
/// - Precise updates: inside a notification circle the apps run standard location updates with
///   ``distanceFilter`` until the phone leaves it (``LocationUpdates``).
/// - Refresh: when the data came from another server, when the position is farther than
///   `refreshThresholdMeters` from the cached region's centre, when ``maximumAge`` has passed
///   (expired), or when `suggestedRefreshInterval` has passed since the last fetch.
public struct GeofencePlanner: Sendable, Hashable, Codable {
    /// The most regions (circles) monitored at once (iOS allows 20 per app).
    public var maximumRegions: Int
    /// The radius of a strike zone: inside it a person is at the picket line. A geofence's
    /// `notificationRadius`, when smaller, wins.
    public var zoneRadius: Double
    /// Metres beyond a boundary before a position counts as outside again, so GPS jitter at
    /// the edge does not raise enter / leave pairs.
    public var hysteresis: Double
    /// The distance filter of the standard location updates run inside a notification circle:
    /// smaller than ``hysteresis``, so a fix comes before the person is a margin's width past a
    /// boundary.
    public var distanceFilter: Double
    /// The smallest radius a region is monitored with: region events are unreliable below about
    /// 100 m, so a smaller circle is monitored larger, and its crossings only wake the app.
    public var minimumRegionRadius: Double
    /// Seconds after a fetch (or a 304) when the data expires: past it, it is refreshed even
    /// where an hourly check would be skipped (Low Power Mode).
    public var maximumAge: Double
    /// Seconds a fix outranks a region crossing that contradicts it: a fix is more precise than
    /// region monitoring, which reports a crossing about 20 seconds after it happened; with no
    /// fix that recent (precise updates off or paused), the crossing decides.
    public var fixLifetime: Double

    /// A planner; the defaults follow the app designs.
    public init(
        maximumRegions: Int = 20, zoneRadius: Double = 100, hysteresis: Double = 25, distanceFilter: Double = 20,
        minimumRegionRadius: Double = 100, maximumAge: Double = 86_400, fixLifetime: Double = 60
    ) {
        self.maximumRegions = max(0, maximumRegions)
        self.zoneRadius = zoneRadius
        self.hysteresis = max(0, hysteresis)
        self.distanceFilter = max(0, distanceFilter)
        self.minimumRegionRadius = max(0, minimumRegionRadius)
        self.maximumAge = max(0, maximumAge)
        self.fixLifetime = max(0, fixLifetime)
    }

    private enum CodingKeys: String, CodingKey {
        case maximumRegions, zoneRadius, hysteresis, distanceFilter, minimumRegionRadius, maximumAge, fixLifetime
    }

    /// Reads a planner; settings added after it was saved take their defaults (a session saved
    /// by an earlier version is kept, not dropped).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = GeofencePlanner()
        self.init(
            maximumRegions: try container.decodeIfPresent(Int.self, forKey: .maximumRegions) ?? defaults.maximumRegions,
            zoneRadius: try container.decodeIfPresent(Double.self, forKey: .zoneRadius) ?? defaults.zoneRadius,
            hysteresis: try container.decodeIfPresent(Double.self, forKey: .hysteresis) ?? defaults.hysteresis,
            distanceFilter: try container.decodeIfPresent(Double.self, forKey: .distanceFilter) ?? defaults.distanceFilter,
            minimumRegionRadius: try container.decodeIfPresent(Double.self, forKey: .minimumRegionRadius) ?? defaults.minimumRegionRadius,
            maximumAge: try container.decodeIfPresent(Double.self, forKey: .maximumAge) ?? defaults.maximumAge,
            fixLifetime: try container.decodeIfPresent(Double.self, forKey: .fixLifetime) ?? defaults.fixLifetime)
    }

    /// The geofences events are decided for around `position`: at most ``maximumRegions``,
    /// nearest first.
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

    /// The circles to monitor for `monitored` (nearest first): each geofence's notification
    /// circle, then its zone, until ``maximumRegions``; a last geofence with one place left gets
    /// its notification circle (the one crossed first on the way in). Radii are clamped between
    /// ``minimumRegionRadius`` and `maximumRadius` (what the device monitors); two circles of a
    /// geofence that clamp to the same radius are one region, its zone.
    public func circles(for monitored: [MonitoredRegion], maximumRadius: Double = .infinity) -> [GeofenceCircle] {
        let upper = max(maximumRadius, minimumRegionRadius)
        var circles: [GeofenceCircle] = []
        for region in monitored where circles.count < maximumRegions {
            let center = region.geofence.coordinates.geoCoordinate
            func circle(_ role: GeofenceCircle.Role, _ radius: Double) -> GeofenceCircle {
                let monitoredRadius = min(max(radius, minimumRegionRadius), upper)
                return GeofenceCircle(
                    geofenceID: region.geofence.id, role: role, center: center, radius: monitoredRadius, exact: monitoredRadius == radius)
            }
            let zone = circle(.zone, region.zoneRadius)
            let notification = circle(.notification, region.notificationRadius)
            if notification.radius == zone.radius {
                circles.append(zone)
            } else {
                circles.append(notification)
                if circles.count < maximumRegions { circles.append(zone) }
            }
        }
        return circles
    }

    /// Why the cached data should be refreshed at `position` and `now`, or `nil` to keep it.
    /// `server` is the server asked now, when the caller knows it: data from another one is
    /// refreshed at once.
    public func refreshReason(position: GeoCoordinate, now: Date, cache: GeofenceCache?, server: String? = nil) -> RefreshReason? {
        guard let cache else { return .noData }
        if let server, cache.server != server { return .serverChanged }
        let distance = GreatCircle.distance(position, cache.center)
        if distance > Double(cache.data.cachedRegion.refreshThresholdMeters) { return .movedBeyondThreshold(meters: distance) }
        let age = now.timeIntervalSince(cache.fetchedAt)
        if now >= expiry(of: cache) { return .expired(seconds: age) }
        let interval = Double(cache.data.suggestedRefreshInterval) / 1_000
        if age >= interval { return .intervalElapsed(seconds: interval) }
        return nil
    }

    /// When `cache` is next due for its hash check (`suggestedRefreshInterval` after the fetch).
    public func due(of cache: GeofenceCache) -> Date {
        cache.fetchedAt.addingTimeInterval(Double(cache.data.suggestedRefreshInterval) / 1_000)
    }

    /// When `cache` expires: ``maximumAge`` after the fetch, or the refresh interval when the
    /// server suggests a longer one.
    public func expiry(of cache: GeofenceCache) -> Date {
        cache.fetchedAt.addingTimeInterval(max(maximumAge, Double(cache.data.suggestedRefreshInterval) / 1_000))
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

/// One circle a device monitors for a geofence (a `CLCircularRegion` on iOS).
public struct GeofenceCircle: Sendable, Hashable, Codable {
    /// Which of a geofence's two circles.
    public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
        /// The notification circle: crossing it in raises "Near Strike" and starts precise updates.
        case notification
        /// The strike zone: crossing it raises "Entering" / "Leaving Strike Zone".
        case zone
    }

    /// The geofence's identifier.
    public var geofenceID: String
    /// Which circle.
    public var role: Role
    /// Its centre.
    public var center: GeoCoordinate
    /// The radius monitored, in metres.
    public var radius: Double
    /// Whether ``radius`` is the circle's own (not clamped to what the device monitors): only
    /// then does a crossing decide an event; otherwise it only wakes the app to read the position.
    public var exact: Bool

    /// A circle.
    public init(geofenceID: String, role: Role, center: GeoCoordinate, radius: Double, exact: Bool) {
        self.geofenceID = geofenceID
        self.role = role
        self.center = center
        self.radius = radius
        self.exact = exact
    }
}

/// Whether the apps run standard (precise) location updates, and with which distance filter:
/// on while the position is inside a monitored geofence's notification circle (until it is
/// ``GeofencePlanner/hysteresis`` metres past it), off elsewhere, where significant changes
/// and region crossings wake the app.
public struct LocationUpdates: Sendable, Hashable, CustomStringConvertible {
    /// Whether they run.
    public var isOn: Bool
    /// Metres between fixes.
    public var distanceFilter: Double
    /// The geofences whose notification circle the position is in (sorted), the reason they run.
    public var geofenceIDs: [String]

    /// Updates as decided.
    public init(isOn: Bool, distanceFilter: Double, geofenceIDs: [String]) {
        self.isOn = isOn
        self.distanceFilter = distanceFilter
        self.geofenceIDs = geofenceIDs
    }

    public var description: String {
        isOn ? "on, every \(Int(distanceFilter.rounded())) m (\(geofenceIDs.joined(separator: ", ")))" : "off"
    }
}

/// Why a client refreshes.
public enum RefreshReason: Sendable, Hashable, CustomStringConvertible {
    /// Nothing cached yet (or the cache was cleared).
    case noData
    /// The cached data came from another server than the one asked now.
    case serverChanged
    /// The position left the cached region's refresh threshold.
    case movedBeyondThreshold(meters: Double)
    /// The data is past its expiry (``GeofencePlanner/maximumAge``); `seconds` is its age.
    case expired(seconds: Double)
    /// The suggested refresh interval passed.
    case intervalElapsed(seconds: Double)

    public var description: String {
        switch self {
        case .noData: return "no cached data"
        case .serverChanged: return "the data came from another server"
        case .movedBeyondThreshold(let meters): return String(format: "moved %.1f km from the cached centre", meters / 1_000)
        case .expired(let seconds): return String(format: "the data is %.1f h old, past its expiry", seconds / 3_600)
        case .intervalElapsed(let seconds): return String(format: "%.0f min since the last fetch", seconds / 60)
        }
    }
}

/// The data a client holds: the last payload, its hash, where its region is centred, when it
/// was fetched or confirmed unchanged, and from which server.
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
    /// The server it came from, when the client said (`nil` in caches saved before it was kept).
    public var server: String?

    /// A cache entry for a payload fetched from `server` at `fetchedAt`.
    public init(data: MobileData, hash: String?, fetchedAt: Date, server: String? = nil) {
        self.data = data
        self.hash = hash
        self.center = data.cachedRegion.center.geoCoordinate
        self.fetchedAt = fetchedAt
        self.server = server
    }
}
