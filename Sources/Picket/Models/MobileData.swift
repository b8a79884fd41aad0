import Foundation

/// The body of `GET /api/mobile/data` (`docs/picket.md`): the blocklist of struck employers' domains
/// and the geofences around a position, with the hints a client needs to refresh sparingly.
///
/// Field names and types are the ones the public OPL iOS and Android clients decode strictly:
/// identifiers and dates are strings, distances and intervals are integers.
public struct MobileData: Codable, Sendable, Hashable {
    /// The format version of this payload.
    public var version: String
    /// When the server produced it (ISO 8601).
    public var generatedAt: String
    /// How long a client may use it before asking again, in milliseconds (3,600,000).
    public var suggestedRefreshInterval: Int
    /// The region the geofences cover.
    public var cachedRegion: CachedRegion
    /// The geofences within ``CachedRegion/radiusMeters`` of the centre, nearest first.
    public var geofences: GeofenceCollection
    /// Every struck employer's domains (not limited to the region: websites are everywhere).
    public var blocklist: Blocklist

    /// A payload with the given parts.
    public init(
        version: String, generatedAt: String, suggestedRefreshInterval: Int, cachedRegion: CachedRegion,
        geofences: GeofenceCollection, blocklist: Blocklist
    ) {
        self.version = version
        self.generatedAt = generatedAt
        self.suggestedRefreshInterval = suggestedRefreshInterval
        self.cachedRegion = cachedRegion
        self.geofences = geofences
        self.blocklist = blocklist
    }
}

/// A point as the `data` payload writes it: `{lat, lng}` in degrees.
public struct Coordinates: Codable, Sendable, Hashable {
    /// Latitude in degrees, −90…90.
    public var lat: Double
    /// Longitude in degrees, −180…180.
    public var lng: Double

    /// A point.
    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// The same point as a ``GeoCoordinate``.
    public var geoCoordinate: GeoCoordinate { GeoCoordinate(latitude: lat, longitude: lng) }
}

/// The region a `data` payload covers and when a client should leave it.
public struct CachedRegion: Codable, Sendable, Hashable {
    /// The centre the geofences were selected around.
    public var center: Coordinates
    /// The selection radius in metres (default 160,934 = 100 miles).
    public var radiusMeters: Int
    /// How far from ``center`` a client may move before refreshing (80 % of the radius).
    public var refreshThresholdMeters: Int

    /// A region.
    public init(center: Coordinates, radiusMeters: Int, refreshThresholdMeters: Int) {
        self.center = center
        self.radiusMeters = radiusMeters
        self.refreshThresholdMeters = refreshThresholdMeters
    }
}

/// The geofences of a payload, twice: grouped by employer and as one list.
public struct GeofenceCollection: Codable, Sendable, Hashable {
    /// How many geofences ``all`` holds.
    public var total: Int
    /// The geofences per employer, the employer with the nearest geofence first.
    public var byEmployer: [EmployerGeofences]
    /// Every geofence, nearest first.
    public var all: [Geofence]

    /// A collection.
    public init(total: Int, byEmployer: [EmployerGeofences], all: [Geofence]) {
        self.total = total
        self.byEmployer = byEmployer
        self.all = all
    }
}

/// One employer's geofences.
public struct EmployerGeofences: Codable, Sendable, Hashable {
    /// The employer's identifier.
    public var employerId: String
    /// The employer's name.
    public var employerName: String
    /// Its geofences, nearest first.
    public var geofences: [Geofence]

    /// A group.
    public init(employerId: String, employerName: String, geofences: [Geofence]) {
        self.employerId = employerId
        self.employerName = employerName
        self.geofences = geofences
    }
}

