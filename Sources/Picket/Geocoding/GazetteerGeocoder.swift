import Foundation

/// Offline geocoding over the embedded GeoNames gazetteer: city level only, and it says so.
///
/// - Address → coordinates: finds the city in the address (a comma-separated part, or the
///   `city` field) and checks it against any US state, ZIP code or country also given; the
///   coordinates are the city's centre. `confidence` reflects both the match and the precision:
///   0.8 for a city confirmed by its state or country, 0.7 for an unambiguous city name, 0.5
///   when several places share the name and the most populous was taken, and at most 0.3 when
///   a street was given (the street itself is not located). `source` names the gazetteer and
///   "city centre".
/// - Coordinates → place: the nearest place within ``maximumReverseDistance``; its distance is
///   in `distanceMeters`, and a point more than 10 km away is described as "near" the place.
public struct GazetteerGeocoder: Geocoder {
    /// The `source` value of every result.
    public static let source = "geonames-cities15000 (city centre; offline gazetteer)"

    /// The gazetteer.
    public let gazetteer: Gazetteer
    /// How far the nearest place may be for a reverse lookup, in metres.
    public var maximumReverseDistance: Double

    /// A geocoder over `gazetteer` (default: the embedded one).
    public init(gazetteer: Gazetteer = .shared, maximumReverseDistance: Double = 200_000) {
        self.gazetteer = gazetteer
        self.maximumReverseDistance = maximumReverseDistance
    }

    /// `geonames`.
    public var name: String { "geonames" }

