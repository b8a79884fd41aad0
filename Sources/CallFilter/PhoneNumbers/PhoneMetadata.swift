/// What parsing a phone number to E.164 needs to know about each region: its country calling
/// code, the lengths its national numbers can have, and its international and national (trunk)
/// prefixes.
///
/// The data is a compact table generated from Google libphonenumber's metadata (through the PyPI
/// `phonenumbers` package) by `scripts/generate-phone-metadata.py`; see `PhoneMetadataTable.swift`.
/// Classes, not structs: parsers share one table, so copying a parser costs a retain, not dozens.
public final class PhoneMetadata: Sendable {
    /// One region (or, for codes such as +800, one non-geographic entity, region `001`).
    public final class Region: Sendable {
        /// ISO 3166 region code (`US`), or `001` for non-geographic numbering plans.
        public let code: String
        /// The country calling code (`1`).
        public let countryCode: Int
        /// Whether this region is the main one for its calling code (`US` for +1, `GB` for +44).
        public let isMain: Bool
        /// Possible lengths of a national significant number, ascending.
        public let possibleLengths: [Int]
        /// Lengths only dialable locally (a US number without its area code), ascending.
        public let localOnlyLengths: [Int]
        /// The international (IDD) prefix (`011` in the US, `00` in most of the world).
        public let internationalPrefix: DigitPattern?
        /// The national (trunk) prefix and carrier codes stripped from national numbers (`0`, `1`, `8`).
        public let nationalPrefix: DigitPattern?
        /// How the national prefix's groups rewrite the number (`268$1`: prepend an area code).
        public let nationalPrefixTransform: String?
        /// The general shape of national numbers, used to decide whether a prefix is really a prefix.
        public let nationalNumber: DigitPattern?
        /// The first digits that make a number of a shared calling code this region's (+1 268: AG).
        public let leadingDigits: DigitPattern?
        /// The shapes numbers in use have, one per number type (fixed line, mobile, toll free…).
        public let numberTypes: [NumberType]

        /// One kind of number (fixed line, mobile, toll free…): the lengths it has and its shape.
        public struct NumberType: Sendable {
            /// Its lengths; empty: those of the region.
            public let lengths: [Int]
            /// Its shape.
            public let pattern: DigitPattern
        }

        init(
            code: String, countryCode: Int, isMain: Bool, possibleLengths: [Int], localOnlyLengths: [Int],
            internationalPrefix: DigitPattern?,
            nationalPrefix: DigitPattern?, nationalPrefixTransform: String?, nationalNumber: DigitPattern?,
            leadingDigits: DigitPattern? = nil, numberTypes: [NumberType] = []
        ) {
            self.code = code
            self.countryCode = countryCode
            self.isMain = isMain
            self.possibleLengths = possibleLengths
            self.localOnlyLengths = localOnlyLengths
            self.internationalPrefix = internationalPrefix
            self.nationalPrefix = nationalPrefix
            self.nationalPrefixTransform = nationalPrefixTransform
            self.nationalNumber = nationalNumber
            self.leadingDigits = leadingDigits
            self.numberTypes = numberTypes
        }
    }

    /// Every region, in the table's order (by calling code).
    public let regions: [Region]
    private let byCode: [String: Int]
    private let mainByCallingCode: [Int]
    /// The regions of each calling code, the main one first (the order libphonenumber tries them).
    private let byCallingCode: [Int: [Int]]

    /// The metadata compiled into Pepper.
    public static let shared: PhoneMetadata = {
        do {
            return try PhoneMetadata(table: PhoneMetadata.table)
        } catch {
            // The table is generated and tested; a failure here is a build defect, not user input.
            fatalError("phone metadata table: \(error)")
        }
    }()

