import PepperActions

/// A sentence shown to the person after an action: what happened, or what went wrong and
/// which field it concerns.
///
/// Every action of a screen model returns one; a face shows ``text`` (the console above the
/// form or beside ``field``, the app in an alert or under the field). Nothing changed when
/// ``kind`` is ``Kind/error``.
public struct Notice: Error, Sendable, Hashable {
    /// How the notice reads.
    public enum Kind: String, Sendable, Hashable {
        /// It worked.
        case success
        /// Worth knowing, nothing went wrong.
        case info
        /// It worked, with a caveat.
        case warning
        /// It did not work; nothing changed.
        case error
    }

    /// How it reads.
    public var kind: Kind
    /// The sentence.
    public var text: String
    /// The form field the notice is about (an error next to it), when one.
    public var field: String?

    /// A notice with the given fields.
    public init(_ kind: Kind, _ text: String, field: String? = nil) {
        self.kind = kind
        self.text = text
        self.field = field
    }

    /// A success.
    public static func success(_ text: String) -> Notice { Notice(.success, text) }
    /// An error, about `field` when given.
    public static func error(_ text: String, field: String? = nil) -> Notice { Notice(.error, text, field: field) }

    /// The banner over a form whose fields have `problems` (by field path): the problem itself
    /// when there is one, so a text too long is not called missing; how many otherwise. About
    /// the first field in path order, which the form focuses.
    public static func formProblems(_ problems: [String: String]) -> Notice {
        let first = problems.keys.sorted().first
        switch problems.count {
        case 0: return .error("Something is missing: see the form below.")
        case 1: return .error(problems.values.first! + " See the form below.", field: first)
        default: return .error("\(problems.count) fields need a change: see the form below.", field: first)
        }
    }

    /// An action's failure as a sentence that starts with a capital.
    static func failure(_ error: ActionError, field: String? = nil) -> Notice {
        Notice(.error, Text.sentence(error.description), field: field)
    }

    /// Whether the action failed.
    public var isError: Bool { kind == .error }
}

/// Why a screen cannot be shown.
public struct ScreenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a sentence.
    public var description: String

    init(_ error: ActionError) {
        description = Text.sentence(error.description)
    }

    init(_ message: String) {
        description = message
    }
}

/// Small text helpers shared by the screens.
enum Text {
    /// `text` with a capital first letter and a final full stop.
    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return capitalised.hasSuffix(".") || capitalised.hasSuffix("?") || capitalised.hasSuffix("!") ? capitalised : capitalised + "."
    }

    /// `count` with thousands separators (`112,360`).
    static func count(_ value: Int) -> String { Wording.count(value) }

    /// "1 rule", "2 rules".
    static func plural(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        Wording.plural(value, singular, plural)
    }
}

/// How numbers read in every face (the console, the CLI), in one place.
public enum Wording {
    /// `value` with thousands separators (`112,360`).
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }

    /// `value` and the noun that goes with it: "1 query", "7 queries", "1,000 rules".
    public static func plural(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count(value)) \(value == 1 ? singular : plural ?? singular + "s")"
    }
}
