import Foundation
import Picket
import UTCTime

/// A request field that failed validation; the message names it (`action.startDate must be…`).
struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}

/// Reads the fields of one JSON object, checking types, ranges and lengths; every error
/// names the field by its path.
struct FieldReader {
    let fields: [String: JSONValue]
    let path: String

    /// A reader over a JSON value that must be an object.
    init(_ value: JSONValue, path: String = "") throws {
        guard case .object(let fields) = value else {
            throw FieldError(path.isEmpty ? "the body must be a JSON object" : "\(path) must be an object")
        }
        self.fields = fields
        self.path = path
    }

    func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    private func present(_ field: String) -> JSONValue? {
        switch fields[field] {
        case nil, .null?: return nil
        case let value?: return value
        }
    }

    /// A string of at most `maximumLength` characters, without control characters other than
    /// tab and line breaks (PostgreSQL cannot store NUL). Empty or blank counts as absent.
    func string(_ field: String, required: Bool = false, maximumLength: Int) throws -> String? {
        guard let value = present(field) else {
            if required { throw FieldError("\(name(field)) is required") }
            return nil
        }
        guard case .string(let text) = value else { throw FieldError("\(name(field)) must be a string, not \(value.typeName)") }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            if required { throw FieldError("\(name(field)) must not be empty") }
            return nil
        }
        guard text.count <= maximumLength else { throw FieldError("\(name(field)) must be at most \(maximumLength) characters") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" || $0.value == 0x7F }) else {
            throw FieldError("\(name(field)) must not contain control characters")
        }
        return text
    }

    /// A finite number in `range`.
    func number(_ field: String, required: Bool = false, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = present(field) else {
            if required { throw FieldError("\(name(field)) is required") }
            return nil
        }
        guard case .number(let number) = value, number.isFinite else {
            throw FieldError("\(name(field)) must be a number, not \(value.typeName)")
        }
        guard range.contains(number) else {
            throw FieldError("\(name(field)) must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))")
        }
        return number
    }

    /// An integer in `range`.
    func integer(_ field: String, required: Bool = false, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = present(field) else {
            if required { throw FieldError("\(name(field)) is required") }
            return nil
        }
        guard case .number(let number) = value, number.isFinite, number == number.rounded(), abs(number) < 1e15 else {
            throw FieldError("\(name(field)) must be an integer")
        }
        guard range.contains(Int(number)) else {
            throw FieldError("\(name(field)) must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return Int(number)
    }

    /// One of an enumeration's raw values.
    func choice<Value: RawRepresentable & CaseIterable>(_ field: String, required: Bool = false, as type: Value.Type) throws -> Value?
    where Value.RawValue == String {
        guard let text = try string(field, required: required, maximumLength: 64) else { return nil }
        guard let value = Value(rawValue: text) else {
            throw FieldError("\(name(field)) must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// An absolute http(s) URL with a host.
    func url(_ field: String, maximumLength: Int = 2_048) throws -> String? {
        guard let text = try string(field, maximumLength: maximumLength) else { return nil }
        guard Self.isWebURL(text) else { throw FieldError("\(name(field)) must be an http or https URL") }
        return text
    }

    /// A date: `YYYY-MM-DD` or ISO 8601 with a time zone, between 1900 and two years from `now`.
    func date(_ field: String, required: Bool = false, now: Date) throws -> Date? {
        guard let text = try string(field, required: required, maximumLength: 40) else { return nil }
        guard let date = ISO8601.parse(text) else {
            throw FieldError("\(name(field)) must be a date (YYYY-MM-DD) or an ISO 8601 date and time with a time zone")
        }
        guard date >= Self.earliest, date <= now.addingTimeInterval(2 * 366 * 86_400) else {
            throw FieldError("\(name(field)) must be between 1900 and two years from now")
        }
        return date
    }

    /// A nested object, if present.
    func object(_ field: String, required: Bool = false) throws -> FieldReader? {
        guard let value = present(field) else {
            if required { throw FieldError("\(name(field)) is required") }
            return nil
        }
        return try FieldReader(value, path: name(field))
    }

    /// `{latitude, longitude}` or the two fields at this level.
    func coordinate(latitude: String = "latitude", longitude: String = "longitude", required: Bool = true) throws -> GeoCoordinate? {
        let lat = try number(latitude, required: required, in: -90...90)
        let lng = try number(longitude, required: required || lat != nil, in: -180...180)
        guard let lat, let lng else {
            if lat != nil || lng != nil { throw FieldError("\(name(lat == nil ? latitude : longitude)) is required") }
            return nil
        }
        return GeoCoordinate(latitude: lat, longitude: lng)
    }

    static let earliest = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01

    static func isWebURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, !text.contains(" ")
        else { return false }
        return BlocklistMatcher.normalizedHost(text) != nil
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
