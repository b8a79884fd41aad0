import ContentBlocker
import FilterLists
import Foundation
import Picket
import Storage

/// One list to compile: its bytes and how to read them.
public struct ListInput: Sendable {
    /// The name shown in reports and the manifest.
    public var name: String
    /// Where it came from (URL, path, or `embedded:pepper-starter`).
    public var location: String
    /// The HTTP ETag of the copy, if downloaded.
    public var etag: String?
    /// The list's bytes.
    public var data: Data
    /// Its format, or `nil` to detect.
    public var format: FilterListFormat?
    /// For Tracker Radar and Disconnect lists: the categories to block (`nil`: the list's default).
    public var categories: [String]?
    /// The SHA-256 of `data` in hex, when already known (a stored copy hashed before).
    public var sha256: String?

    /// The SHA-256 of `data` in hex: the known one, or computed now.
    public var digest: String { sha256 ?? ContentBlockerOutput.SourceIdentity.sha256Hex(data) }

    /// An input with the given fields.
    public init(
        name: String, location: String, etag: String? = nil, data: Data, format: FilterListFormat? = nil,
        categories: [String]? = nil, sha256: String? = nil
    ) {
        self.name = name
        self.location = location
        self.etag = etag
        self.data = data
        self.format = format
        self.categories = categories
        self.sha256 = sha256
    }

    /// The embedded starter list.
    public static let starter = ListInput(
        name: StarterList.name, location: StarterList.url, data: Data(StarterList.text.utf8), format: .abp)
}

/// Builds the content blocker from lists: parse (concurrently), compile, publish.
public enum BlockerBuilder {
    /// A list and how parsing it went.
    public struct ParsedInput: Sendable {
        /// The input.
        public var input: ListInput
        /// The parsed list, or why it could not be read.
        public var result: Result<ParsedFilterList, FilterListError>
        /// Seconds spent parsing.
        public var seconds: Double
    }

    /// How reading one input went, for reports; kept with the incremental compile's entry so a
    /// build that reads no list can still report them.
    public struct InputSummary: Sendable, Hashable, Codable {
        /// The list's name.
        public var name: String
        /// Its size in bytes.
        public var bytes: Int
        /// The syntax it was read as.
        public var format: String?
        /// Rules read.
        public var rules: Int
        /// Lines skipped.
        public var skipped: Int
        /// Seconds spent reading it (0 when it was not read again).
        public var seconds: Double
        /// Why it could not be read at all, when it could not.
        public var error: String?
        /// When no line was usable: the most frequent reasons, in a few words.
        public var uselessBecause: String?
        /// Whether its rules were not read again but reused from the last build of the same lists.
        public var reused = false

        /// The summary of a parsed input.
        public init(_ parsed: ParsedInput) {
            name = parsed.input.name
            bytes = parsed.input.data.count
            seconds = parsed.seconds
            switch parsed.result {
            case .success(let list):
                format = list.format.rawValue
                rules = list.ruleCount
                skipped = list.skippedCount
                uselessBecause = list.ruleCount == 0 ? BlockerBuilder.describeSkips([parsed]) : nil
            case .failure(let failure):
                rules = 0
                skipped = 0
                error = failure.description
            }
        }
    }

    /// Why a blocker cannot be built.
    public enum Error: Swift.Error, CustomStringConvertible {
        /// No input has a usable rule.
        case nothingUsable(String)
        /// The layout failed (e.g. `--max-rules` too small).
        case layout(CompileError)

        public var description: String {
            switch self {
            case .nothingUsable(let details): return "no usable rules: \(details)"
            case .layout(let error): return error.description
            }
        }
    }

    /// Parses every input, all of them at once on every core (`FilterListParser.parseAll`).
    public static func parse(_ inputs: [ListInput]) -> [ParsedInput] {
        let outcomes = FilterListParser.parseAll(
            inputs.map { .init(data: $0.data, name: $0.name, format: $0.format, categories: $0.categories) })
        return zip(inputs, outcomes).map { input, outcome in ParsedInput(input: input, result: outcome.result, seconds: outcome.seconds) }
    }

    /// Compiles the usable parsed inputs into a content blocker (not yet written).
    public static func compile(_ parsed: [ParsedInput], allowlist: [String], maximumRules: Int) throws(Error) -> ContentBlockerOutput {
        let usable = parsed.compactMap { item -> (ListInput, ParsedFilterList)? in
            guard case .success(let list) = item.result, list.ruleCount > 0 else { return nil }
            return (item.input, list)
        }
        guard !usable.isEmpty else { throw .nothingUsable(describeSkips(parsed)) }
        let compiled = ContentRuleCompiler().compileEncoded(usable.map(\.1), allowlist: allowlist)
        let identities = usable.map { input, _ in
            ContentBlockerOutput.SourceIdentity(name: input.name, url: input.location, etag: input.etag, sha256: input.digest)
        }
        do {
            return try ContentBlockerOutput(encoded: compiled, sources: identities, allowlist: allowlist, maximumRules: maximumRules)
        } catch {
            throw .layout(error)
        }
    }

