/// The outcome of parsing one filter list: its rules, its header fields and what was skipped.
public struct ParsedFilterList: Sendable {
    /// A line that was not turned into a rule, kept as an example for reports.
    public struct SkippedLine: Hashable, Sendable {
        /// The 1-based line number.
        public var line: Int
        /// The line (truncated to 200 characters).
        public var text: String
        /// Why it was skipped.
        public var reason: SkipReason
    }

    /// The list's display name (usually the source name or file name).
    public var name: String
    /// The syntax the list was read as.
    public var format: FilterListFormat
    /// Request rules, in list order.
    public var networkRules: [NetworkRule] = []
    /// Element-hiding rules, in list order.
    public var cosmeticRules: [CosmeticRule] = []
    /// Header fields such as `! Title:` and `! Expires:`.
    public var metadata = FilterListMetadata()
    /// Number of lines read.
    public var lineCount = 0
    /// Number of comment and blank lines.
    public var commentCount = 0
    /// Lines skipped, by reason.
    public var skipped: [SkipReason: Int] = [:]
    /// The first few skipped lines of each reason.
    public var skippedExamples: [SkippedLine] = []

    /// Creates an empty result.
    public init(name: String, format: FilterListFormat) {
        self.name = name
        self.format = format
    }

    /// Number of rules read (network and cosmetic).
    public var ruleCount: Int { networkRules.count + cosmeticRules.count }

    /// Number of lines skipped, all reasons together.
    public var skippedCount: Int { skipped.values.reduce(0, +) }

    static let examplesPerReason = 3

    mutating func skip(line: Int, text: @autoclosure () -> String, reason: SkipReason) {
        let count = skipped[reason, default: 0]
        skipped[reason] = count + 1
        if count < Self.examplesPerReason {
            skippedExamples.append(SkippedLine(line: line, text: String(text().prefix(200)), reason: reason))
        }
    }
}

/// The header fields of a filter list that matter to Pepper.
public struct FilterListMetadata: Hashable, Sendable {
    /// `! Title:`.
    public var title: String?
    /// `! Version:`.
    public var version: String?
    /// `! Expires:` in seconds (`4 days`, `12 hours`).
    public var expires: Int?
    /// `! Homepage:`.
    public var homepage: String?
    /// `! Diff-Path:` (differential updates).
    public var diffPath: String?

    /// No fields.
    public init() {}

    /// Parses an `! Expires:` value such as `4 days (update frequency)` or `12h`.
    public static func parseExpires(_ value: String) -> Int? {
        let scanner = value.trimmingPrefix(while: { $0 == " " })
        let digits = scanner.prefix(while: \.isNumber)
        guard let amount = Int(digits), amount > 0 else { return nil }
        let unit = scanner.dropFirst(digits.count).trimmingPrefix(while: { $0 == " " }).lowercased()
        if unit.hasPrefix("d") { return amount * 86_400 }
        if unit.hasPrefix("h") { return amount * 3_600 }
        if unit.hasPrefix("m") { return amount * 60 }
        return amount * 86_400  // ABP's default unit is days
    }
}

/// A list that cannot be read at all.
public enum FilterListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The content has NUL bytes or is not text.
    case binaryContent(name: String)
    /// The content is in a format this parser does not read.
    case unsupportedFormat(name: String, detected: String)
    /// A JSON list (TDS, Disconnect) that does not decode.
    case invalidJSON(name: String, format: FilterListFormat, reason: String)

    public var description: String {
        switch self {
        case .binaryContent(let name):
            return "\(name) is not a text filter list (it contains binary data; UTF-16 and compressed files are not supported)"
        case .unsupportedFormat(let name, let detected):
            return "\(name) looks like \(detected), not a filter list, hosts file, domain list, TDS or Disconnect file"
        case .invalidJSON(let name, let format, let reason):
            return "\(name) is not a valid \(format.rawValue) file: \(reason)"
        }
    }
}
