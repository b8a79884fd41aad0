import FilterLists

/// Why a line cannot go into "My rules".
public enum RuleProblem: Sendable, Hashable, CustomStringConvertible {
    /// A comment (`! …`): the editor keeps it, but it is not a rule to add.
    case comment
    /// Longer than ``PepperState/maximumRuleLength`` characters.
    case tooLong(limit: Int)
    /// Empty, or more than one line.
    case notOneLine
    /// Not text the parser can read; the parser's words.
    case unreadable(String)
    /// The parser or the compiler skips it (a scriptlet, an option WebKit has no counterpart for, …).
    case skipped(SkipReason)
    /// It parses to no rule, or to more than one.
    case notARule
    /// "My rules" holds ``PepperState/maximumRuleCount`` rules already.
    case full(limit: Int)

    public var description: String {
        switch self {
        case .comment: "it is a comment"
        case .tooLong(let limit): "it is longer than \(limit) characters"
        case .notOneLine: "a rule is one non-empty line"
        case .unreadable(let reason): reason
        case .skipped(let reason): reason.explanation
        case .notARule: "it is not a rule in Adblock Plus syntax"
        case .full(let limit): "My rules holds at most \(limit) rules"
        }
    }
}
