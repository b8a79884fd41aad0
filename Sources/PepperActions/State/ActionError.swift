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
    case notADomain(input: String, problem: SiteInputProblem)
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
    case invalidSource(source: String, problem: ListSourceProblem)
    /// A `picket:` source given without an API key (read:mobile).
    case picketKeyMissing(source: String)
    /// A list a DNS client group names that the state cannot give (no such list, or no copy yet).
    case groupListUnavailable(group: String, list: UnknownListError)
    /// The list could not be fetched or has no usable rule; it was not added. `reason` is what
    /// the update recorded on the list (the downloader's or the parser's words).
    case listUnusable(source: String, reason: String)
    /// A rule of "My rules" that Pepper cannot use, and why.
    case invalidRule(rule: String, problem: RuleProblem)
    /// The rule is not in "My rules".
    case unknownRule(String)
    /// The content blocker could not be compiled; the last good output stays in place.
    case rebuild(String)
    /// Another update holds the update lock (its pid when known).
    case updateRunning(pid: Int32?)
    /// A phone number or range that cannot be read.
    case invalidNumber(input: String, problem: NumberProblem)
    /// The number or range is not on that list.
    case numberNotListed(String)
    /// A request that cannot be judged (bad URL, unknown type); the engine's words.
    case invalidRequest(String)
    /// A message rule that cannot be added or removed.
    case invalidMessageRule(MessageRuleProblem)
    /// A contacts file with no phone number to import.
    case noContactNumbers(ContactsProblem)
    /// A client-groups file that cannot be used.
    case invalidGroups(path: String, problem: GroupsFileProblem)
    /// A setting given with a value that cannot be used; `field` names it (`server`, `key`).
    case invalidField(field: String, problem: FieldProblem)
    /// A choice of categories the list cannot take (``ListCategories``); nothing changed.
    case invalidCategories(list: String, problem: CategoryProblem)
    /// Sync with the person's other devices cannot go on (the reason says why and what to do).
    case sync(String)

    public var description: String {
        switch self {
        case .storage(let reason): return reason
        case .notADomain(let input, let problem): return "'\(input)' is not a domain or a web address: \(problem)"
        case .notAllowlisted(let domain): return "\(domain) is not allowlisted"
        case .unknownList(let name): return "there is no list named '\(name)'"
        case .listExists(let name): return "a list named '\(name)' exists already"
        case .builtInList(let name): return "'\(name)' is built in: it can be disabled, not removed"
        case .invalidListName(let name):
            return "'\(name)' is not a valid list name: use lower-case letters, digits, '.', '-' and '_' (at most 64)"
        case .invalidSource(let source, let problem): return "\(source): \(problem)"
        case .picketKeyMissing(let source): return "\(source): needs an API key (read:mobile)"
        case .groupListUnavailable(let group, let list): return "\(list.name): group '\(group)': \(list)"
        case .listUnusable(let source, let reason): return "\(source): \(reason); not added"
        case .invalidRule(let rule, let problem): return "'\(rule)' cannot be used: \(problem)"
        case .unknownRule(let rule): return "'\(rule)' is not one of your rules"
        case .rebuild(let reason): return "cannot compile the content blocker (the last good one stays in place): \(reason)"
        case .updateRunning(let pid): return "another update is running" + (pid.map { " (pid \($0))" } ?? "")
        case .invalidNumber(let input, let problem): return "\(input): \(problem)"
        case .numberNotListed(let number): return "\(number) is not on the list"
        case .invalidRequest(let reason): return reason
        case .invalidMessageRule(let problem): return problem.description
        case .noContactNumbers(let problem): return problem.description
        case .invalidGroups(let path, let problem): return "groups file \(path): \(problem)"
        case .invalidField(_, let problem): return problem.description
        case .invalidCategories(let list, let problem): return "\(list): \(problem)"
        case .sync(let reason): return reason
        }
    }
}
