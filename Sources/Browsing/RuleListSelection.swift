import Foundation

/// Which compiled rule lists a web view gets, decided so that no page ever loads unprotected
/// because a compile failed (both browsers: `ContentFilters` in `pepper browse`, the app's
/// `RuleListInstaller`).
///
/// The shell compiles (or looks up) every list of a new output first and reports the result:
/// ``compiled(_:)`` when every list is ready — the new set replaces the old one, which becomes
/// the last good set — or ``compileFailed(_:)`` when the engine refused one — the web view
/// keeps (or, at a launch, gets) the **last good set**, kept across launches (``saved()``,
/// ``init(saved:)``), and the failure, which names the list file and the rule that broke it,
/// is shown until a later compile works. Without a last good set there is nothing safe to
/// install: pages whose site is protected do not load at all (``mayLoad(blocking:)``).
///
/// Until the first set is in the web view, every protected page waits: a page's first load is
/// held until the rules are installed.
public struct RuleListSelection: Hashable, Sendable {
    /// A set of compiled lists in the engine's store.
    public struct RuleSet: Hashable, Sendable, Codable {
        /// The manifest identifier of the output it was compiled from.
        public var identifier: String
        /// The store's names of its lists, in order.
        public var names: [String]
        /// How many rules it has.
        public var rules: Int

        /// A set with the given fields.
        public init(identifier: String, names: [String], rules: Int) {
            self.identifier = identifier
            self.names = names
            self.rules = rules
        }
    }

    /// What a protected page may do now.
    public enum LoadDecision: Hashable, Sendable {
        /// Load: rules are in the web view (or the site is allowlisted and needs none).
        case load
        /// Wait: the rules are still being compiled or loaded.
        case wait
        /// Do not load: no set of rules can be installed.
        case refuse(RuleListFailure)
    }

    /// The set in the web view, which is the last good set (kept across launches).
    public private(set) var lastGood: RuleSet?
    /// The last compile that failed, until a later one works.
    public private(set) var failure: RuleListFailure?
    /// Whether the web view has a set (`false` from the launch until the first set is in).
    public private(set) var installed = false
    /// Why the last good set could not be loaded, when it could not.
    public private(set) var fallbackProblem: String?

    /// A selection at launch: nothing in the web view yet; `saved` is the last good set of the
    /// previous launches (``saved()``), if any.
    public init(saved: RuleSet? = nil) {
        lastGood = saved
    }

    /// A new output compiled (or was found in the store): `set` goes into the web view and
    /// becomes the last good set. Returns it.
    @discardableResult
    public mutating func compiled(_ set: RuleSet) -> RuleSet {
        lastGood = set
        failure = nil
        fallbackProblem = nil
        installed = true
        return set
    }

    /// What the shell does after a failed compile.
    public enum FailureOutcome: Hashable, Sendable {
        /// The web view keeps the set it has (the last good one).
        case keep(RuleSet)
        /// The web view has none yet (a launch): load this one, the last good set, from the
        /// store, then report ``fallbackLoaded()`` or ``fallbackFailed(_:)``.
        case loadLastGood(RuleSet)
        /// There is no set to fall back to: protected pages are refused.
        case refuse
    }

    /// A new output did not compile: the web view keeps (or gets) the last good set; without
    /// one, protected pages are refused. The failure is kept until a later compile works.
    public mutating func compileFailed(_ failure: RuleListFailure) -> FailureOutcome {
        self.failure = failure
        guard let lastGood else {
            installed = false
            return .refuse
        }
        return installed ? .keep(lastGood) : .loadLastGood(lastGood)
    }

    /// The last good set was loaded into the web view after a failed compile.
    public mutating func fallbackLoaded() {
        installed = lastGood != nil
    }

    /// The last good set could not be loaded from the store (it was removed behind the
    /// browser's back): nothing safe is left to install.
    public mutating func fallbackFailed(_ problem: String) {
        lastGood = nil
        installed = false
        fallbackProblem = problem
    }

    /// Whether a page may start loading. A page whose site is allowlisted (`blocking` false)
    /// needs no rules; any other waits for the first set (or for the last good set being
    /// loaded after a failed compile) and is refused when none can be installed.
    public func mayLoad(blocking: Bool) -> LoadDecision {
        if !blocking || installed { return .load }
        // After a failed compile with a last good set still to load, pages wait for it.
        if let failure, lastGood == nil { return .refuse(fallbackProblem.map { failure.withFallbackProblem($0) } ?? failure) }
        return .wait
    }

