import Foundation

/// How precisely a position leaves the device.
///
/// Two cases, decided here once for every face:
///
/// - **In the background** (the `data` fetches that keep geofences and blocklists fresh, which
///   the person does not start): rounded to ``backgroundDecimals`` decimals of a degree, the
///   area the location prompt promises ("only the area you are in is sent"). Two decimals is
///   at most 0.005° from the true position: 556 m of latitude, and 556 m × cos(latitude) of
///   longitude (393 m at 45°), a neighbourhood about a kilometre across. The Picket server
///   rounds the centre it selects geofences around to the same 0.01°, so the answer is the
///   one a precise position would get.
/// - **Chosen by the person** (a GPS snapshot, a strike report's coordinates): sent as given,
///   to ``chosenDecimals`` decimals (about 0.1 m, finer than any phone's fix), because the person
///   sends that point on purpose.
public enum LocationPrecision {
    /// Decimals of a degree kept in a position sent in the background.
    public static let backgroundDecimals = 2
    /// Decimals of a degree kept in a position the person chose to send.
    public static let chosenDecimals = 6
    /// The background precision in words, for prompts and documentation.
    public static let backgroundArea = "about 1 km"

    /// `position` rounded to `decimals` decimals of a degree (half away from zero), a longitude
    /// of −180 written as 180 so one meridian has one name.
    public static func rounded(_ position: GeoCoordinate, decimals: Int) -> GeoCoordinate {
        let scale = pow(10, Double(max(0, decimals)))
        func round(_ degrees: Double) -> Double {
            guard degrees.isFinite else { return degrees }
            let value = (degrees * scale).rounded(.toNearestOrAwayFromZero) / scale
            return value == 0 ? 0 : value  // no -0
        }
        var longitude = round(position.longitude)
        if longitude == -180 { longitude = 180 }
        return GeoCoordinate(latitude: round(position.latitude), longitude: longitude)
    }

    /// `position` as it may be sent in the background: the area, not the point.
    public static func background(_ position: GeoCoordinate) -> GeoCoordinate {
        rounded(position, decimals: backgroundDecimals)
    }
}
