import Foundation

/// Which geocoder answers which question, and in what order, for the report and snapshot forms
/// of every face (the app, the console):
///
/// - **An address typed by the person** goes to the device's geocoder first (`CLGeocoder` in
///   the app, which the design names: Apple's geocoding service, so the Picket server does not
///   learn what was typed), then to the Picket server's `/api/mobile/geocode` when the device
///   does not know it or cannot be asked.
/// - **A chosen point** is shown as an address from the server's `/api/mobile/reverse-geocode`
///   first (the geocoder the moderators' tools read places with), then from the device's when the
///   server does not know the place or cannot be asked.
///
/// A face without a device geocoder (the console) gives `nil`, and the server answers alone;
/// without a server set, the device answers alone.
public struct PlaceFinder: Sendable {
    /// The device's geocoder (`CLGeocoder` in the app), if the face has one.
    public var device: (any Geocoder)?
    /// The Picket server's geocoder, if a server is set.
    public var server: (any Geocoder)?

    /// A finder over the given geocoders.
    public init(device: (any Geocoder)?, server: (any Geocoder)?) {
        self.device = device
        self.server = server
    }

    /// One geocoder that could not be asked.
    public struct Failure: Sendable {
        /// The geocoder's ``Geocoder/name``.
        public var source: String
        /// Why (for the server, a ``PicketClientError``).
        public var error: any Error

        /// A failure.
        public init(source: String, error: any Error) {
            self.source = source
            self.error = error
        }
    }

    /// What the geocoders said.
    public enum Answer<Value: Sendable>: Sendable {
        /// `source` (a geocoder's name) knew it.
        case found(Value, source: String)
        /// Every geocoder was asked and none knows the place.
        case notFound
        /// None knew the place and these could not be asked (in the order asked).
        case failed([Failure])
        /// There is no geocoder to ask.
        case noGeocoder

        /// The value found, if any.
        public var value: Value? {
            if case .found(let value, _) = self { return value }
            return nil
        }
    }

    /// The geocoders asked for an address, in order: the device, then the server.
    public var addressOrder: [any Geocoder] { [device, server].compactMap { $0 } }
    /// The geocoders asked for a point's address, in order: the server, then the device.
    public var pointOrder: [any Geocoder] { [server, device].compactMap { $0 } }

    /// Where the address is: the first answer in ``addressOrder``.
    public func geocode(_ request: GeocodeRequest) async -> Answer<GeocodeResult> {
        await ask(addressOrder) { try await $0.geocode(request) }
    }

    /// What is at `point`: the first answer in ``pointOrder``.
    public func reverseGeocode(_ point: GeoCoordinate) async -> Answer<ReverseGeocodeResult> {
        await ask(pointOrder) { try await $0.reverseGeocode(point) }
    }

    private func ask<Value: Sendable>(
        _ geocoders: [any Geocoder], _ question: (any Geocoder) async throws -> Value?
    ) async -> Answer<Value> {
        guard !geocoders.isEmpty else { return .noGeocoder }
        var failures: [Failure] = []
        for geocoder in geocoders {
            do {
                if let value = try await question(geocoder) { return .found(value, source: geocoder.name) }
            } catch {
                failures.append(Failure(source: geocoder.name, error: error))
            }
        }
        // "Not found" only when everyone could be asked: a server that refused the key must be
        // said, not hidden behind the device's "I do not know".
        return failures.isEmpty ? .notFound : .failed(failures)
    }
}
