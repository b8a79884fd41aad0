import Picket

/// A circle for Core Location's region monitoring (`CLCircularRegion`), named so that Pepper's
/// regions are told apart from any other the app monitors.
public struct GeofenceRegion: Sendable, Hashable {
    /// The region's identifier: ``GeofenceRegions/identifierPrefix``, the circle's role and the
    /// geofence's id (``GeofenceRegions/identifier(for:)``).
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

/// Which regions Core Location should monitor, from ``GeofencePlanner``'s circles: for each
/// geofence nearest first, its notification circle (`pepper.geofence.near.ID`) and its strike
/// zone (`pepper.geofence.zone.ID`), never more than iOS's 20 regions per app. Their crossings
/// go to ``GeofenceSession/crossed(region:entering:at:monitoring:maximumRadius:)``.
public enum GeofenceRegions {
    /// The prefix of Pepper's region identifiers.
    public static let identifierPrefix = "pepper.geofence."
    /// The most regions an app may monitor (iOS).
    public static let maximum = 20
    /// The smallest radius worth monitoring: region events are unreliable below about 100 m.
    public static let minimumRadius = GeofencePlanner().minimumRegionRadius

    /// The identifier of a circle's region.
    public static func identifier(for circle: GeofenceCircle) -> String {
        identifierPrefix + role(circle.role) + "." + circle.geofenceID
    }

    /// The circle a region identifier names: its role and geofence, or `nil` for a region that
    /// is not one of Pepper's circles (another part of the app's, or an earlier version's).
    public static func circle(named identifier: String) -> (role: GeofenceCircle.Role, geofenceID: String)? {
        guard identifier.hasPrefix(identifierPrefix) else { return nil }
        let rest = identifier.dropFirst(identifierPrefix.count)
        for candidate in GeofenceCircle.Role.allCases {
            let prefix = role(candidate) + "."
            if rest.hasPrefix(prefix), rest.count > prefix.count { return (candidate, String(rest.dropFirst(prefix.count))) }
        }
        return nil
    }

    private static func role(_ role: GeofenceCircle.Role) -> String {
        switch role {
        case .notification: return "near"
        case .zone: return "zone"
        }
    }

    /// The regions for the planner's circles, in its order (nearest geofence first), at most
    /// ``maximum``.
    public static func regions(for circles: [GeofenceCircle]) -> [GeofenceRegion] {
        circles.prefix(maximum).map { GeofenceRegion(identifier: identifier(for: $0), center: $0.center, radius: $0.radius) }
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