    /// Reads a table in the generated format.
    init(table: String) throws(DigitPattern.SyntaxError) {
        var regions: [Region] = []
        var byCode: [String: Int] = [:]
        var mainByCallingCode = [Int](repeating: -1, count: 1_000)
        var byCallingCode: [Int: [Int]] = [:]
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 11, let countryCode = Int(fields[1]), (1..<1_000).contains(countryCode) else { continue }
            func lengths(_ text: String) -> [Int] { text.split(separator: ",").compactMap { Int($0) }.sorted() }
            func pattern(_ text: String) throws(DigitPattern.SyntaxError) -> DigitPattern? {
                text.isEmpty ? nil : try DigitPattern(text)
            }
            var types: [Region.NumberType] = []
            for entry in fields[10].split(separator: ";") {
                guard let equals = entry.firstIndex(of: "=") else { continue }
                types.append(
                    Region.NumberType(
                        lengths: lengths(String(entry[..<equals])), pattern: try DigitPattern(String(entry[entry.index(after: equals)...])))
                )
            }
            let region = Region(
                code: fields[0], countryCode: countryCode, isMain: fields[2] == "1", possibleLengths: lengths(fields[3]),
                localOnlyLengths: lengths(fields[4]), internationalPrefix: try pattern(fields[5]), nationalPrefix: try pattern(fields[6]),
                nationalPrefixTransform: fields[7].isEmpty ? nil : fields[7], nationalNumber: try pattern(fields[8]),
                leadingDigits: try pattern(fields[9]), numberTypes: types)
            if region.code != "001" { byCode[region.code] = regions.count }
            if region.isMain || mainByCallingCode[countryCode] < 0 { mainByCallingCode[countryCode] = regions.count }
            if region.isMain {
                byCallingCode[countryCode, default: []].insert(regions.count, at: 0)
            } else {
                byCallingCode[countryCode, default: []].append(regions.count)
            }
            regions.append(region)
        }
        self.regions = regions
        self.byCode = byCode
        self.mainByCallingCode = mainByCallingCode
        self.byCallingCode = byCallingCode
    }

    /// The regions sharing a calling code, the main one first.
    public func regions(forCallingCode code: Int) -> [Region] {
        (byCallingCode[code] ?? []).map { regions[$0] }
    }

    /// The region with ISO code `code` (case-insensitive), if Pepper knows it.
    public func region(_ code: String) -> Region? {
        if let index = byCode[code] { return regions[index] }
        return byCode[code.uppercased()].map { regions[$0] }
    }

    /// The main region of a country calling code (`US` for 1), or nil for an unassigned code.
    public func mainRegion(forCallingCode code: Int) -> Region? {
        guard (0..<mainByCallingCode.count).contains(code), mainByCallingCode[code] >= 0 else { return nil }
        return regions[mainByCallingCode[code]]
    }

    /// Whether `code` is an assigned country calling code.
    public func isCallingCode(_ code: Int) -> Bool { mainRegion(forCallingCode: code) != nil }

    /// The ISO codes of all regions, sorted.
    public var regionCodes: [String] { byCode.keys.sorted() }
}

extension PhoneMetadata.Region {
    /// How a national number's length compares with the region's possible lengths.
    enum LengthCheck: Equatable {
        case possible, localOnly, tooShort, tooLong, invalidLength
    }

    func checkLength(_ length: Int) -> LengthCheck {
        if localOnlyLengths.contains(length) { return .localOnly }
        guard let minimum = possibleLengths.first, let maximum = possibleLengths.last else { return .invalidLength }
        if length == minimum { return .possible }
        if length < minimum { return .tooShort }
        if length > maximum { return .tooLong }
        return possibleLengths.contains(length) ? .possible : .invalidLength
    }

    /// Whether `digits` has the general shape of this region's national numbers.
    func looksNational(_ digits: ArraySlice<UInt8>) -> Bool {
        nationalNumber?.fullMatch(digits) ?? false
    }

    /// Whether `digits` is a number of one of the region's types (libphonenumber's
    /// `is_valid_number_for_region`): the general shape and lengths, then one type's lengths and
    /// shape. Digits are 0…9, not ASCII.
    func isValidNumber(_ digits: [UInt8]) -> Bool {
        guard possibleLengths.contains(digits.count), nationalNumber?.fullMatch(digits) ?? false else { return false }
        return numberTypes.contains { type in
            (type.lengths.isEmpty || type.lengths.contains(digits.count)) && type.pattern.fullMatch(digits)
        }
    }
}

extension PhoneMetadata {
    /// The region a national number of calling code `code` belongs to, as libphonenumber picks
    /// it: the only region of the code; else the first whose leading digits start the number, or,
    /// for regions without leading digits, the first where the number is valid.
    func region(forNumber digits: [UInt8], callingCode code: Int) -> Region? {
        let candidates = regions(forCallingCode: code)
        if candidates.count == 1 { return candidates[0] }
        return candidates.first { region in
            if let leading = region.leadingDigits { return leading.prefixMatch(digits) != nil }
            return region.isValidNumber(digits)
        }
    }
}
