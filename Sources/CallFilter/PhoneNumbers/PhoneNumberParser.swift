import Foundation

/// Reads phone numbers the way people type them — `253-950-1212`, `(253) 950 1212`,
/// `+1 253 950 1212`, `011 1 253 950 1212`, `+44 20 7946 0000`, `020 7946 0000` — into E.164.
///
/// A number without `+` or an international prefix is read as a national number of the default
/// region (its trunk prefix, such as the `0` of `020` or the `1` of `1 253…`, removed). A number
/// is accepted when its national number has one of the lengths its region uses; whether the
/// number is assigned to a subscriber is not checked (that needs per-range data and changes monthly).
///
/// The steps follow the behaviour of Google's libphonenumber, which serves as the test oracle
/// (`docs/calls-and-messages.md` records the agreement).
public struct PhoneNumberParser: Sendable {
    /// The region whose national format is assumed for numbers without a country code.
    public let defaultRegion: String?
    private let region: PhoneMetadata.Region?
    private let metadata: PhoneMetadata

    /// A parser for numbers dialled in `defaultRegion` (an ISO 3166 code such as `US` or `gb`;
    /// nil accepts only international numbers).
    ///
    /// - Throws: ``PhoneNumberError/unknownRegion(_:)``.
    public init(defaultRegion: String? = "US", metadata: PhoneMetadata = .shared) throws(PhoneNumberError) {
        self.metadata = metadata
        if let defaultRegion, !defaultRegion.isEmpty {
            guard let region = metadata.region(defaultRegion) else { throw .unknownRegion(defaultRegion) }
            self.region = region
            self.defaultRegion = region.code
        } else {
            self.region = nil
            self.defaultRegion = nil
        }
    }

    /// Parses `text` into a dialable number.
    public func parse(_ text: String) throws(PhoneNumberError) -> PhoneNumber {
        let (countryCode, national) = try parseDigits(text)
        return PhoneNumber(countryCode: countryCode, nationalNumber: String(decoding: national.map { $0 + 48 }, as: UTF8.self))
    }

    /// The CallKit value of `text` (its E.164 digits as an integer), or nil when it is not a
    /// number; the same as `parse(text).callDirectoryValue` without building strings, for hot
    /// paths such as keying every message's sender.
    public func callDirectoryValue(of text: String) -> Int64? {
        guard let (countryCode, national) = try? parseDigits(text) else { return nil }
        var value = Int64(countryCode)
        for digit in national {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = shifted + Int64(digit)
        }
        return value
    }

    private func parseDigits(_ text: String) throws(PhoneNumberError) -> (Int, [UInt8]) {
        let hasPlus: Bool
        let digits: [UInt8]
        if let simple = Self.simpleDigits(text) {
            (hasPlus, digits) = simple
            guard region != nil || hasPlus else { throw .missingRegion }
        } else {
            guard text.utf8.count <= 1_000, text.unicodeScalars.count <= 250 else { throw .inputTooLong }
            let scalars = Array(text.unicodeScalars)
            var candidate = Self.numberForParsing(scalars)
            guard Self.isViable(candidate[...]) || Self.isViableWithExtension(candidate) else { throw .notANumber }
            hasPlus = candidate.first.map(Self.isPlus) ?? false
            guard region != nil || hasPlus else { throw .missingRegion }
            if let extensionStart = Self.extensionStart(candidate), Self.isViable(candidate[..<extensionStart]) {
                candidate.removeSubrange(extensionStart...)
            }
            var rest = candidate[...]
            while let first = rest.first, Self.isPlus(first) { rest = rest.dropFirst() }
            digits = Self.normalize(rest)
        }
        return try parse(digits: digits, hasPlus: hasPlus)
    }

