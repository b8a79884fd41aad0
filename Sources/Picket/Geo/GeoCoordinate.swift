import Foundation

/// A point on the Earth in degrees (WGS 84 latitude and longitude).
public struct GeoCoordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude in degrees, −90…90.
    public var latitude: Double
    /// Longitude in degrees, −180…180.
    public var longitude: Double

    /// A point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both values are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// The point in the `data` payload's shape.
    public var coordinates: Coordinates { Coordinates(lat: latitude, lng: longitude) }

    public var description: String { String(format: "%.5f,%.5f", latitude, longitude) }
}

/// Great-circle geometry on a sphere of the Earth's mean radius.
///
/// A sphere is within 0.5 % of the ellipsoid everywhere, far below what geofences of a few
/// hundred metres and a GPS fix can tell apart, and it is what mobile clients use for region
/// monitoring. Distances use the spherical case of Vincenty's formula (an `atan2` of the cross
/// and dot products), which stays exact from a millimetre to the antipodes; haversine loses
/// precision near antipodes and the law of cosines below a few metres.
public enum GreatCircle {
    /// The IUGG mean Earth radius, in metres.
    public static let earthRadius = 6_371_008.8

    /// The distance in metres between two points along the surface.
    public static func distance(_ a: GeoCoordinate, _ b: GeoCoordinate) -> Double {
        let phi1 = a.latitude * .pi / 180
        let phi2 = b.latitude * .pi / 180
        let deltaLambda = (b.longitude - a.longitude) * .pi / 180
        let sinPhi1 = sin(phi1)
        let cosPhi1 = cos(phi1)
        let sinPhi2 = sin(phi2)
        let cosPhi2 = cos(phi2)
        let sinDeltaLambda = sin(deltaLambda)
        let cosDeltaLambda = cos(deltaLambda)
        let x = cosPhi2 * sinDeltaLambda
        let y = cosPhi1 * sinPhi2 - sinPhi1 * cosPhi2 * cosDeltaLambda
        let cross = (x * x + y * y).squareRoot()
        let dot = sinPhi1 * sinPhi2 + cosPhi1 * cosPhi2 * cosDeltaLambda
        return earthRadius * atan2(cross, dot)
    }

    /// The initial bearing from `a` to `b`, in degrees clockwise from north (0…360).
    public static func bearing(from a: GeoCoordinate, to b: GeoCoordinate) -> Double {
        let phi1 = a.latitude * .pi / 180
        let phi2 = b.latitude * .pi / 180
        let deltaLambda = (b.longitude - a.longitude) * .pi / 180
        let y = sin(deltaLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point reached from `start` after `distance` metres on the initial `bearing` (degrees).
    public static func destination(from start: GeoCoordinate, bearing: Double, distance: Double) -> GeoCoordinate {
        let delta = distance / earthRadius
        let theta = bearing * .pi / 180
        let phi1 = start.latitude * .pi / 180
        let lambda1 = start.longitude * .pi / 180
        let sinphi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(max(-1, min(1, sinphi2)))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sinphi2)
        var longitude = lambda2 * 180 / .pi
        longitude = (longitude + 540).truncatingRemainder(dividingBy: 360) - 180
        return GeoCoordinate(latitude: phi2 * 180 / .pi, longitude: longitude)
    }

    /// The latitude and longitude spans (degrees) of a circle of `radius` metres around
    /// `center`: every point of the circle lies within ±spans of the centre. The longitude span
    /// is 180 (everything) when the circle reaches a pole.
    public static func boundingSpans(center: GeoCoordinate, radius: Double) -> (latitude: Double, longitude: Double) {
        let latitudeSpan = radius / earthRadius * 180 / .pi
        let phi = center.latitude * .pi / 180
        let angular = radius / earthRadius
        let reachesPole = abs(center.latitude) + latitudeSpan >= 90
        guard !reachesPole else { return (latitudeSpan, 180) }
        // The widest longitude a circle spans on a sphere: asin(sin delta / cos φ).
        let ratio = sin(angular) / cos(phi)
        let longitudeSpan = ratio >= 1 ? 180 : asin(ratio) * 180 / .pi
        return (latitudeSpan, longitudeSpan)
    }
}
