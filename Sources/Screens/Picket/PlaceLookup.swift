import Foundation
import PepperActions
import Picket

/// How the point of a snapshot or a report was chosen.
public enum PointOrigin: String, Sendable, Hashable, Codable {
    /// The device's position, when the person asked for it.
    case currentLocation
    /// An address the person typed, looked up.
    case address
    /// A pin the person dropped on the map.
    case map
    /// Coordinates the person typed.
    case typed
}

/// A point's address as a reverse lookup gave it, for the point it was looked up for: a form
/// shows it before sending, and sends only once the point it was shown for is still the one
/// chosen.
public struct ShownAddress: Sendable, Hashable, Codable {
    /// The point looked up.
    public var point: GeoCoordinate
    /// The place as one line (`Tacoma, Washington, United States`); `nil` when no geocoder knows
    /// the place (open sea, a desert).
    public var text: String?
    /// The geocoder that answered (`picket-server`, `device`).
    public var source: String?

    /// An address shown for `point`.
    public init(point: GeoCoordinate, text: String?, source: String?) {
        self.point = point
        self.text = text
        self.source = source
    }

    /// The line shown under the map: the address, or that none is known, with the coordinates.
    public var line: String {
        let coordinates = "\(PicketClient.format(point.latitude)), \(PicketClient.format(point.longitude))"
        guard let text else { return "No address is known for \(coordinates)." }
        return "\(text) (\(coordinates))"
    }
}

/// The part of the Earth a map starts by showing: a centre, and how many metres across.
public struct MapRegion: Sendable, Hashable {
    /// The centre.
    public var center: GeoCoordinate
    /// The width and height shown, in metres.
    public var spanMeters: Double

    /// A region.
    public init(center: GeoCoordinate, spanMeters: Double) {
        self.center = center
        self.spanMeters = spanMeters
    }

    /// Around a chosen point: a few streets, to check the pin.
    public static let pointSpan = 500.0
    /// Around a strike whose place was looked up from its words (often a city's centre).
    public static let strikeSpan = 3_000.0
    /// Around the person, when nothing is chosen yet.
    public static let personSpan = 1_500.0
}

/// The lookups of the report and snapshot forms, through a `PlaceFinder` over the face's
/// device geocoder (if any) and the configured Picket server.
enum PlaceLookup {
    /// The finder for `state`'s Picket server (when set) and `device`.
    static func finder(_ state: PepperState, device: (any Geocoder)?) -> PlaceFinder {
        let server = (try? state.picketConnection()).map { PicketServerGeocoder(client: $0.client()) }
        return PlaceFinder(device: device, server: server)
    }

    /// Where `address` is: the device first, then the server.
    static func lookUp(
        _ address: String, state: PepperState, device: (any Geocoder)?, field: String
    ) async -> (Notice, GeocodeResult?) {
        let query = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else {
            return (.error("Type an address to look up, such as \"400 Pine St, Seattle, WA\".", field: field), nil)
        }
        let finder = finder(state, device: device)
        switch await finder.geocode(GeocodeRequest(address: query)) {
        case .found(let result, _):
            return (.success("Found \(describe(result))."), result)
        case .notFound:
            return (.error("No place was found for \"\(query)\": try the city, or give coordinates.", field: field), nil)
        case .failed(let failures):
            return (failureNotice(failures, field: field, what: "look the address up"), nil)
        case .noGeocoder:
            return (PicketServerErrors.notConfigured, nil)
        }
    }

    /// The address at `point`: the server first, then the device. A failure is a notice, and no
    /// address is shown.
    static func address(
        at point: GeoCoordinate, state: PepperState, device: (any Geocoder)?
    ) async -> Result<ShownAddress, Notice> {
        switch await finder(state, device: device).reverseGeocode(point) {
        case .found(let result, let source):
            return .success(ShownAddress(point: point, text: describe(result), source: source))
        case .notFound:
            return .success(ShownAddress(point: point, text: nil, source: nil))
        case .failed(let failures):
            return .failure(failureNotice(failures, field: nil, what: "find the address of this point"))
        case .noGeocoder:
            return .failure(PicketServerErrors.notConfigured)
        }
    }

    /// The server's failure in its own words when it was asked (it says what to fix: the key,
    /// the address); else the device's.
    static func failureNotice(_ failures: [PlaceFinder.Failure], field: String?, what: String) -> Notice {
        if let error = failures.lazy.compactMap({ $0.error as? PicketClientError }).first {
            var notice = PicketServerErrors.notice(error, fields: ["address"])
            if notice.field == "address" { notice.field = field }
            return notice
        }
        let reasons = failures.map { "\($0.source): \($0.error)" }.joined(separator: "; ")
        return .error(Text.sentence("Cannot \(what) (\(reasons)); try again, or give coordinates"), field: field)
    }

    /// `Seattle, Washington, United States (47.6062, -122.3321; city centre)`.
    static func describe(_ result: GeocodeResult) -> String {
        var text = result.displayName ?? "the place"
        text += " (\(PicketClient.format(result.latitude)), \(PicketClient.format(result.longitude))"
        if let source = result.source, source.contains("city centre") { text += "; city centre" }
        return text + ")"
    }

    /// `400 Pine St, Seattle, Washington, United States`: the display name, else the parts.
    static func describe(_ result: ReverseGeocodeResult) -> String {
        if let name = result.displayName, !name.isEmpty {
            if let street = result.address, !street.isEmpty, !name.contains(street) { return "\(street), \(name)" }
            return name
        }
        let parts = [result.address, result.city, result.state, result.country].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? "an unnamed place" : parts.joined(separator: ", ")
    }

    /// The point a form holds as text, when both coordinates are numbers in range.
    static func point(latitude: String, longitude: String) -> GeoCoordinate? {
        guard let lat = Double(latitude.trimmed), let lng = Double(longitude.trimmed) else { return nil }
        let point = GeoCoordinate(latitude: lat, longitude: lng)
        return point.isValid ? point : nil
    }
}
