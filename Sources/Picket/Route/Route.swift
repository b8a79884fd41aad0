import Foundation
import UTCTime

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A recorded route: positions with times, read from GPX or CSV, for replaying against the
/// geofence engine (`pepper picket track`).
public struct Route: Sendable, Hashable {
    /// One position.
    public struct Point: Sendable, Hashable {
        /// Where.
        public var coordinate: GeoCoordinate
        /// When.
        public var time: Date

        /// A point.
        public init(coordinate: GeoCoordinate, time: Date) {
            self.coordinate = coordinate
            self.time = time
        }
    }

    /// The points, in time order.
    public var points: [Point]

    /// A route of `points`, sorted by time.
    public init(points: [Point]) {
        self.points = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// Reads a GPX document (`<trkpt>`, `<rtept>` or `<wpt>` elements with `lat`, `lon` and a
    /// `<time>`) or CSV lines `lat,lng,timestamp` (ISO 8601 or Unix seconds; a header line and
    /// `#` comments are skipped).
    public init(data: Data) throws(RouteError) {
        let text = String(decoding: data.prefix(512), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("<") {
            try self.init(points: Self.parseGPX(data))
        } else {
            try self.init(points: Self.parseCSV(String(decoding: data, as: UTF8.self)))
        }
        guard !points.isEmpty else { throw .empty }
    }

    static func parseCSV(_ text: String) throws(RouteError) -> [Point] {
        var points: [Point] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3, let latitude = Double(fields[0]), let longitude = Double(fields[1]) else {
                if points.isEmpty && index == 0 && Double(fields.first ?? "") == nil { continue }  // a header
                throw .invalidLine(index + 1, "expected lat,lng,timestamp")
            }
            let coordinate = GeoCoordinate(latitude: latitude, longitude: longitude)
            guard coordinate.isValid else { throw .invalidLine(index + 1, "coordinates out of range") }
            guard let time = parseTime(fields[2]) else {
                throw .invalidLine(index + 1, "timestamp '\(fields[2])' is neither ISO 8601 nor Unix seconds")
            }
            points.append(Point(coordinate: coordinate, time: time))
        }
        return points
    }

    static func parseGPX(_ data: Data) throws(RouteError) -> [Point] {
        let delegate = GPXReader()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            throw .invalidGPX(delegate.failure ?? parser.parserError.map { "\($0)" } ?? "not a GPX document")
        }
        if let failure = delegate.failure { throw .invalidGPX(failure) }
        return delegate.points
    }

    /// ISO 8601 (with or without fractional seconds or a zone) or Unix seconds.
    public static func parseTime(_ text: String) -> Date? {
        if let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
        return ISO8601.parse(text)
    }
}

/// Why a route cannot be read.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No point.
    case empty
    /// A CSV line is not `lat,lng,timestamp`.
    case invalidLine(Int, String)
    /// The GPX document is malformed.
    case invalidGPX(String)

    public var description: String {
        switch self {
        case .empty: return "the route has no points"
        case .invalidLine(let line, let reason): return "line \(line): \(reason)"
        case .invalidGPX(let reason): return "invalid GPX: \(reason)"
        }
    }
}

/// Collects points from GPX elements.
private final class GPXReader: NSObject, XMLParserDelegate {
    var points: [Route.Point] = []
    var failure: String?
    private var current: GeoCoordinate?
    private var text = ""
    private var time: Date?
    private var inTime = false

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch elementName {
        case "trkpt", "rtept", "wpt":
            guard let latitude = attributes["lat"].flatMap(Double.init), let longitude = attributes["lon"].flatMap(Double.init) else {
                failure = "<\(elementName)> without lat and lon"
                parser.abortParsing()
                return
            }
            current = GeoCoordinate(latitude: latitude, longitude: longitude)
            time = nil
        case "time" where current != nil:
            inTime = true
            text = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inTime { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        switch elementName {
        case "time" where inTime:
            inTime = false
            time = Route.parseTime(text.trimmingCharacters(in: .whitespacesAndNewlines))
            if time == nil {
                failure = "unreadable <time> '\(text)'"
                parser.abortParsing()
            }
        case "trkpt", "rtept", "wpt":
            guard let coordinate = current else { return }
            current = nil
            guard coordinate.isValid else {
                failure = "coordinates out of range at point \(points.count + 1)"
                parser.abortParsing()
                return
            }
            guard let time else {
                failure = "point \(points.count + 1) has no <time>"
                parser.abortParsing()
                return
            }
            points.append(Route.Point(coordinate: coordinate, time: time))
        default:
            break
        }
    }
}
