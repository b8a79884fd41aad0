import Foundation

/// Turns addresses into coordinates and back. The API server asks its geocoder for
/// `POST /api/mobile/geocode` and `/reverse-geocode`; the embedded ``GazetteerGeocoder``
/// answers offline at city level, and a deployment can put a street-level backend (a Nominatim
/// server, say) in front of it with ``GeocoderChain``.
public protocol Geocoder: Sendable {
    /// A short name for logs and the `source` field.
    var name: String { get }
    /// Where the address is, or `nil` when this geocoder does not know.
    func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult?
    /// What is at (or nearest to) `coordinate`, or `nil` when this geocoder does not know.
    func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult?
}

/// Asks several geocoders in order; the first answer wins. A geocoder that fails (a remote
/// service down, say) is skipped, so the offline gazetteer at the end always has its say.
public struct GeocoderChain: Geocoder {
    /// The geocoders, in the order they are asked.
    public var geocoders: [any Geocoder]

    /// A chain of `geocoders`.
    public init(_ geocoders: [any Geocoder]) {
        self.geocoders = geocoders
    }

    /// The geocoders' names joined by `+` (`nominatim+geonames`).
    public var name: String { geocoders.map(\.name).joined(separator: "+") }

    /// The first answer of the geocoders, asked in order; one that throws is skipped.
    ///
    /// - Returns: `nil` when none of them knows the address.
    public func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
        for geocoder in geocoders {
            if let result = try? await geocoder.geocode(request) { return result }
        }
        return nil
    }

    /// The first answer of the geocoders, asked in order; one that throws is skipped.
    ///
    /// - Returns: `nil` when none of them knows the place.
    public func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
        for geocoder in geocoders {
            if let result = try? await geocoder.reverseGeocode(coordinate) { return result }
        }
        return nil
    }
}
