/// A phone number in E.164 terms: a country calling code and a national significant number.
public struct PhoneNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The country calling code (`1`, `44`).
    public let countryCode: Int
    /// The national significant number's digits, leading zeros included (`2539501212`).
    public let nationalNumber: String

    /// A number from its parts; `nationalNumber` must be ASCII digits.
    public init(countryCode: Int, nationalNumber: String) {
        self.countryCode = countryCode
        self.nationalNumber = nationalNumber
    }

    /// The E.164 form: `+` and every digit (`+12539501212`).
    public var e164: String {
        // Built from bytes: string interpolation is several times slower, and senders are keyed by this.
        var bytes: [UInt8] = [UInt8(ascii: "+")]
        bytes.reserveCapacity(4 + nationalNumber.utf8.count)
        var code = countryCode
        var divisor = 1
        while divisor * 10 <= code { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(48 + code / divisor))
            code %= divisor
            divisor /= 10
        }
        bytes.append(contentsOf: nationalNumber.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number as CallKit wants it: the E.164 digits as one integer (`12539501212`), or nil when
    /// the digits do not fit in an `Int64` (never for real E.164 numbers, which have at most 15).
    public var callDirectoryValue: Int64? {
        var value: Int64 = Int64(countryCode)
        for byte in nationalNumber.utf8 {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(byte) - 48)
            guard !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// The number a CallKit entry stands for: the country calling code is the longest assigned
    /// code (1–3 digits) at the start of the digits, as in E.164.
    public init?(callDirectoryValue value: Int64, metadata: PhoneMetadata = .shared) {
        guard value > 0 else { return nil }
        let digits = String(value)
        for length in 1...3 where digits.count > length {
            if let code = Int(digits.prefix(length)), metadata.isCallingCode(code) {
                self.init(countryCode: code, nationalNumber: String(digits.dropFirst(length)))
                return
            }
        }
        return nil
    }

    /// The E.164 form.
    public var description: String { e164 }

    /// Orders numbers as CallKit does: by their E.164 digits read as an integer.
    public static func < (lhs: PhoneNumber, rhs: PhoneNumber) -> Bool {
        let left = lhs.callDirectoryValue ?? .max
        let right = rhs.callDirectoryValue ?? .max
        return left != right ? left < right : lhs.e164 < rhs.e164
    }
}

/// Why a text is not a phone number (or not one that can be dialled).
public enum PhoneNumberError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing that looks like a phone number: no digits, or letters and symbols phone numbers do not use.
    case notANumber
    /// More than 250 characters.
    case inputTooLong
    /// No `+` or international prefix, and no default region to read a national number in.
    case missingRegion
    /// The default region is not a known ISO 3166 region code.
    case unknownRegion(String)
    /// The digits after `+` or the international prefix do not start with an assigned calling code.
    case invalidCountryCode
    /// Too few digits after the international prefix.
    case tooShortAfterInternationalPrefix
    /// The national number has fewer than 2 digits.
    case tooShortNationalNumber
    /// The national number has more than 17 digits.
    case tooLongNationalNumber
    /// Shorter than any number of the region.
    case tooShort(region: String, digits: Int, possible: [Int])
    /// Longer than any number of the region.
    case tooLong(region: String, digits: Int, possible: [Int])
    /// Between the region's lengths but not one of them.
    case invalidLength(region: String, digits: Int, possible: [Int])
    /// Only dialable locally (missing its area code).
    case localOnly(region: String, digits: Int)
    /// The length is right, but no number in use has this form (no such area code or range).
    case notInUse(region: String)

    /// A short machine-friendly name (`too-short`).
    public var code: String {
        switch self {
        case .notANumber: "not-a-number"
        case .inputTooLong: "input-too-long"
        case .missingRegion: "missing-region"
        case .unknownRegion: "unknown-region"
        case .invalidCountryCode: "invalid-country-code"
        case .tooShortAfterInternationalPrefix: "too-short-after-idd"
        case .tooShortNationalNumber: "too-short"
        case .tooLongNationalNumber: "too-long"
        case .tooShort: "too-short"
        case .tooLong: "too-long"
        case .invalidLength: "invalid-length"
        case .localOnly: "local-only"
        case .notInUse: "not-in-use"
        }
    }

    /// A one-line reason for people.
    public var description: String {
        func lengths(_ values: [Int]) -> String {
            values.count == 1 ? "\(values[0]) digits" : values.map(String.init).joined(separator: ", ") + " digits"
        }
        return switch self {
        case .notANumber: "not a phone number"
        case .inputTooLong: "longer than 250 characters"
        case .missingRegion: "no country code (+…) and no default region"
        case .unknownRegion(let region): "unknown region \(region)"
        case .invalidCountryCode: "unknown country calling code"
        case .tooShortAfterInternationalPrefix: "too few digits after the international prefix"
        case .tooShortNationalNumber: "too few digits"
        case .tooLongNationalNumber: "too many digits"
        case .tooShort(let region, let digits, let possible):
            "too short: \(digits) digits, \(region) numbers have \(lengths(possible))"
        case .tooLong(let region, let digits, let possible):
            "too long: \(digits) digits, \(region) numbers have \(lengths(possible))"
        case .invalidLength(let region, let digits, let possible):
            "wrong length: \(digits) digits, \(region) numbers have \(lengths(possible))"
        case .localOnly(let region, let digits):
            "a local \(region) number (\(digits) digits): add the area code"
        case .notInUse(let region):
            "no \(region) number looks like this (no such area code or number range)"
        }
    }
}
