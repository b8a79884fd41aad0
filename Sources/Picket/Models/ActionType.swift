import Foundation

/// The kinds of labor action: every type the public Online Picket Line apps offer in their
/// strike forms — the iOS app `strike, lockout, picket, boycott, work_stoppage, other`, the
/// Android app `strike, walkout, slowdown, picket, boycott, other` — and `protest`.
///
/// This is the one list: the server's validation (and the message that names the field and
/// lists the values), the console's and the Apple app's choices, the wording of notices, the CLI
/// and `docs/picket-openapi.json` (a test compares it) all follow it. Records keep the raw value,
/// so a type another OPL server sends is shown as it came (``label(of:)``).
public enum ActionType: String, Codable, Sendable, CaseIterable {
    /// Workers stop work.
    case strike
    /// The employer keeps its workers out.
    case lockout
    /// Workers leave the workplace, usually at short notice.
    case walkout
    /// Workers deliberately slow down.
    case slowdown
    /// Work stops (the iOS app's `work_stoppage`).
    case workStoppage = "work_stoppage"
    /// A picket line.
    case picket
    /// A consumer boycott.
    case boycott
    /// A protest.
    case protest
    /// Anything else.
    case other

    /// What people read in a list of choices or a table: `Strike`, `Work stoppage`.
    public var label: String {
        switch self {
        case .strike: return "Strike"
        case .lockout: return "Lockout"
        case .walkout: return "Walkout"
        case .slowdown: return "Slowdown"
        case .workStoppage: return "Work stoppage"
        case .picket: return "Picket"
        case .boycott: return "Boycott"
        case .protest: return "Protest"
        case .other: return "Other labor action"
        }
    }

    /// The label inside a sentence: `strike`, `work stoppage`.
    public var noun: String { label.lowercased() }

    /// What is going on at `employer`, as a notice says it: a lockout is the employer's doing,
    /// the others the workers'.
    public func situation(at employer: String) -> String {
        switch self {
        case .strike: return "Workers at \(employer) are on strike."
        case .lockout: return "\(employer) has locked its workers out."
        case .walkout: return "Workers at \(employer) have walked out."
        case .slowdown: return "Workers at \(employer) are on a slowdown."
        case .workStoppage: return "Workers at \(employer) have stopped work."
        case .picket: return "Workers at \(employer) are on a picket line."
        case .boycott: return "Workers at \(employer) have called a boycott."
        case .protest: return "Workers at \(employer) are protesting."
        case .other: return "Workers at \(employer) are taking a labor action."
        }
    }

    /// The label of a stored or received raw value: a known type's ``label``, anything else as
    /// sent with `_` read as a space (`sit_in` → `Sit in`), `Labor action` when empty.
    public static func label(of raw: String) -> String {
        if let known = ActionType(rawValue: raw) { return known.label }
        let words = raw.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
        guard let first = words.first else { return "Labor action" }
        return first.uppercased() + words.dropFirst()
    }

    /// ``label(of:)`` inside a sentence: a known type's ``noun``, anything else as sent.
    public static func noun(of raw: String) -> String {
        if let known = ActionType(rawValue: raw) { return known.noun }
        let words = raw.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
        return words.isEmpty ? "labor action" : words
    }

    /// ``situation(at:)`` of a raw value; for a type this list does not know, the type as sent.
    public static func situation(of raw: String, at employer: String) -> String {
        if let known = ActionType(rawValue: raw) { return known.situation(at: employer) }
        let noun = noun(of: raw)
        return noun == "labor action"
            ? ActionType.other.situation(at: employer) : "Workers at \(employer) are taking a labor action (\(noun))."
    }
}