    /// Whether `home`'s output exists and was compiled from the lists stored now, with the
    /// allowlist in effect now: an entry added for a while (`--for`, "Proceed anyway") that has
    /// since lapsed, or one added by another program, makes it stale although no list changed;
    /// so does a change to "My rules", and a list copy stored by an update whose rebuild failed
    /// (a full disk): the next update rebuilds although no list changes again.
    public static func outputIsCurrent(home: PepperHome, database: PepperDatabase) -> Bool {
        guard let data = try? Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data),
            let allowlist = try? AllowlistStore(database: database).domains()
        else { return false }
        // An output of other inputs (`pepper compile SOURCE…` into the home) has no digest of
        // the state's lists to compare.
        if let compiled = manifest.inputs {
            guard let inputs = try? stateInputs(home: home, database: database), InputsIdentity(lists: inputs).digest == compiled else {
                return false
            }
        }
        let rules: ListInput?
        do {
            rules = try userRulesInput(database: database)
        } catch {
            return false
        }
        // "My rules" are not a downloaded list: a change to them alone makes the output stale.
        let compiledRules = manifest.sources.first { $0.name == UserRuleStore.listName }?.sha256
        return Set(manifest.allowlist) == Set(allowlist)
            && compiledRules == rules.map { ContentBlockerOutput.SourceIdentity.sha256Hex($0.data) }
    }

    /// The enabled sources of a home that have a stored copy, as inputs (in catalogue order).
    public static func storedInputs(home: PepperHome, database: PepperDatabase) throws -> [ListInput] {
        let policy = try PicketPolicyStore(database: database).policy()
        return try ListSourceStore(database: database).enabled().compactMap { source in storedInput(source, home: home, policy: policy) }
    }

    /// The person's own rules ("My rules") as an input, or `nil` when there are none.
    public static func userRulesInput(database: PepperDatabase) throws -> ListInput? {
        let text = try UserRuleStore(database: database).listText()
        guard !text.isEmpty else { return nil }
        return ListInput(name: UserRuleStore.listName, location: "state:" + UserRuleStore.listName, data: Data(text.utf8), format: .abp)
    }

    /// What the state compiles: its enabled lists that have a copy (or the embedded starter
    /// list when none has one yet), then "My rules".
    public static func stateInputs(home: PepperHome, database: PepperDatabase) throws -> [ListInput] {
        var inputs = try storedInputs(home: home, database: database)
        if inputs.isEmpty { inputs = [.starter] }
        if let rules = try userRulesInput(database: database) { inputs.append(rules) }
        return inputs
    }

    /// The downloaded copies of the lists named `names`, enabled or not, in that order.
    ///
    /// - Throws: ``UnknownListError`` for a name the state has no list of, or no copy of yet.
    public static func storedInputs(named names: [String], home: PepperHome, database: PepperDatabase) throws -> [ListInput] {
        let policy = try PicketPolicyStore(database: database).policy()
        let store = ListSourceStore(database: database)
        return try names.map { name in
            guard let source = try store.source(named: name) else { throw UnknownListError(name: name, downloaded: false) }
            guard let input = storedInput(source, home: home, policy: policy) else { throw UnknownListError(name: name, downloaded: true) }
            return input
        }
    }

    /// One list source's downloaded copy as an input (`nil` when there is no copy yet).
    static func storedInput(_ source: ListSource, home: PepperHome, policy: PicketPolicy) -> ListInput? {
        guard let (data, digest) = ListCopies.readWithDigest(source, home: home) else { return nil }
        if source.format == PicketListSource.format {
            // Rules from the employers' domains under the current policy (none under allow).
            return try? PicketListSource.input(for: source, payload: data, policy: policy)
        }
        return ListInput(
            name: source.name, location: source.location, etag: source.etag, data: data,
            format: FilterListFormat(rawValue: source.format),
            categories: source.categories, sha256: digest)
    }

    /// Rebuilds `home`'s output from its ``stateInputs(home:database:)`` and its allowlist, and
    /// records the per-source counts (best effort, once the output is published).
    ///
    /// Incremental (``CompileCache``): when the lists are those of the last build, their rules
    /// are read back already encoded and only laid out again with the allowlist; the saved
    /// filter engine is kept (the allowlist is applied when it is loaded). Otherwise everything
    /// is compiled, and the engine rebuilt.
    ///
    /// - Returns: The published output, whether it changed, and how reading each input went.
    public static func rebuild(
        home: PepperHome, database: PepperDatabase, maximumRules: Int = 150_000
    ) throws
        -> (output: ContentBlockerOutput, changed: Bool, inputs: [InputSummary])
    {
        let inputs = try stateInputs(home: home, database: database)
        let allowlist = try AllowlistStore(database: database).domains()
        let identities = inputs.map { input in
            ContentBlockerOutput.SourceIdentity(name: input.name, url: input.location, etag: input.etag, sha256: input.digest)
        }
        let key = InputsIdentity(lists: inputs, sha256: identities.map(\.sha256)).digest
        let previousInputs = (try? Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")))
            .flatMap { try? Manifest.decode($0) }?.inputs
        let engineIdentifier = "lists:" + key
        let entry: CompileCache.Entry
        // Work that goes on beside the compile on another thread: the filter engine of new lists,
        // the cache entry being written.
        let beside = DispatchGroup()
        if var cached = CompileCache.load(home: home, key: key) {
            for index in cached.inputs.indices { cached.inputs[index].reused = true }
            entry = cached
            // The engine follows the lists, not the allowlist: rebuilt only when missing or of other lists.
            if previousInputs != key || !FileManager.default.fileExists(atPath: EngineCache.url(home: home).path) {
                let lists = parse(inputs)
                DispatchQueue.global().async(group: beside) {
                    EngineCache.save(lists: lists, identifier: engineIdentifier, home: home)
                }
            }
        } else {
            let lists = parse(inputs)
            let usable = lists.compactMap { item -> ParsedFilterList? in
                guard case .success(let list) = item.result, list.ruleCount > 0 else { return nil }
                return list
            }
            guard !usable.isEmpty else { throw Error.nothingUsable(describeSkips(lists)) }
            // The engine is built from the same parsed lists while their rules are converted.
            DispatchQueue.global().async(group: beside) {
                EngineCache.save(lists: lists, identifier: engineIdentifier, home: home)
            }
            entry = CompileCache.Entry(rules: ContentRuleCompiler().compileEncoded(usable), inputs: lists.map(InputSummary.init))
            DispatchQueue.global().async(group: beside) {
                CompileCache.save(home: home, key: key, entry: entry)
            }
        }
        defer {
            // An engine staged for an output that was not published goes (after publishing,
            // there is none left).
            beside.wait()
            EngineCache.discardStaged(home: home)
        }
        // Only the inputs that gave rules are sources of the output, as in a full compile.
        let usableNames = Set(entry.rules.reports.map(\.name))
        var output: ContentBlockerOutput
        do {
            output = try ContentBlockerOutput(
                encoded: entry.rules.withAllowlist(allowlist), sources: identities.filter { usableNames.contains($0.name) },
                allowlist: allowlist, maximumRules: maximumRules, inputs: key)
        } catch {
            throw Error.layout(error)
        }
        // When this fails, the output in use stays the previous one, and so does its engine.
        let changed = try output.write(to: home.outputURL)
        beside.wait()
        EngineCache.publishStaged(home: home)
        // The output is published and in use from here on: a failure to note the counts (shown
        // by `lists`) must not report the rebuild as failed, nor keep browsers from being told to
        // load it. The manifest keeps the counts, and the next rebuild records them again.
        try? recordCounts(output.manifest, database: database)
        return (output, changed, entry.inputs)
    }

    /// Records each stored source's rule counts from a compiled manifest.
    public static func recordCounts(_ manifest: Manifest, database: PepperDatabase) throws {
        let store = ListSourceStore(database: database)
        // Only the counts: a whole-record write would put back settings read before a person changed them.
        for source in manifest.sources {
            try store.recordCounts(name: source.name, rulesIn: source.rulesIn, rulesOut: source.rulesOut)
        }
    }

    /// A one-line account of why lists gave nothing: the most frequent skip reasons or errors.
    public static func describeSkips(_ parsed: [ParsedInput]) -> String {
        var reasons: [SkipReason: Int] = [:]
        var errors: [String] = []
        var lines = 0
        for item in parsed {
            switch item.result {
            case .success(let list):
                lines += list.lineCount
                reasons.merge(list.skipped, uniquingKeysWith: +)
            case .failure(let error):
                errors.append(error.description)
            }
        }
        if !errors.isEmpty && reasons.isEmpty { return errors.joined(separator: "; ") }
        if reasons.isEmpty { return "\(lines) lines, all blank or comments" }
        let top = reasons.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(4)
        return "\(reasons.values.reduce(0, +)) lines skipped: " + top.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// A list asked for by name that the state cannot give.
public struct UnknownListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// Whether the list is known but has no downloaded copy yet.
    public var downloaded: Bool

    /// The error for the list `name`.
    public init(name: String, downloaded: Bool) {
        self.name = name
        self.downloaded = downloaded
    }

    public var description: String {
        downloaded
            ? "list '\(name)' has no downloaded copy yet"
            : "there is no list named '\(name)'"
    }
}
