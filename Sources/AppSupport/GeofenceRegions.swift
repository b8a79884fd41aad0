import Picket

/// A circle for Core Location's region monitoring (`CLCircularRegion`), named so that Pepper's
/// regions are told apart from any other the app monitors.
public struct GeofenceRegion: Sendable, Hashable {
    /// The region's identifier: ``GeofenceRegions/identifierPrefix`` and the geofence's id.
    public var identifier: String
    /// Its centre.
    public var center: GeoCoordinate
    /// Its radius in metres.
    public var radius: Double

    /// A region.
    public init(identifier: String, center: GeoCoordinate, radius: Double) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
    }
}

/// Which regions Core Location should monitor, from ``GeofencePlanner``'s choice: the nearest
/// geofences, never more than iOS's 20 regions per app. A region is only the wake-up call —
/// the circle of a geofence's notification radius; when it fires, the app reads the position
/// and ``GeofenceSession`` decides the events.
public enum GeofenceRegions {
    /// The prefix of Pepper's region identifiers.
    public static let identifierPrefix = "pepper.geofence."
    /// The most regions an app may monitor (iOS).
    public static let maximum = 20
    /// The smallest radius worth monitoring: region events are unreliable below about 100 m.
    public static let minimumRadius = 100.0

    /// The regions for the geofences the planner chose, nearest first, at most ``maximum``;
    /// radii clamped to what the device can monitor (`maximumRegionMonitoringDistance`).
    public static func regions(for monitored: [MonitoredRegion], maximumRadius: Double) -> [GeofenceRegion] {
        monitored.prefix(maximum).map { region in
            GeofenceRegion(
                identifier: identifierPrefix + region.geofence.id, center: region.geofence.coordinates.geoCoordinate,
                radius: min(max(region.notificationRadius, minimumRadius), maximumRadius))
        }
    }

    /// What to change in the monitored set.
    public struct Changes: Sendable, Hashable {
        /// Identifiers of regions to stop monitoring (do this first, to free their places).
        public var stop: [String]
        /// Regions to start monitoring.
        public var start: [GeofenceRegion]
    }

    /// How to go from the regions monitored now (`current`; other apps' parts of the app keep
    /// theirs: only identifiers with ``identifierPrefix`` are touched) to `planned`. A region
    /// whose centre or radius changed is stopped and started again; the result never has more
    /// than ``maximum`` of Pepper's regions.
    public static func changes(current: [GeofenceRegion], planned: [GeofenceRegion]) -> Changes {
        let planned = Array(planned.prefix(maximum))
        let wanted = Dictionary(planned.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let ours = current.filter { $0.identifier.hasPrefix(identifierPrefix) }
        let stop = ours.filter { wanted[$0.identifier] != $0 }.map(\.identifier).sorted()
        let kept = Set(ours.filter { wanted[$0.identifier] == $0 }.map(\.identifier))
        var seen = Set<String>()
        let start = planned.filter { !kept.contains($0.identifier) && seen.insert($0.identifier).inserted }
        return Changes(stop: stop, start: start)
    }
}