/// A circle around a place of a labor action: the action itself, a picket site, or one of the
/// employer's locations while the action lasts.
public struct Geofence: Codable, Sendable, Hashable, Identifiable {
    /// Unique among the geofences of a payload.
    public var id: String
    /// `action`, `picket-site` or `employer-location` (see ``GeofenceKind``).
    public var type: String
    /// The labor action.
    public var actionId: String
    /// The employer.
    public var employerId: String
    /// The employer's name.
    public var employerName: String
    /// `strike`, `boycott`, `picket`, `protest` or `other`.
    public var actionType: String
    /// The organisation (union) running the action.
    public var organization: String?
    /// The action's location as written by people (an address or a city).
    public var location: String?
    /// The centre of the circle.
    public var coordinates: Coordinates
    /// Metres from the request's position to ``coordinates``, rounded.
    public var distance: Int
    /// Within this many metres a client says "Near Strike".
    public var notificationRadius: Int
    /// When the action started (ISO 8601).
    public var startDate: String?
    /// When it ends (ISO 8601), if known.
    public var endDate: String?
    /// What it is about.
    public var description: String?
    /// The workers' demands.
    public var demands: String?
    /// Where to learn more.
    public var moreInfoUrl: String?
    /// For picket sites and employer locations: the place's name.
    public var locationName: String?
    /// For employer locations: the kind of place (store, warehouse, office…).
    public var locationType: String?

    /// A geofence.
    public init(
        id: String, type: String, actionId: String, employerId: String, employerName: String, actionType: String,
        organization: String? = nil, location: String? = nil, coordinates: Coordinates, distance: Int, notificationRadius: Int,
        startDate: String? = nil, endDate: String? = nil, description: String? = nil, demands: String? = nil,
        moreInfoUrl: String? = nil, locationName: String? = nil, locationType: String? = nil
    ) {
        self.id = id
        self.type = type
        self.actionId = actionId
        self.employerId = employerId
        self.employerName = employerName
        self.actionType = actionType
        self.organization = organization
        self.location = location
        self.coordinates = coordinates
        self.distance = distance
        self.notificationRadius = notificationRadius
        self.startDate = startDate
        self.endDate = endDate
        self.description = description
        self.demands = demands
        self.moreInfoUrl = moreInfoUrl
        self.locationName = locationName
        self.locationType = locationType
    }

    /// ``type`` as a ``GeofenceKind``, if it is one Pepper knows.
    public var kind: GeofenceKind? { GeofenceKind(rawValue: type) }
}

/// The kinds of geofence.
public enum GeofenceKind: String, Codable, Sendable, CaseIterable {
    /// The action's own coordinates.
    case action
    /// A picket site of the action (added by organisers or approved GPS snapshots).
    case picketSite = "picket-site"
    /// A location of the employer (a store, a warehouse) while the action lasts.
    case employerLocation = "employer-location"
}

/// The struck employers' domains.
public struct Blocklist: Codable, Sendable, Hashable {
    /// How many entries ``urls`` holds.
    public var totalUrls: Int
    /// How many employers they belong to.
    public var totalEmployers: Int
    /// The entries.
    public var urls: [BlocklistEntry]

    /// A blocklist.
    public init(totalUrls: Int, totalEmployers: Int, urls: [BlocklistEntry]) {
        self.totalUrls = totalUrls
        self.totalEmployers = totalEmployers
        self.urls = urls
    }
}

/// One blocklist entry: a domain (or URL) of a struck employer and the action behind it.
public struct BlocklistEntry: Codable, Sendable, Hashable {
    /// A host name (`example.com`) or URL; see ``BlocklistMatcher`` for how hosts match it.
    public var url: String
    /// The employer's name.
    public var employer: String
    /// The employer's identifier.
    public var employerId: String
    /// The action's type (`strike`, `boycott`…).
    public var actionType: String
    /// The action's identifier.
    public var actionId: String

    /// An entry.
    public init(url: String, employer: String, employerId: String, actionType: String, actionId: String) {
        self.url = url
        self.employer = employer
        self.employerId = employerId
        self.actionType = actionType
        self.actionId = actionId
    }
}
