import Foundation

/// The body of `POST /api/mobile/geocode`: a free-form address, or its parts.
public struct GeocodeRequest: Codable, Sendable, Hashable {
    /// The whole address (`"Seattle, WA"`).
    public var address: String?
    /// The street and number.
    public var street: String?
    /// The city.
    public var city: String?
    /// The state or region (`WA`, `Washington`).
    public var state: String?
    /// The postal code.
    public var zipCode: String?

    /// A request.
    public init(address: String? = nil, street: String? = nil, city: String? = nil, state: String? = nil, zipCode: String? = nil) {
        self.address = address
        self.street = street
        self.city = city
        self.state = state
        self.zipCode = zipCode
    }

    /// The request as one line: ``address``, or the parts joined by commas.
    public var singleLine: String {
        if let address, !address.trimmingCharacters(in: .whitespaces).isEmpty { return address }
        return [street, city, [state, zipCode].compactMap { $0 }.joined(separator: " ")].compactMap { part in
            guard let part, !part.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return part
        }.joined(separator: ", ")
    }
}

/// The answer to a geocode request.
public struct GeocodeResponse: Codable, Sendable, Hashable {
    /// Whether a place was found.
    public var success: Bool
    /// The request as one line.
    public var input: String?
    /// The place, when found.
    public var result: GeocodeResult?

    /// A response.
    public init(success: Bool, input: String?, result: GeocodeResult?) {
        self.success = success
        self.input = input
        self.result = result
    }
}

/// Where an address is.
public struct GeocodeResult: Codable, Sendable, Hashable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// The place found (`Seattle, Washington, United States`).
    public var displayName: String?
    /// 0…1: how sure the geocoder is that these coordinates are where the address is.
    public var confidence: Double?
    /// Which geocoder answered and at what precision (`geonames-cities15000 (city centre)`).
    public var source: String?

    /// A result.
    public init(latitude: Double, longitude: Double, displayName: String?, confidence: Double?, source: String?) {
        self.latitude = latitude
        self.longitude = longitude
        self.displayName = displayName
        self.confidence = confidence
        self.source = source
    }
}

/// The body of `POST /api/mobile/reverse-geocode`.
public struct ReverseGeocodeRequest: Codable, Sendable, Hashable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double

    /// A request.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The answer to a reverse-geocode request.
public struct ReverseGeocodeResponse: Codable, Sendable, Hashable {
    /// Whether a place was found.
    public var success: Bool
    /// The coordinates asked about.
    public var input: GPSCoordinates?
    /// The place, when found.
    public var result: ReverseGeocodeResult?

    /// A response.
    public init(success: Bool, input: GPSCoordinates?, result: ReverseGeocodeResult?) {
        self.success = success
        self.input = input
        self.result = result
    }
}

/// What is at (or nearest to) a point.
public struct ReverseGeocodeResult: Codable, Sendable, Hashable {
    /// The street address, when the geocoder knows streets (the gazetteer does not).
    public var address: String?
    /// The city.
    public var city: String?
    /// The state or region.
    public var state: String?
    /// The postal code, when known.
    public var zipCode: String?
    /// The country.
    public var country: String?
    /// The place as one line.
    public var displayName: String?
    /// Metres from the point to the place found (a Pepper addition; clients ignore it).
    public var distanceMeters: Int?
    /// Which geocoder answered (a Pepper addition).
    public var source: String?

    /// A result.
    public init(
        address: String? = nil, city: String? = nil, state: String? = nil, zipCode: String? = nil, country: String? = nil,
        displayName: String? = nil, distanceMeters: Int? = nil, source: String? = nil
    ) {
        self.address = address
        self.city = city
        self.state = state
        self.zipCode = zipCode
        self.country = country
        self.displayName = displayName
        self.distanceMeters = distanceMeters
        self.source = source
    }
}
