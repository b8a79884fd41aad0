import Foundation

/// A Picket server's geocoder, through its API: `POST /api/mobile/geocode` and
/// `/reverse-geocode` with the person's key. The apps' fallback for addresses the device does
/// not know, and their source of a chosen point's address (``PlaceFinder``).
public struct PicketServerGeocoder: Geocoder {
    /// The client, with the server and key.
    public let client: PicketClient

    /// The geocoder of the server `client` talks to.
    public init(client: PicketClient) {
        self.client = client
    }

    /// `picket-server`.
    public var name: String { "picket-server" }

    /// The server's answer; `nil` when it found nothing.
    ///
    /// - Throws: ``PicketClientError`` (a refused key, the server unreachable…).
    public func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
        let response = try await client.geocode(request)
        return response.success ? response.result : nil
    }

    /// The server's answer; `nil` when it found nothing.
    ///
    /// - Throws: ``PicketClientError``.
    public func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
        let response = try await client.reverseGeocode(coordinate)
        return response.success ? response.result : nil
    }
}