    /// The common case without the general machinery: ASCII digits with spaces, dashes, dots,
    /// slashes and brackets, at most one leading `+` and at least three digits (so the text is a
    /// viable number with no extension, letters or second number). Nil for anything else.
    static func simpleDigits(_ text: String) -> (hasPlus: Bool, digits: [UInt8])? {
        var digits: [UInt8] = []
        var hasPlus = false
        var started = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits.isEmpty { digits.reserveCapacity(16) }
                digits.append(byte - 48)
                started = true
            case UInt8(ascii: "+"):
                // Only as the first character of the number.
                guard !started else { return nil }
                hasPlus = true
                started = true
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "("), UInt8(ascii: ")"):
                continue
            case UInt8(ascii: "/"):
                // `/` starts a second number only before an `x`, which is not allowed here.
                continue
            default:
                return nil
            }
        }
        guard digits.count >= 3, digits.count <= 250 else { return nil }
        return (hasPlus, digits)
    }

    private func parse(digits: [UInt8], hasPlus: Bool) throws(PhoneNumberError) -> (Int, [UInt8]) {
        var (countryCode, national, nationalRegion) = try extractCountryCode(digits, hasPlus: hasPlus, retryingWithoutPlus: true)
        if countryCode == 0 {
            // No country code: a national number of the default region (checked above to exist).
            guard let region else { throw .missingRegion }
            countryCode = region.countryCode
            nationalRegion = region
        }
        guard national.count >= 2 else { throw .tooShortNationalNumber }
        if let nationalRegion {
            let stripped = stripNationalPrefix(national, region: nationalRegion)
            switch nationalRegion.checkLength(stripped.count) {
            case .tooShort, .localOnly, .invalidLength: break
            case .possible, .tooLong: national = stripped
            }
        }
        guard national.count >= 2 else { throw .tooShortNationalNumber }
        guard national.count <= 17 else { throw .tooLongNationalNumber }

        // Possible for the main region of its calling code (the lengths every region of +1 shares).
        guard let main = metadata.mainRegion(forCallingCode: countryCode) else { throw .invalidCountryCode }
        switch main.checkLength(national.count) {
        case .possible: break
        case .localOnly: throw .localOnly(region: main.code, digits: national.count)
        case .tooShort: throw .tooShort(region: main.code, digits: national.count, possible: main.possibleLengths)
        case .tooLong: throw .tooLong(region: main.code, digits: national.count, possible: main.possibleLengths)
        case .invalidLength: throw .invalidLength(region: main.code, digits: national.count, possible: main.possibleLengths)
        }
        // Valid, as libphonenumber's is_valid_number: of a number type of its region. A possible
        // length is not enough: `555-CALL-NOW` is ten digits but area code 555 does not exist,
        // and blocking or labelling a number that cannot exist helps nobody.
        let numberRegion = metadata.region(forNumber: national, callingCode: countryCode)
        guard numberRegion?.isValidNumber(national) == true else { throw .notInUse(region: (numberRegion ?? main).code) }
        return (countryCode, national)
    }

    /// Parses `text`, returning nil instead of a reason.
    public func number(_ text: String) -> PhoneNumber? { try? parse(text) }

    // MARK: Country code

    /// The country calling code (0 when the number is national), the national digits, and the
    /// region whose trunk prefix applies to them.
    private func extractCountryCode(
        _ normalized: [UInt8], hasPlus: Bool, retryingWithoutPlus: Bool
    ) throws(PhoneNumberError) -> (Int, [UInt8], PhoneMetadata.Region?) {
        var international = hasPlus
        var digits = normalized
        if !hasPlus, let idd = region?.internationalPrefix, let match = idd.prefixMatch(digits) {
            // A country calling code never starts with 0, so `00 0…` is not an IDD.
            if match.length >= digits.count || digits[match.length] != 0 {
                digits.removeFirst(match.length)
                international = true
            }
        }
        if international {
            guard digits.count > 2 else { throw .tooShortAfterInternationalPrefix }
            if let (code, length) = callingCode(at: digits) {
                return (code, Array(digits[length...]), regionForNumber(code))
            }
            // `+011 44…`: a plus typed before an international prefix; read it again without the plus.
            if retryingWithoutPlus, hasPlus {
                let retried = try extractCountryCode(normalized, hasPlus: false, retryingWithoutPlus: false)
                guard retried.0 != 0 else { throw .invalidCountryCode }
                return retried
            }
            throw .invalidCountryCode
        }
        // A national number that starts with the region's own calling code (`1 253 950 1212`, or
        // `44 20 7946 0000` typed in the UK): drop the code when the rest is a better number.
        if let region {
            let code = Array(String(region.countryCode).utf8).map { $0 - 48 }
            if digits.count > code.count, digits.starts(with: code) {
                let withoutCode = stripNationalPrefix(Array(digits[code.count...]), region: region)
                if (!region.looksNational(digits[...]) && region.looksNational(withoutCode[...]))
                    || region.checkLength(digits.count) == .tooLong
                {
                    return (region.countryCode, withoutCode, regionForNumber(region.countryCode))
                }
            }
        }
        return (0, digits, region)
    }

    /// The metadata used for a number with an explicit calling code: the default region when it
    /// shares the code, else the code's main region.
    private func regionForNumber(_ code: Int) -> PhoneMetadata.Region? {
        guard let main = metadata.mainRegion(forCallingCode: code) else { return nil }
        if let region, region.code == main.code { return region }
        return main
    }

    private func callingCode(at digits: [UInt8]) -> (code: Int, length: Int)? {
        guard let first = digits.first, first != 0 else { return nil }
        var code = 0
        for length in 1...min(3, digits.count) {
            code = code * 10 + Int(digits[length - 1])
            if metadata.isCallingCode(code) { return (code, length) }
        }
        return nil
    }

    // MARK: National prefix

    /// Removes the trunk prefix (and carrier code) of `region` from a national number, unless the
    /// number only looked like a full national number with it.
    private func stripNationalPrefix(_ digits: [UInt8], region: PhoneMetadata.Region) -> [UInt8] {
        guard !digits.isEmpty, let prefix = region.nationalPrefix, let match = prefix.prefixMatch(digits) else { return digits }
        let viableBefore = region.looksNational(digits[...])
        let lastGroup = match.groups.last ?? nil
        if let transform = region.nationalPrefixTransform, !transform.isEmpty, lastGroup != nil {
            var transformed: [UInt8] = []
            var scalars = transform.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                if scalar == "$", let index = scalars.next(), let group = Int(String(index)), group >= 1, group <= match.groups.count {
                    if let range = match.groups[group - 1] { transformed += digits[range] }
                } else if ("0"..."9").contains(scalar) {
                    transformed.append(UInt8(scalar.value - 48))
                }
            }
            transformed += digits[match.length...]
            if viableBefore && !region.looksNational(transformed[...]) { return digits }
            return transformed
        }
        let stripped = Array(digits[match.length...])
        if viableBefore && !region.looksNational(stripped[...]) { return digits }
        return stripped
    }

    // MARK: Characters

    static func isPlus(_ scalar: Unicode.Scalar) -> Bool { scalar == "+" || scalar == "\u{FF0B}" }

    /// The value of a decimal digit in any script (`٣` is 3), or nil.
    static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        if scalar.value >= 48 && scalar.value <= 57 { return UInt8(scalar.value - 48) }
        guard scalar.value >= 128, scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue else { return nil }
        return UInt8(value)
    }

    static func isLetterOrNumber(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (48...57).contains(value) || (65...90).contains(value) || (97...122).contains(value)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        (65...90).contains(scalar.value) || (97...122).contains(scalar.value)
    }

    /// Dashes, spaces, dots, slashes, brackets, tildes and `x` (a carrier placeholder), including
    /// their full-width forms: the punctuation allowed between digits.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2D, 0x78, 0x58, 0x20, 0x28, 0x29, 0x2E, 0x5B, 0x5D, 0x2F, 0x7E: true  // - x X space ( ) . [ ] / ~
        case 0x2010...0x2015, 0x2212, 0x30FC, 0xFF0D...0xFF0F, 0x00A0, 0x00AD, 0x200B, 0x2060, 0x3000: true
        case 0xFF08, 0xFF09, 0xFF3B, 0xFF3D, 0x2053, 0x223C, 0xFF5E: true
        default: false
        }
    }

    /// The digits of the number; letters become keypad digits when there are at least three of
    /// them (`1-800-FLOWERS`).
    static func normalize(_ scalars: ArraySlice<Unicode.Scalar>) -> [UInt8] {
        var digits: [UInt8] = []
        digits.reserveCapacity(scalars.count)
        var letters = 0
        for scalar in scalars where isASCIILetter(scalar) {
            letters += 1
            if letters >= 3 { break }
        }
        if letters >= 3 {
            for scalar in scalars {
                if (48...57).contains(scalar.value) {
                    digits.append(UInt8(scalar.value - 48))
                } else if isASCIILetter(scalar) {
                    digits.append(keypadDigit(scalar))
                }
            }
        } else {
            for scalar in scalars {
                if let value = digitValue(scalar) { digits.append(value) }
            }
        }
        return digits
    }

    static func keypadDigit(_ scalar: Unicode.Scalar) -> UInt8 {
        let letter = Int(scalar.value | 0x20) - 97  // a = 0
        let table: [UInt8] = [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9]
        return table[letter]
    }

    // MARK: Finding the number in the text

    /// The part of the text that can be a number: from the first `+` or digit, without trailing
    /// punctuation or a second number (`x302/x2303`); RFC 3966 `tel:` URIs are understood.
    static func numberForParsing(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        // Only RFC 3966 URIs carry ';' parameters: skip the string search for everything else.
        let hasParameters = scalars.contains(";")
        let text = hasParameters ? String(String.UnicodeScalarView(scalars)) : ""
        if hasParameters, let context = text.range(of: ";phone-context=") {
            var national = ""
            let afterContext = text[context.upperBound...]
            if afterContext.first == "+" {
                national = String(afterContext.prefix { $0 != ";" })
            }
            let start = text.range(of: "tel:").map(\.upperBound) ?? text.startIndex
            if start <= context.lowerBound { national += text[start..<context.lowerBound] }
            var result = Array(national.unicodeScalars)
            if let isdn = national.range(of: ";isub=") {
                result = Array(national[..<isdn.lowerBound].unicodeScalars)
            }
            return result
        }
        guard let start = scalars.firstIndex(where: { isPlus($0) || digitValue($0) != nil }) else { return [] }
        var end = scalars.endIndex
        while end > start, !(isLetterOrNumber(scalars[end - 1]) || scalars[end - 1] == "#") || scalars[end - 1] == "_" { end -= 1 }
        var number = Array(scalars[start..<end])
        // `[\/] *x` starts a second number.
        var index = 0
        while index < number.count {
            if number[index] == "/" || number[index] == "\\" {
                var next = index + 1
                while next < number.count, number[next] == " " { next += 1 }
                if next < number.count, number[next] == "x" {
                    number.removeSubrange(index...)
                    break
                }
            }
            index += 1
        }
        if hasParameters, let isdn = String(String.UnicodeScalarView(number)).range(of: ";isub=") {
            let prefix = String(String.UnicodeScalarView(number))[..<isdn.lowerBound]
            if !prefix.isEmpty { number = Array(prefix.unicodeScalars) }
        }
        return number
    }

    /// Whether the text has the shape of a phone number: two digits, or optional pluses followed
    /// by at least three digits with only punctuation between them, then digits, punctuation
    /// and letters.
    static func isViable(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        guard text.count >= 2 else { return false }
        if text.count == 2, text.allSatisfy({ digitValue($0) != nil }) { return true }
        var index = text.startIndex
        while index < text.endIndex, isPlus(text[index]) { index += 1 }
        var digits = 0
        while index < text.endIndex {
            let scalar = text[index]
            if digitValue(scalar) != nil {
                digits += 1
            } else if isPunctuation(scalar) || scalar == "*" {
                // allowed anywhere
            } else if isASCIILetter(scalar) {
                if digits < 3 { return false }
            } else {
                return false
            }
            index += 1
        }
        return digits >= 3
    }

    static func isViableWithExtension(_ text: [Unicode.Scalar]) -> Bool {
        guard let start = extensionStart(text) else { return false }
        return isViable(text[..<start])
    }

    // MARK: Extensions

    /// Where an extension (`;ext=12`, ` ext. 12`, ` x12`, ` #12`, `,,12`, ` - 503#`) starts, if the
    /// text ends with one: the leftmost position from which one of the extension forms reaches the end.
    static func extensionStart(_ text: [Unicode.Scalar]) -> Int? {
        // Every extension form has a letter, `;`, `,`, `#`, `~` or a non-ASCII label.
        let possible = text.contains { scalar in
            !scalar.isASCII || isASCIILetter(scalar) || scalar == ";" || scalar == "," || scalar == "#" || scalar == "~"
        }
        guard possible else { return nil }
        let lower = text.map { scalar -> Unicode.Scalar in
            if scalar.isASCII { return isASCIILetter(scalar) ? Unicode.Scalar(scalar.value | 0x20)! : scalar }
            return scalar.properties.lowercaseMapping.unicodeScalars.first ?? scalar
        }
        for start in 0..<lower.count where extensionMatches(lower, from: start) {
            return start
        }
        return nil
    }

    private static func isExtensionSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\u{A0}" || scalar == "\t" || scalar == ","
    }

    /// `[:.．]?[ \t,-]*` then 1…`limit` digits and an optional `#`, to the end.
    private static func extensionDigitsMatch(_ text: [Unicode.Scalar], from start: Int, limit: Int, requireHash: Bool = false) -> Bool {
        var index = start
        if index < text.count, text[index] == ":" || text[index] == "." || text[index] == "\u{FF0E}" { index += 1 }
        while index < text.count, isExtensionSeparator(text[index]) || text[index] == "-" { index += 1 }
        var digits = 0
        while index < text.count, digitValue(text[index]) != nil {
            digits += 1
            index += 1
        }
        guard digits >= 1, digits <= limit else { return false }
        if index == text.count { return !requireHash }
        return index == text.count - 1 && text[index] == "#"
    }

    private static func extensionMatches(_ text: [Unicode.Scalar], from start: Int) -> Bool {
        // RFC 3966
        let rfc: [Unicode.Scalar] = [";", "e", "x", "t", "="]
        if text[start...].starts(with: rfc) {
            let digitsStart = start + rfc.count
            return digitsStart < text.count && text.count - digitsStart <= 20 && text[digitsStart...].allSatisfy { digitValue($0) != nil }
        }
        var index = start
        while index < text.count, isExtensionSeparator(text[index]) { index += 1 }
        // Explicit labels: ext, extn, extension, anexo, доб, ｅｘｔ.
        for label in explicitLabels where text[index...].starts(with: label) {
            if extensionDigitsMatch(text, from: index + label.count, limit: 20) { return true }
        }
        // Ambiguous labels: x, #, ~, int.
        for label in ambiguousLabels where text[index...].starts(with: label) {
            if extensionDigitsMatch(text, from: index + label.count, limit: 9) { return true }
        }
        // American style: "- 503#".
        var dashes = start
        while dashes < text.count, text[dashes] == "-" || text[dashes] == " " { dashes += 1 }
        if dashes > start, extensionDigitsMatch(text, from: dashes, limit: 6, requireHash: true), text.last == "#",
            text[dashes..<(text.count - 1)].allSatisfy({ digitValue($0) != nil })
        {
            return true
        }
        // Auto-dialling: ",," or ";" (spaces before, no comma).
        var spaces = start
        while spaces < text.count, text[spaces] == " " || text[spaces] == "\u{A0}" || text[spaces] == "\t" { spaces += 1 }
        // ",," (further commas count as separators before the digits).
        if spaces + 1 < text.count, text[spaces] == ",", text[spaces + 1] == ",", extensionDigitsMatch(text, from: spaces + 2, limit: 15) {
            return true
        }
        if spaces < text.count, text[spaces] == ";", extensionDigitsMatch(text, from: spaces + 1, limit: 15) { return true }
        if spaces < text.count, text[spaces] == "," {
            var after = spaces
            while after < text.count, text[after] == "," { after += 1 }
            if extensionDigitsMatch(text, from: after, limit: 9) { return true }
        }
        return false
    }

    /// `e?xt(ensi(o|ó))?n?` spelled out (with ó precomposed or as o and a combining accent),
    /// the full-width `ｅｘｔｎ` forms, Spanish `anexo` and Russian `доб`.
    private static let explicitLabels: [[Unicode.Scalar]] = {
        var labels: [String] = ["anexo", "доб"]
        for e in ["", "e"] {
            for middle in ["", "ensio", "ensio\u{301}", "ensi\u{F3}"] {
                for n in ["", "n"] { labels.append(e + "xt" + middle + n) }
            }
        }
        for e in ["", "\u{FF45}"] {
            for n in ["", "\u{FF4E}"] { labels.append(e + "\u{FF58}\u{FF54}" + n) }
        }
        return labels.map { Array($0.unicodeScalars) }
    }()

    private static let ambiguousLabels: [[Unicode.Scalar]] = [
        "int", "\u{FF49}\u{FF4E}\u{FF54}", "x", "\u{FF58}", "#", "\u{FF03}", "~", "\u{FF5E}",
    ]
    .map { Array($0.unicodeScalars) }
}
