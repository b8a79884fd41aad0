import Crypto
import FilterEngine
import FilterLists
import Foundation
import ListSync
import Storage

/// Builds the filter engines of a DNS filter: the default one from the state (its enabled
/// lists, "My rules" and allowlist) plus extra lists, and one per client group. Engines built
/// from other inputs than the state's are cached in `$PEPPER_HOME/dns-engine*.bin` under a
/// digest of their inputs, so a restart with the same lists parses nothing.
public struct DNSEngines: Sendable {
    /// The state.
    public let state: PepperState
    /// Lists given besides the state's (command-line SOURCE arguments).
    public let sources: [ListInput]
    /// Told about lists that cannot be parsed (they are left out).
    public let warn: @Sendable (String) -> Void

    /// Engines for `state` plus `sources`.
    public init(state: PepperState, sources: [ListInput] = [], warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.state = state
        self.sources = sources
        self.warn = warn
    }

    /// The default engine: the state's saved engine when no extra list is given (no list is
    /// parsed), else the state's lists plus ``sources``. `rereadSources` reads SOURCE files again
    /// (a reload after editing them).
    public func engine(rereadSources: Bool = false) throws(ActionError) -> FilterEngine {
        if sources.isEmpty { return try state.engine() }
        return try build(defaultInputs(rereadSources: rereadSources), extraAllowlist: [], cacheName: "dns-engine.bin")
    }

    /// The engine of a client group: its own lists (or the default ones when it names none) and
    /// the state's allowlist plus its own. `loaded`: the group lists that are paths or URLs, read
    /// by ``loadGroupSources(_:loaded:)``.
    public func engine(
        for group: DNSClientGroupSpec, loaded: [String: ListInput], rereadSources: Bool = false
    ) throws(ActionError)
        -> FilterEngine
    {
        if group.sharesDefaultEngine { return try engine(rereadSources: rereadSources) }
        guard let lists = group.lists else {
            // As for the default engine: a state with no downloaded list yet uses the starter list.
            return try build(
                defaultInputs(rereadSources: rereadSources, starterWhenEmpty: true), extraAllowlist: group.allowlist,
                cacheName: cacheName(group))
        }
        var inputs: [ListInput] = []
        for entry in lists {
            if DNSClientGroupSpec.isSource(entry) {
                guard let input = loaded[entry] else {
                    throw .invalidSource(source: entry, problem: .groupListNotLoaded(group: group.name))
                }
                inputs.append(rereadSources ? try Self.reread(input) : input)
            } else {
                do {
                    inputs += try BlockerBuilder.storedInputs(named: [entry], home: state.home, database: state.database)
                } catch let unknown as UnknownListError {
                    throw .groupListUnavailable(group: group.name, list: unknown)
                } catch {
                    throw .invalidSource(source: entry, problem: .groupListUnreadable(group: group.name, reason: "\(error)"))
                }
            }
        }
        return try build(inputs, extraAllowlist: group.allowlist, cacheName: cacheName(group))
    }

    private func cacheName(_ group: DNSClientGroupSpec) -> String { "dns-engine-\(group.name).bin" }

    /// Reads the paths and URLs among the groups' lists. Those already in `loaded` are kept as
    /// they are: URLs are not downloaded again, and files are read again by the build
    /// (`rereadSources`), not here too.
    public static func loadGroupSources(
        _ groups: [DNSClientGroupSpec], loaded: [String: ListInput] = [:]
    ) async throws(ActionError)
        -> [String: ListInput]
    {
        var result: [String: ListInput] = [:]
        for entry in groups.flatMap({ $0.lists ?? [] }) where DNSClientGroupSpec.isSource(entry) && result[entry] == nil {
            if let known = loaded[entry] {
                result[entry] = known
            } else {
                result[entry] = try await ListInputLoader.load(entry, format: nil)
            }
        }
        return result
    }

    /// The state's enabled lists and "My rules" plus the SOURCE lists; with `starterWhenEmpty`,
    /// the starter list when neither the state nor the command line has a list.
    private func defaultInputs(rereadSources: Bool, starterWhenEmpty: Bool = false) throws(ActionError) -> [ListInput] {
        let stored: [ListInput]
        let rules: ListInput?
        do {
            stored = try BlockerBuilder.storedInputs(home: state.home, database: state.database)
            rules = try BlockerBuilder.userRulesInput(database: state.database)
        } catch {
            throw .storage("cannot read the lists: \(error)")
        }
        var extra = sources
        if rereadSources {
            extra = []
            for source in sources { extra.append(try Self.reread(source)) }
        }
        let lists = stored + extra
        return (lists.isEmpty && starterWhenEmpty ? [.starter] : lists) + (rules.map { [$0] } ?? [])
    }

    /// Parses `inputs` into an engine with the state's allowlist plus `extraAllowlist`, or takes
    /// the engine cached in `cacheName` when it was built from the same inputs.
    private func build(_ inputs: [ListInput], extraAllowlist: [String], cacheName: String) throws(ActionError) -> FilterEngine {
        let allowlist: [String]
        do {
            allowlist = try AllowlistStore(database: state.database).domains() + extraAllowlist
        } catch {
            throw .storage("cannot read the allowlist: \(error)")
        }
        let identifier = "dns:" + InputsIdentity(lists: inputs, allowlist: allowlist).digest
        let cacheURL = state.home.url.appendingPathComponent(cacheName)
        if let cached = try? FilterEngine(contentsOf: cacheURL), cached.identifier == identifier { return cached }
        let parsed = BlockerBuilder.parse(inputs)
        for item in parsed { if case .failure(let error) = item.result { warn("\(error)") } }
        let engine = FilterEngine(lists: parsed.compactMap { try? $0.result.get() }, allowlist: allowlist, identifier: identifier)
        try? engine.write(to: cacheURL)
        return engine
    }

    /// A SOURCE file read again (a reload after editing it); URLs keep the copy downloaded at
    /// start. A file that cannot be read fails the reload (the running engine stays).
    public static func reread(_ input: ListInput) throws(ActionError) -> ListInput {
        guard !isURL(input) else { return input }
        var copy = input
        do {
            copy.data = try Data(contentsOf: URL(fileURLWithPath: input.location))
        } catch {
            throw .invalidSource(source: input.location, problem: .unreadable(error.localizedDescription))
        }
        return copy
    }

    static func isURL(_ input: ListInput) -> Bool { ListSource.isWeb(input.location) }

    /// These engines without the bytes of SOURCE files (URLs keep theirs): later builds read the
    /// files again.
    public func droppingFileData() -> DNSEngines {
        DNSEngines(state: state, sources: sources.map(Self.droppingFileData), warn: warn)
    }

    /// `input` without its bytes when it is a file (read again at the next build); URLs keep theirs.
    public static func droppingFileData(_ input: ListInput) -> ListInput {
        guard !isURL(input) else { return input }
        var copy = input
        copy.data = Data()
        return copy
    }

    /// Changes whenever a rebuild rewrote the state's engine or output, or `groupsFile` changed.
    public func stateStamp(groupsFile: String? = nil) -> String {
        let home = state.home
        let files =
            [EngineCache.url(home: home), home.outputURL.appendingPathComponent("manifest.json")]
            + (groupsFile.map { [URL(fileURLWithPath: $0)] } ?? [])
        return files.map { url in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(modified):\(attributes?[.size] as? Int ?? -1)"
        }.joined(separator: "|")
    }
}