    /// What the window says about the rules, when something went wrong: the failure, and
    /// whether pages are protected by the last good set or refused.
    public var notice: String? {
        guard let failure else { return nil }
        if installed, let lastGood {
            let rules = "\(lastGood.rules.formatted(.number)) rule\(lastGood.rules == 1 ? "" : "s")"
            return "Pepper's new rules could not be installed: \(Self.sentence(failure)) Pages are protected by the previous rules "
                + "(\(rules), output \(lastGood.identifier.prefix(12)))."
        }
        let fallback = fallbackProblem.map { " The previous rules cannot be loaded either: \(Self.sentence($0))" } ?? ""
        return "Pepper's rules could not be installed: \(Self.sentence(failure))\(fallback) Pages do not load until they are: "
            + "run `pepper update` or remove the list that breaks them."
    }

    /// `text` ending with one full stop (WebKit's words often end with one already).
    private static func sentence(_ text: some CustomStringConvertible) -> String {
        let words = text.description
        return words.hasSuffix(".") ? words : words + "."
    }

    /// The last good set, to keep for the next launch.
    public func saved() -> RuleSet? { lastGood }

    /// Reads a saved last good set from `url`; `nil` when there is none (or it is unreadable:
    /// then the next compile decides alone).
    public static func load(from url: URL) -> RuleSet? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(RuleSet.self, from: data)
    }

    /// Writes `set` to `url` atomically.
    public static func save(_ set: RuleSet, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(set).write(to: url, options: .atomic)
    }
}

/// A rule list the web engine refused, said the way DuckDuckGo's rules manager says which of
/// its inputs broke a compile: which output and file, which lists it was made from, the rule
/// that the engine refuses (found by ``FailingRuleSearch``) and the engine's own words.
public struct RuleListFailure: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// A rule the engine refuses on its own.
    public struct Rule: Hashable, Sendable, Codable {
        /// Its position in the file, from 1.
        public var number: Int
        /// How many rules the file has.
        public var of: Int
        /// The rule's JSON.
        public var json: String

        /// A rule with the given fields.
        public init(number: Int, of: Int, json: String) {
            self.number = number
            self.of = of
            self.json = json
        }
    }

    /// The manifest identifier of the output that failed.
    public var identifier: String
    /// The file the engine refused (`blocker-1.json`).
    public var file: String
    /// The lists the output was compiled from (the manifest's sources).
    public var lists: [String]
    /// The rule that breaks the file, when one rule alone does.
    public var rule: Rule?
    /// The engine's words.
    public var reason: String

    /// A failure with the given fields.
    public init(identifier: String, file: String, lists: [String], rule: Rule? = nil, reason: String) {
        self.identifier = identifier
        self.file = file
        self.lists = lists
        self.rule = rule
        self.reason = reason
    }

    /// `WebKit refused blocker-1.json (from the lists A, B): rule 3 of 12 {…}: reason`.
    public var description: String {
        let from = lists.isEmpty ? "" : " (compiled from \(lists.joined(separator: ", ")))"
        let which =
            rule.map { rule in
                let json = rule.json.count > 160 ? String(rule.json.prefix(159)) + "…" : rule.json
                return ": rule \(rule.number) of \(rule.of), \(json), is refused"
            } ?? ""
        return "WebKit refused \(file)\(from)\(which): \(reason)"
    }

    fileprivate func withFallbackProblem(_ problem: String) -> RuleListFailure {
        var failure = self
        failure.reason += "; the previous rules cannot be loaded: \(problem)"
        return failure
    }
}

/// Finds the rule of a list that makes the web engine refuse the whole list, by halving: the
/// half the engine refuses is halved again, until one rule is left (about 2 × log₂ n compiles
/// of ever smaller lists, so about twice the work of one compile of the whole list).
///
/// A search is a small state machine, so that a shell that compiles synchronously (the
/// `pepper browse` helper) and one that compiles asynchronously (`WKContentRuleListStore`)
/// drive the same decisions: compile the rules of ``probe``, report the engine's answer with
/// ``report(_:)``, until ``probe`` is `nil`; then ``result`` is the rule, if one rule alone is
/// refused. ``find(in:compile:)`` are the two drivers.
public struct FailingRuleSearch: Hashable, Sendable {
    private enum Phase: Hashable, Sendable {
        case firstHalf(Range<Int>)
        case secondHalf(Range<Int>)
        case single(Int)
        case done
    }

