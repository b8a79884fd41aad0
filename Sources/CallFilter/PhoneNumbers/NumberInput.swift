/// A number as a person typed it for the block or identification list: one number, or a range
/// ending in `#` wildcards (`+1 206 555 01##`), turned into call-directory entries.
///
/// Every face (the CLI, the console, the app) reads numbers through this one type, so they accept
/// and refuse the same input with the same reasons.
public struct NumberInput: Sendable, Hashable {
    /// Why a text is not a number or a range.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// Not a phone number.
        case number(PhoneNumberError)
        /// A range that cannot be used.
        case range(NumberRange.Error)
        /// The digits do not fit a call-directory entry (CallKit's 64 bits).
        case outOfRange

        public var description: String {
            switch self {
            case .number(let error): "\(error)"
            case .range(let error): "\(error)"
            case .outOfRange: "too many digits for a call-directory entry"
            }
        }
    }

    /// Why the text is not a number or a range.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The text given.
        public var text: String
        /// Why it was refused.
        public var problem: Problem

        public var description: String { "\(text): \(problem)" }
    }

    /// The entries it stands for, ascending.
    public let entries: [CallDirectoryEntry]
    /// How to show it: the E.164 number, or the range with its size.
    public let display: String
    /// The range pattern (`+1206555 01##`) when it is a range.
    public let pattern: String?

    /// Reads `text` with `parser`; `label` goes on every entry (identification); a range may
    /// stand for at most `cap` numbers.
    public init(_ text: String, label: String? = nil, parser: PhoneNumberParser, cap: Int = NumberRange.defaultCap) throws(Error) {
        do {
            if let range = try NumberRange(text, parser: parser, cap: cap) {
                entries = range.callDirectoryValues.map { CallDirectoryEntry(number: $0, label: label) }
                display = "\(range) (\(range.count) numbers)"
                pattern = "\(range)"
                return
            }
        } catch {
            throw Error(text: text, problem: .range(error))
        }
        let number: PhoneNumber
        do {
            number = try parser.parse(text)
        } catch {
            throw Error(text: text, problem: .number(error))
        }
        guard let value = number.callDirectoryValue else {
            throw Error(text: text, problem: .outOfRange)
        }
        entries = [CallDirectoryEntry(number: value, label: label)]
        display = number.e164
        pattern = nil
    }
}
