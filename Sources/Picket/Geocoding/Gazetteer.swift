import Foundation

/// The embedded GeoNames extract (places of 15,000 people or more, CC BY 4.0), indexed by
/// folded name and by a 1° grid. Parsed once, on first use (about 34,000 places).
public final class Gazetteer: Sendable {
    /// A populated place.
    public struct Place: Sendable, Hashable {
        /// Its name as GeoNames writes it (`Zürich`).
        public var name: String
        /// The first-level division's code (`WA` in the US; a GeoNames code elsewhere).
        public var admin1: String
        /// ISO 3166-1 alpha-2 country code.
        public var countryCode: String
        /// Where its centre is.
        public var coordinate: GeoCoordinate
        /// Its population.
        public var population: Int
    }

    /// The shared instance over the embedded data.
    public static let shared = Gazetteer(
        places: GazetteerData.places, countries: GazetteerData.countries, usStates: GazetteerData.usStates)

    /// Every place, in the data's order.
    public let places: [Place]
    private let byName: [String: [Int32]]
    private let grid: [Int32: [Int32]]
    private let countryNames: [String: String]
    private let countryCodes: [String: String]
    private let stateNames: [String: String]
    private let stateCodes: [String: String]

    /// A gazetteer over data in the embedded text form (see `scripts/generate-gazetteer.py`).
    public init(places text: String, countries: String, usStates: String) {
        var places: [Place] = []
        places.reserveCapacity(35_000)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 6, let latitude = Double(fields[3]), let longitude = Double(fields[4]) else { continue }
            places.append(
                Place(
                    name: String(fields[0]), admin1: String(fields[1]), countryCode: String(fields[2]),
                    coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), population: Int(fields[5]) ?? 0))
        }
        var byName: [String: [Int32]] = [:]
        var grid: [Int32: [Int32]] = [:]
        for (index, place) in places.enumerated() {
            byName[Self.fold(place.name), default: []].append(Int32(index))
            grid[Self.cell(place.coordinate), default: []].append(Int32(index))
        }
        for key in byName.keys {
            byName[key]!.sort { places[Int($0)].population > places[Int($1)].population }
        }
        var countryNames: [String: String] = [:]
        var countryCodes: [String: String] = [:]
        for line in countries.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            countryNames[fields[0]] = fields[2]
            countryCodes[Self.fold(fields[0])] = fields[0]
            countryCodes[Self.fold(fields[1])] = fields[0]
            countryCodes[Self.fold(fields[2])] = fields[0]
        }
        // Common ways of writing countries that the ISO names spell otherwise.
        for (alias, code) in [
            ("usa", "US"), ("united states of america", "US"), ("america", "US"), ("uk", "GB"), ("great britain", "GB"),
            ("england", "GB"), ("scotland", "GB"), ("wales", "GB"), ("south korea", "KR"), ("russia", "RU"),
        ] {
            countryCodes[alias] = code
        }
        var stateNames: [String: String] = [:]
        var stateCodes: [String: String] = [:]
        for line in usStates.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 else { continue }
            stateNames[fields[0]] = fields[1]
            stateCodes[Self.fold(fields[0])] = fields[0]
            stateCodes[Self.fold(fields[1])] = fields[0]
        }
        self.places = places
        self.byName = byName
        self.grid = grid
        self.countryNames = countryNames
        self.countryCodes = countryCodes
        self.stateNames = stateNames
        self.stateCodes = stateCodes
    }

    /// The places called `name` (compared folded: case, accents and punctuation ignored),
    /// most populous first.
    public func places(named name: String) -> [Place] {
        (byName[Self.fold(name)] ?? []).map { places[Int($0)] }
    }

    /// The country code for a name or code (`France`, `FR`, `FRA`, `USA`), if known.
    public func countryCode(for text: String) -> String? { countryCodes[Self.fold(text)] }

    /// The US state code for a name or code (`Washington`, `WA`), if known.
    public func usStateCode(for text: String) -> String? { stateCodes[Self.fold(text)] }

    /// The country's English name.
    public func countryName(_ code: String) -> String? { countryNames[code] }

    /// The region's name: the state's for US places, else `nil` (GeoNames' other first-level
    /// codes are numbers, not names).
    public func regionName(of place: Place) -> String? {
        place.countryCode == "US" ? stateNames[place.admin1] : nil
    }

    /// `Seattle, Washington, United States`.
    public func displayName(of place: Place) -> String {
        [place.name, regionName(of: place), countryName(place.countryCode)].compactMap { $0 }.joined(separator: ", ")
    }

    /// The place nearest to `coordinate` within `maximumDistance` metres, with its distance.
    ///
    /// GeoNames also lists parts of big cities (`Paris 04 Hôtel-de-Ville`); when a more
    /// populous place is at most `preferLargerWithin` metres farther than the nearest one, the
    /// larger place is the better answer to "which city is this?".
    public func nearest(
        to coordinate: GeoCoordinate, within maximumDistance: Double, preferLargerWithin: Double = 2_000
    )
        -> (place: Place, distance: Double)?
    {
        let spans = GreatCircle.boundingSpans(center: coordinate, radius: maximumDistance)
        var candidates: [(index: Int32, distance: Double)] = []
        for key in Self.cells(latitude: coordinate.latitude, longitude: coordinate.longitude, spans: spans) {
            for index in grid[key] ?? [] {
                let distance = GreatCircle.distance(coordinate, places[Int(index)].coordinate)
                if distance <= maximumDistance { candidates.append((index, distance)) }
            }
        }
        guard let nearest = candidates.min(by: { $0.distance < $1.distance }) else { return nil }
        let best = candidates.filter { $0.distance <= nearest.distance + preferLargerWithin }.max { a, b in
            (places[Int(a.index)].population, -a.distance) < (places[Int(b.index)].population, -b.distance)
        }!
        return (places[Int(best.index)], best.distance)
    }

    // MARK: Indexing

    /// Lower case, accents and punctuation removed, spaces collapsed: `Saint-Étienne` →
    /// `saint etienne`, `St. Louis` → `st louis`.
    public static func fold(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .decimalNumber:
                if pendingSpace && !result.isEmpty { result.append(" ") }
                pendingSpace = false
                switch scalar {
                case "ß": result.append("ss")
                case "Ø", "ø": result.append("o")
                case "Æ", "æ": result.append("ae")
                case "Œ", "œ": result.append("oe")
                case "Ł", "ł": result.append("l")
                case "Đ", "đ": result.append("d")
                case "ı": result.append("i")
                default: result.append(contentsOf: String(scalar).lowercased())
                }
            default:
                // Apostrophes join (`O'Fallon` → `ofallon`); other punctuation separates.
                if scalar != "'" && scalar != "’" && scalar != "ʻ" && scalar != "`" { pendingSpace = true }
            }
        }
        return result
    }

    private static func cell(_ coordinate: GeoCoordinate) -> Int32 {
        cellKey(latitudeCell: Int(floor(coordinate.latitude)), longitudeCell: Int(floor(coordinate.longitude)))
    }

    private static func cellKey(latitudeCell: Int, longitudeCell: Int) -> Int32 {
        let longitude = ((longitudeCell + 180) % 360 + 360) % 360
        return Int32((latitudeCell + 90) * 360 + longitude)
    }

    private static func cells(latitude: Double, longitude: Double, spans: (latitude: Double, longitude: Double)) -> [Int32] {
        let firstLatitude = max(-90, Int(floor(latitude - spans.latitude)))
        let lastLatitude = min(89, Int(floor(latitude + spans.latitude)))
        var keys: [Int32] = []
        guard firstLatitude <= lastLatitude else { return keys }
        let wholeCircle = spans.longitude >= 180
        let firstLongitude = wholeCircle ? -180 : Int(floor(longitude - spans.longitude))
        let lastLongitude = wholeCircle ? 179 : Int(floor(longitude + spans.longitude))
        for latitudeCell in firstLatitude...lastLatitude {
            for longitudeCell in firstLongitude...min(lastLongitude, firstLongitude + 359) {
                keys.append(cellKey(latitudeCell: latitudeCell, longitudeCell: longitudeCell))
            }
        }
        return keys
    }
}