    /// A rule the engine refuses on its own.
    public struct Found: Hashable, Sendable {
        /// Its index in the list.
        public var index: Int
        /// The engine's words.
        public var reason: String
    }

    private var phase: Phase
    /// The rule the engine refuses on its own; `nil` until the search is done, and after it
    /// when no single rule is refused (the list fails as a whole: its size, or rules that fail
    /// only together).
    public private(set) var result: Found?

    /// A search among `count` rules, all of which the engine refused together.
    public init(count: Int) {
        phase = .done
        phase = Self.phase(for: 0..<max(count, 0))
    }

    /// The rules to compile next (indices of the list), or `nil` when the search is done.
    public var probe: Range<Int>? {
        switch phase {
        case .firstHalf(let range): return range.lowerBound..<Self.middle(of: range)
        case .secondHalf(let range): return Self.middle(of: range)..<range.upperBound
        case .single(let index): return index..<(index + 1)
        case .done: return nil
        }
    }

    /// The engine's answer for ``probe``: its error, or `nil` when the rules compiled.
    public mutating func report(_ error: String?) {
        switch phase {
        case .firstHalf(let range):
            phase = error != nil ? Self.phase(for: range.lowerBound..<Self.middle(of: range)) : .secondHalf(range)
        case .secondHalf(let range):
            phase = error != nil ? Self.phase(for: Self.middle(of: range)..<range.upperBound) : .done
        case .single(let index):
            result = error.map { Found(index: index, reason: $0) }
            phase = .done
        case .done:
            break
        }
    }

    private static func phase(for range: Range<Int>) -> Phase {
        switch range.count {
        case 0: return .done
        case 1: return .single(range.lowerBound)
        default: return .firstHalf(range)
        }
    }

    private static func middle(of range: Range<Int>) -> Int { range.lowerBound + range.count / 2 }

    /// Searches `rules` (each a rule's JSON) with a compiler that answers at once.
    public static func find(in rules: [String], compile: (String) -> String?) -> Found? {
        var search = FailingRuleSearch(count: rules.count)
        while let probe = search.probe { search.report(compile(list(rules[probe]))) }
        return search.result
    }

    /// Searches `rules` (each a rule's JSON) with an asynchronous compiler, on the caller's
    /// actor (the app's rule-list store is used from the main actor).
    public static func find(
        in rules: [String], isolation: isolated (any Actor)? = #isolation, compile: (String) async -> String?
    ) async -> Found? {
        var search = FailingRuleSearch(count: rules.count)
        while let probe = search.probe { search.report(await compile(list(rules[probe]))) }
        return search.result
    }

    /// The rules of a list's JSON (an array of objects), each as its own JSON text; `nil` when
    /// the text is not such an array.
    public static func rules(of json: Data) -> [String]? {
        guard let array = try? JSONSerialization.jsonObject(with: json) as? [Any] else { return nil }
        var rules: [String] = []
        rules.reserveCapacity(array.count)
        for rule in array {
            guard JSONSerialization.isValidJSONObject(rule),
                let data = try? JSONSerialization.data(withJSONObject: rule, options: [.sortedKeys])
            else { return nil }
            rules.append(String(decoding: data, as: UTF8.self))
        }
        return rules
    }

    /// A list's JSON made of `rules` (each a JSON text).
    public static func list(_ rules: some Collection<String>) -> String {
        "[" + rules.joined(separator: ",") + "]"
    }

    /// The failure to report for `file` of the output `identifier` (compiled from `lists`),
    /// which the engine refused with `reason`: with the rule that breaks it when one was
    /// `found` among `rules`.
    public static func failure(
        identifier: String, file: String, lists: [String], rules: [String]?, found: Found?, reason: String
    ) -> RuleListFailure {
        guard let rules, let found else { return RuleListFailure(identifier: identifier, file: file, lists: lists, reason: reason) }
        return RuleListFailure(
            identifier: identifier, file: file, lists: lists,
            rule: RuleListFailure.Rule(number: found.index + 1, of: rules.count, json: rules[found.index]), reason: found.reason)
    }
}
