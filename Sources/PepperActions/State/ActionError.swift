import Foundation
import ListSync

/// Why an action on Pepper's state failed, in words a person can act on.
///
/// The messages say what is wrong, not which command to run: each face (the CLI, the console,
/// the app) adds its own way to fix it.
public enum ActionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The state database or a file of the home could not be read or written.
    case storage(String)
    /// The text is neither a domain nor a web address with a host.
    case notADomain(input: String, reason: String)
    /// The domain is not on the allowlist.
    case notAllowlisted(String)
    /// No list source has this name.
    case unknownList(String)
    /// A list source with this name exists already.
    case listExists(String)
    /// Built-in lists can be disabled, not removed.
    case builtInList(String)
    /// The text cannot name a list.
    case invalidListName(String)
    /// A list source that cannot be used as given (no such file, not a list, …).
    case invalidSource(source: String, reason: String)
    /// A `picket:` source given without an API key (read:mobile).
    case picketKeyMissing(source: String)
    /// A list a DNS client group names that the state cannot give (no such list, or no copy yet).
    case groupListUnavailable(group: String, list: UnknownListError)
    /// The list could not be fetched or has no usable rule; it was not added.
    case listUnusable(source: String, reason: String)
    /// A rule of "My rules" that Pepper cannot use, with the parser's reason.
    case invalidRule(rule: String, reason: String)
    /// The rule is not in "My rules".
    case unknownRule(String)
    /// The content blocker could not be compiled; the last good output stays in place.
    case rebuild(String)
    /// Another update holds the update lock (its pid when known).
    case updateRunning(pid: Int32?)
    /// A phone number or range that cannot be read.
    case invalidNumber(input: String, reason: String)
    /// The number or range is not on that list.
    case numberNotListed(String)
    /// A request that cannot be judged (bad URL, unknown type).
    case invalidRequest(String)
    /// A client-groups file that cannot be used.
    case invalidGroups(path: String, reason: String)
    /// A setting given with a value that cannot be used; `field` names it (`server`, `key`).
    case invalidField(field: String, reason: String)

    public var description: String {
        switch self {
        case .storage(let reason): return reason
        case .notADomain(let input, let reason): return "'\(input)' is not a domain or a web address: \(reason)"
        case .notAllowlisted(let domain): return "\(domain) is not allowlisted"
        case .unknownList(let name): return "there is no list named '\(name)'"
        case .listExists(let name): return "a list named '\(name)' exists already"
        case .builtInList(let name): return "'\(name)' is built in: it can be disabled, not removed"
        case .invalidListName(let name):
            return "'\(name)' is not a valid list name: use lower-case letters, digits, '.', '-' and '_' (at most 64)"
        case .invalidSource(let source, let reason): return "\(source): \(reason)"
        case .picketKeyMissing(let source): return "\(source): needs an API key (read:mobile)"
        case .groupListUnavailable(let group, let list): return "\(list.name): group '\(group)': \(list)"
        case .listUnusable(let source, let reason): return "\(source): \(reason); not added"
        case .invalidRule(let rule, let reason): return "'\(rule)' cannot be used: \(Self.explain(reason))"
        case .unknownRule(let rule): return "'\(rule)' is not one of your rules"
        case .rebuild(let reason): return "cannot compile the content blocker (the last good one stays in place): \(reason)"
        case .updateRunning(let pid): return "another update is running" + (pid.map { " (pid \($0))" } ?? "")
        case .invalidNumber(let input, let reason): return "\(input): \(reason)"
        case .numberNotListed(let number): return "\(number) is not on the list"
        case .invalidRequest(let reason): return reason
        case .invalidGroups(let path, let reason): return "groups file \(path): \(reason)"
        case .invalidField(_, let reason): return reason
        }
    }

    /// A parser skip reason (`unsupported-option:csp`) in words.
    static func explain(_ reason: String) -> String {
        let known: [String: String] = [
            "comment": "it is a comment",
            "scriptlet": "scriptlets are not supported",
            "procedural-cosmetic": "procedural cosmetic filters are not CSS and are not supported",
            "css-injection": "CSS injection is not supported",
            "html-filter": "HTML filters are not supported",
            "cosmetic-modifier": "cosmetic rules with modifiers are not supported",
            "invalid-css-selector": "the selector is not valid CSS",
            "invalid-regex": "the regular expression does not compile",
            "invalid-pattern": "the pattern has characters that never appear in a web address",
            "matches-everything": "it would block every request",
            "invalid-domain": "a domain in it is not a valid host name",
            "unsupported-domain-syntax": "domains written as example.* or /regex/ are not supported",
            "line-too-long": "it is too long",
            "invalid-utf8": "it is not valid text",
            "invalid-option-value": "an option has a missing or unexpected value",
            "not-convertible": "WebKit cannot express it",
        ]
        if let text = known[reason] { return "\(text) (\(reason))" }
        if reason.hasPrefix("unsupported-option:") { return "the option $\(reason.dropFirst(19)) is not supported (\(reason))" }
        if reason.hasPrefix("exception-only-option:") {
            return "the option $\(reason.dropFirst(22)) only works on exceptions (@@) (\(reason))"
        }
        return reason
    }
}
