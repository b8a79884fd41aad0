/// A number with trailing wildcards, `+1 253 950 12##`: every number that replaces each `#`
/// with a digit (here 100 numbers, `+12539501200` … `+12539501299`).
public struct NumberRange: Sendable, Hashable, CustomStringConvertible {
    /// Why a range was refused.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The number with its wildcards as zeros is not a valid number.
        case invalidNumber(PhoneNumberError)
        /// A `#` between digits: only the last digits can vary.
        case wildcardNotAtEnd
        /// More numbers than the cap allows.
        case tooLarge(count: Int64, cap: Int)
        /// The digits do not fit CallKit's 64-bit entries.
        case outOfRange

        /// A one-line reason.
        public var description: String {
            switch self {
            case .invalidNumber(let error): "\(error)"
            case .wildcardNotAtEnd: "wildcards (#) must be the last digits"
            case .tooLarge(let count, let cap): "the range has \(count) numbers, more than the cap of \(cap)"
            case .outOfRange: "too many digits for a call-directory entry"
            }
        }
    }

    /// Default cap on the numbers one range may stand for.
    public static let defaultCap = 10_000

    /// The first number (wildcards as 0).
    public let first: PhoneNumber
    /// How many trailing digits vary.
    public let wildcards: Int

    /// Parses `text`; `#` stands for any digit.
    ///
    /// - Returns: nil when `text` has no wildcard.
    /// - Throws: ``Error`` for a malformed range or one larger than `cap`.
    public init?(_ text: String, parser: PhoneNumberParser, cap: Int = NumberRange.defaultCap) throws(Error) {
        var wildcards = 0
        var seenWildcard = false
        var replaced = ""
        for scalar in text.unicodeScalars {
            if scalar == "#" {
                seenWildcard = true
                wildcards += 1
                replaced.unicodeScalars.append("0")
            } else {
                if seenWildcard, PhoneNumberParser.digitValue(scalar) != nil { throw .wildcardNotAtEnd }
                replaced.unicodeScalars.append(scalar)
            }
        }
        guard wildcards > 0 else { return nil }
        var count: Int64 = 1
        for _ in 0..<wildcards {
            let (product, overflow) = count.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw .tooLarge(count: .max, cap: cap) }
            count = product
        }
        guard count <= Int64(cap) else { throw .tooLarge(count: count, cap: cap) }
        let number: PhoneNumber
        do {
            number = try parser.parse(replaced)
        } catch {
            throw .invalidNumber(error)
        }
        // The trunk prefix or an extension must not have swallowed the wildcards.
        guard number.nationalNumber.count > wildcards, number.nationalNumber.hasSuffix(String(repeating: "0", count: wildcards)),
            number.callDirectoryValue != nil
        else { throw .outOfRange }
        self.first = number
        self.wildcards = wildcards
    }

    /// How many numbers the range stands for.
    public var count: Int {
        var count = 1
        for _ in 0..<wildcards { count *= 10 }
        return count
    }

    /// The numbers as CallKit entries, ascending.
    public var callDirectoryValues: ClosedRange<Int64> {
        let start = first.callDirectoryValue ?? 0
        return start...(start + Int64(count) - 1)
    }

    /// The numbers, ascending.
    public var numbers: [PhoneNumber] {
        let prefix = first.nationalNumber.dropLast(wildcards)
        return (0..<count).map { offset in
            let suffix = String(offset)
            let padded = String(repeating: "0", count: wildcards - suffix.count) + suffix
            return PhoneNumber(countryCode: first.countryCode, nationalNumber: prefix + padded)
        }
    }

    /// The range in E.164 with its wildcards (`+1253950120##`).
    public var description: String {
        "+\(first.countryCode)\(first.nationalNumber.dropLast(wildcards))" + String(repeating: "#", count: wildcards)
    }
}
