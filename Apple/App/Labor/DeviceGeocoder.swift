import CoreLocation
import Picket

/// The device's geocoder, `CLGeocoder`, as Picket's `Geocoder`: the report and snapshot screens'
/// `PlaceFinder` asks it first for typed addresses, and after the Picket server for a point's
/// address. A new `CLGeocoder` per request (Apple allows one request at a time per instance).
struct DeviceGeocoder: Geocoder {
    var name: String { "device" }

    func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
        let placemarks: [CLPlacemark]
        do {
            placemarks = try await CLGeocoder().geocodeAddressString(request.singleLine)
        } catch let error as CLError where error.code == .geocodeFoundNoResult || error.code == .geocodeFoundPartialResult {
            return nil
        }
        guard let placemark = placemarks.first, let location = placemark.location else { return nil }
        return GeocodeResult(
            latitude: location.coordinate.latitude, longitude: location.coordinate.longitude, displayName: Self.line(placemark),
            confidence: nil, source: name)
    }

    func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
        let placemarks: [CLPlacemark]
        do {
            placemarks = try await CLGeocoder().reverseGeocodeLocation(
                CLLocation(latitude: coordinate.latitude, longitude: coordinate.longitude))
        } catch let error as CLError where error.code == .geocodeFoundNoResult {
            return nil
        }
        guard let placemark = placemarks.first else { return nil }
        let street = [placemark.subThoroughfare, placemark.thoroughfare].compactMap { $0 }.joined(separator: " ")
        return ReverseGeocodeResult(
            address: street.isEmpty ? nil : street, city: placemark.locality, state: placemark.administrativeArea,
            zipCode: placemark.postalCode, country: placemark.country, displayName: Self.line(placemark), source: name)
    }

    /// `Pike Place Market, Seattle, WA, United States`: the placemark's parts, each once.
    private static func line(_ placemark: CLPlacemark) -> String {
        var parts: [String] = []
        for part in [placemark.name, placemark.locality, placemark.administrativeArea, placemark.country] {
            if let part, !part.isEmpty, !parts.contains(part) { parts.append(part) }
        }
        return parts.joined(separator: ", ")
    }
}