    /// The city the address names, at its centre (see ``locate(_:)``); never throws.
    public func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
        locate(request)
    }

    /// The nearest place within ``maximumReverseDistance`` (see ``describe(_:)``); never throws.
    public func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
        describe(coordinate)
    }

    /// The synchronous form of ``geocode(_:)``.
    public func locate(_ request: GeocodeRequest) -> GeocodeResult? {
        let query = parse(request)
        for candidate in query.cityCandidates {
            let places = gazetteer.places(named: candidate).filter { place in
                query.constraints.allSatisfy { $0.accepts(place) }
            }
            guard let place = places.first else { continue }
            var confidence = query.constraints.isEmpty ? (places.count == 1 ? 0.7 : 0.5) : 0.8
            if query.hasStreet { confidence = min(confidence, 0.3) }
            return GeocodeResult(
                latitude: place.coordinate.latitude, longitude: place.coordinate.longitude,
                displayName: gazetteer.displayName(of: place), confidence: confidence, source: Self.source)
        }
        return nil
    }

    /// The synchronous form of ``reverseGeocode(_:)``.
    public func describe(_ coordinate: GeoCoordinate) -> ReverseGeocodeResult? {
        guard coordinate.isValid, let (place, distance) = gazetteer.nearest(to: coordinate, within: maximumReverseDistance) else {
            return nil
        }
        let name = gazetteer.displayName(of: place)
        return ReverseGeocodeResult(
            address: nil, city: place.name, state: gazetteer.regionName(of: place), zipCode: nil,
            country: gazetteer.countryName(place.countryCode), displayName: distance > 10_000 ? "near \(name)" : name,
            distanceMeters: Int(distance.rounded()), source: Self.source)
    }

    // MARK: Reading addresses

    /// What an address says besides the city: a US state or a country. Two-letter codes are
    /// ambiguous (`CA` is California and Canada, `DE` Delaware and Germany), so a constraint
    /// holds both readings and a place passes when it fits either.
    struct Constraint: Hashable {
        var state: String?
        var country: String?

        func accepts(_ place: Gazetteer.Place) -> Bool {
            if let state, place.countryCode == "US" && place.admin1 == state { return true }
            if let country, place.countryCode == country { return true }
            return false
        }
    }

    struct Query {
        /// Candidate city names, the likeliest first (the rightmost part of an address).
        var cityCandidates: [String] = []
        var constraints: [Constraint] = []
        /// Whether a street was given (the result is still the city's centre).
        var hasStreet = false
    }

    func parse(_ request: GeocodeRequest) -> Query {
        var query = Query()
        let address = request.address.map(trimmed) ?? ""
        guard !address.isEmpty else {
            if let state = request.state.map(trimmed), !state.isEmpty, let constraint = constraint(for: state) {
                query.constraints.append(constraint)
            } else if let zip = request.zipCode.map(trimmed), Self.isUSZip(zip) {
                query.constraints.append(Constraint(country: "US"))
            }
            if let city = request.city.map(trimmed), !city.isEmpty { query.cityCandidates = candidates(from: city) }
            query.hasStreet = !(request.street.map(trimmed)?.isEmpty ?? true)
            return query
        }

        var parts = address.split(separator: ",").map { trimmed(String($0)) }.filter { !$0.isEmpty }
        // From the end, while more than one part is left: countries, states, "STATE ZIP", ZIPs.
        while parts.count > 1 {
            var words = parts[parts.count - 1].split(separator: " ").map(String.init)
            var sawZip = false
            if let last = words.last, Self.isUSZip(last) {
                words.removeLast()
                sawZip = true
            }
            if words.isEmpty {
                if sawZip { query.constraints.append(Constraint(country: "US")) }
                parts.removeLast()
                continue
            }
            if let constraint = constraint(for: words.joined(separator: " ")) {
                query.constraints.append(constraint)
                parts.removeLast()
                continue
            }
            // "Seattle WA 98101" in one part: the state code ends the city.
            if words.count > 1, let last = words.last, last.count == 2, let state = gazetteer.usStateCode(for: last) {
                query.constraints.append(Constraint(state: state))
                parts[parts.count - 1] = words.dropLast().joined(separator: " ")
            }
            break
        }
        if parts.count == 1 {
            // "Seattle WA", "Portland OR 97201" or "Seattle Washington" without commas: a
            // trailing state counts when what precedes it names a place.
            var words = parts[0].split(separator: " ").map(String.init)
            if let last = words.last, Self.isUSZip(last), words.count > 1 { words.removeLast() }
            for length in [2, 1] where words.count > length {
                let tail = words.suffix(length).joined(separator: " ")
                let head = words.dropLast(length).joined(separator: " ")
                guard length == 2 || tail.count == 2 || tail.count > 3, let state = gazetteer.usStateCode(for: tail),
                    !gazetteer.places(named: head).isEmpty
                else { continue }
                query.constraints.append(Constraint(state: state))
                words.removeLast(length)
                break
            }
            parts[0] = words.joined(separator: " ")
        }
        for part in parts.reversed() { query.cityCandidates += candidates(from: part) }
        query.hasStreet = parts.count > 1
        return query
    }

    /// A part as written, and without numbers (`75001 Paris` → `Paris`).
    private func candidates(from part: String) -> [String] {
        let words = part.split(separator: " ")
        let withoutNumbers = words.filter { !$0.allSatisfy(\.isNumber) }.joined(separator: " ")
        return withoutNumbers != part && !withoutNumbers.isEmpty ? [part, withoutNumbers] : [part]
    }

    /// A state or country named by `text`, with both readings of a two-letter code.
    private func constraint(for text: String) -> Constraint? {
        let state = gazetteer.usStateCode(for: text)
        var country = gazetteer.countryCode(for: text)
        // A two-letter code that is a state is read as a country only in upper case.
        if state != nil, text.count == 2, text != text.uppercased() { country = nil }
        guard state != nil || country != nil else { return nil }
        return Constraint(state: state, country: country)
    }

    private func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    static func isUSZip(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let digits = { (slice: ArraySlice<UInt8>) in slice.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        if bytes.count == 5 { return digits(bytes[...]) }
        if bytes.count == 10 { return digits(bytes[0..<5]) && bytes[5] == UInt8(ascii: "-") && digits(bytes[6...]) }
        return false
    }
}
