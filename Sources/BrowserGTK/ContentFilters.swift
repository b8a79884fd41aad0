#if os(Linux)
import Browsing
import CWebKitGTK
import ContentBlocker
import Foundation

/// Puts the compiled content blocker of `$PEPPER_HOME/out` into a WebView's content manager.
///
/// WebKit compiles a rule list into its own bytecode, which takes seconds for large lists and
/// parses the JSON on the calling thread, so the lists are compiled by a helper process
/// (``FilterStoreCompiler``) into a `WebKitUserContentFilterStore` folder, and the window only
/// loads them: its thread never waits on WebKit's parser. A file per set names the output it
/// was compiled from; a launch whose output is the one compiled last only loads the stored
/// filters, a new output (after `pepper update`, an allowlist change) is compiled again.
///
/// Two sets are kept: the output's lists as they are (the allowlist in them: right on every
/// page), and the same lists without the allowlist ("base"), compiled once per set of lists.
/// While a new output compiles after the shield changed a site, the browser gives that site's
/// page no filters (blocking turned off) or the base filters (turned back on) at once, so the
/// page reloads as it should without waiting for WebKit.
///
/// Stored names carry their generation (`out-1a2b3c4d5e6f-blocker-1`): a compile never writes
/// over filters this process has mapped, and older generations are removed once replaced.
///
/// It never fails open (``RuleListSelection`` decides): a new output is compiled completely
/// before it replaces the installed filters, and when WebKit refuses one of its lists the
/// installed filters stay — or, at a launch, the last good set is loaded from the store (named
/// in `pepper-installed.json`, written only after a set compiled) — and the failure says which
/// file and rule broke it.
@MainActor
final class ContentFilters {
    /// What ``prepare(completion:)`` did.
    struct Outcome {
        /// The manifest identifier of the filters now installed.
        var identifier: String
        /// The number of rule lists.
        var lists: Int
        /// The total number of rules.
        var rules: Int
        /// Whether WebKit compiled them (`false`: loaded from the store).
        var compiled: Bool
        /// Why the newest output is not the one installed (WebKit refused it), if it is not.
        var failure: RuleListFailure?
    }

    /// Which filters a page gets.
    enum Selection: Equatable {
        /// The output's lists with its allowlist: right on every page.
        case installed
        /// The lists without the allowlist: right on a page whose site was just turned back on.
        case base
        /// None: right on a page whose site was just allowlisted.
        case none
    }

    /// The two kinds of stored sets.
    private enum Kind: String {
        case output = "out"
        case base = "base"

        /// The file naming the key of the last set of this kind compiled completely.
        var keyFile: String { self == .output ? "pepper-identifier" : "pepper-base-identifier" }
    }

    /// One set of compiled filters and what it was compiled from.
    private struct FilterSet {
        var key: String
        var filters: [OpaquePointer]
    }

    private let outputDirectory: URL
    private let storeDirectory: URL
    // Kept for the life of the process (one window, one store), so never released.
    private let store: UnsafeMutablePointer<WebKitUserContentFilterStore>
    /// The output's filters.
    private var installed: FilterSet?
    /// The lists without the allowlist, once compiled or loaded.
    private var base: FilterSet?
    /// Whether the base filters are being prepared.
    private(set) var isPreparingBase = false
    /// The key of the base filters the installed output needs (`nil`: it has none).
    private var wantedBaseKey: String?
    /// The newest output whose base was asked for while another was being prepared.
    private var nextBase: (manifest: Manifest, generation: URL)?
    /// The filters now in the content manager.
    private(set) var attached: Selection?
    /// The output's filters as the never-fail-open decision sees them: the last good set, the
    /// last failure, whether protected pages may load.
    private(set) var selection: RuleListSelection
    /// Where the last good set is named.
    private var installedRecord: URL { storeDirectory.appendingPathComponent("pepper-installed.json") }

    /// Filters from `outputDirectory` (`$PEPPER_HOME/out`), compiled into `storeDirectory`.
    init(outputDirectory: URL, storeDirectory: URL) {
        self.outputDirectory = outputDirectory
        self.storeDirectory = storeDirectory
        try? FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        store = webkit_user_content_filter_store_new(storeDirectory.path)
        selection = RuleListSelection(saved: RuleListSelection.load(from: storeDirectory.appendingPathComponent("pepper-installed.json")))
    }

    /// Whether the base filters (the lists without the allowlist) of the installed output are ready.
    var hasBase: Bool { base != nil && base?.key == wantedBaseKey }

    /// Loads the current output into the installed filters, compiled first when it is not the
    /// last good set, without putting it into a content manager (``attach(_:to:)`` does); then,
    /// in the background, makes the base filters ready. When WebKit refuses the output (or it
    /// cannot be read), the installed filters stay, or the last good set is loaded: the outcome
    /// then carries the failure. A failure means no filters at all can be installed.
    func prepare(completion: @escaping @MainActor (Result<Outcome, RuleListFailure>) -> Void) {
        // Read through the `out` link once: a concurrent rebuild switches it atomically, and
        // the manifest and the lists must come from the same generation.
        let generation = outputDirectory.resolvingSymlinksInPath()
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(Data(contentsOf: generation.appendingPathComponent("manifest.json")))
        } catch {
            let failure = RuleListFailure(
                identifier: "", file: "manifest.json", lists: [],
                reason: "no compiled content blocker in \(outputDirectory.path) (\(error))")
            return fellBack(from: failure, completion: completion)
        }
        let rules = manifest.files.reduce(0) { $0 + $1.rules }
        let prefix = prefix(.output, key: manifest.identifier)
        let names = manifest.files.map { prefix + ($0.path as NSString).deletingPathExtension }
        let ready: @MainActor (FilterSet, Bool) -> Void = { [self] set, compiled in
            installed.map(release)
            installed = set
            // The manager holds the previous set: the next attach puts this one in.
            if attached == .installed { attached = nil }
            let saved = selection.compiled(RuleListSelection.RuleSet(identifier: manifest.identifier, names: names, rules: rules))
            do {
                try RuleListSelection.save(saved, to: installedRecord)
            } catch {
                FileHandle.standardError.write(Data("pepper: warning: cannot record the installed filters: \(error)\n".utf8))
            }
            if compiled { removeFilters(of: .output, except: prefix) }
            completion(.success(Outcome(identifier: manifest.identifier, lists: set.filters.count, rules: rules, compiled: compiled)))
            prepareBase(manifest, generation: generation)
        }
        let compile: @MainActor () -> Void = { [self] in
            let job = FilterStoreCompiler.Job(store: storeDirectory, generation: generation, prefix: prefix, withoutAllowlist: false)
            runHelper(job, manifest: manifest) { [self] failure in
                if let failure { return fellBack(from: failure, completion: completion) }
                load(names: names, done: []) { [self] filters in
                    guard let filters else {
                        let failure = RuleListFailure(
                            identifier: manifest.identifier, file: manifest.files.first?.path ?? "", lists: manifest.sources.map(\.name),
                            reason: "WebKit cannot load the filters it just compiled in \(storeDirectory.path)")
                        return fellBack(from: failure, completion: completion)
                    }
                    ready(FilterSet(key: manifest.identifier, filters: filters), true)
                }
            }
        }
        // The output installed last, or the one a store from before `pepper-installed.json`
        // named: load it; anything else is compiled.
        let legacyKey = try? String(contentsOf: storeDirectory.appendingPathComponent(Kind.output.keyFile), encoding: .utf8)
        guard selection.lastGood?.identifier == manifest.identifier || (selection.lastGood == nil && legacyKey == manifest.identifier)
        else { return compile() }
        load(names: names, done: []) { filters in
            // A store folder damaged or emptied behind our back: compile again.
            if let filters { ready(FilterSet(key: manifest.identifier, filters: filters), false) } else { compile() }
        }
    }

    /// After `failure`, the filters the never-fail-open decision leaves: the installed ones, or
    /// the last good set loaded from the store, or none (the completion's failure).
    private func fellBack(from failure: RuleListFailure, completion: @escaping @MainActor (Result<Outcome, RuleListFailure>) -> Void) {
        switch selection.compileFailed(failure) {
        case .keep(let set):
            completion(
                .success(Outcome(identifier: set.identifier, lists: set.names.count, rules: set.rules, compiled: false, failure: failure)))
        case .loadLastGood(let set):
            load(names: set.names, done: []) { [self] filters in
                guard let filters else {
                    selection.fallbackFailed("the store \(storeDirectory.path) no longer has them")
                    if case .refuse(let refusal) = selection.mayLoad(blocking: true) { return completion(.failure(refusal)) }
                    return completion(.failure(failure))
                }
                installed.map(release)
                installed = FilterSet(key: set.identifier, filters: filters)
                if attached == .installed { attached = nil }
                selection.fallbackLoaded()
                completion(
                    .success(Outcome(identifier: set.identifier, lists: filters.count, rules: set.rules, compiled: false, failure: failure))
                )
            }
        case .refuse:
            completion(.failure(failure))
        }
    }

    /// Puts `selection` into `manager` (nothing to do when it is there already).
    ///
    /// - Returns: `false` when `selection` is ``Selection/base`` and the base filters are not
    ///   ready (the manager is left as it was).
    @discardableResult
    func attach(_ selection: Selection, to manager: UnsafeMutablePointer<WebKitUserContentManager>) -> Bool {
        guard selection != attached else { return true }
        let filters: [OpaquePointer]
        switch selection {
        case .installed: filters = installed?.filters ?? []
        case .base:
            guard let base, hasBase else { return false }
            filters = base.filters
        case .none: filters = []
        }
        webkit_user_content_manager_remove_all_filters(manager)
        for filter in filters { webkit_user_content_manager_add_filter(manager, filter) }
        attached = selection
        return true
    }

    /// Puts the selection in force into a new web view's `manager` (first-party isolation
    /// replaces the view); nothing when no selection was attached yet (the first rules attach it).
    func attachAgain(to manager: UnsafeMutablePointer<WebKitUserContentManager>) {
        guard let current = attached else { return }
        attached = nil
        attach(current, to: manager)
    }

    private func release(_ set: FilterSet) {
        // The content manager keeps its own reference to filters it holds.
        set.filters.forEach { webkit_user_content_filter_unref($0) }
    }

    /// Makes the base filters of `manifest`'s lists ready: the installed filters themselves when
    /// the output has no allowlist, else loaded when compiled before for the same lists, else
    /// compiled (seconds, in the background; an output installed meanwhile is seen to next).
    private func prepareBase(_ manifest: Manifest, generation: URL) {
        wantedBaseKey = Self.baseKey(of: manifest)
        guard let key = wantedBaseKey, base?.key != key else { return }
        if manifest.allowlist.isEmpty, let installed {
            // Without an allowlist the lists are the installed filters: no second compile.
            installed.filters.forEach { webkit_user_content_filter_ref($0) }
            base.map(release)
            base = FilterSet(key: key, filters: installed.filters)
            return
        }
        guard !isPreparingBase else {
            nextBase = (manifest, generation)
            return
        }
        isPreparingBase = true
        ready(.base, key: key, manifest: manifest, generation: generation) { [self] result in
            isPreparingBase = false
            if case .success(let (set, _)) = result {
                base.map(release)
                base = set
            }
            if let next = nextBase {
                nextBase = nil
                prepareBase(next.manifest, generation: next.generation)
            }
        }
    }

    /// What the base filters of `manifest` are compiled from: its lists (the digest of its
    /// inputs) and their rule counts without the allowlist, which changes only when the lists
    /// do; `nil` for an output compiled from other inputs than the state's (no digest).
    static func baseKey(of manifest: Manifest) -> String? {
        guard let inputs = manifest.inputs else { return nil }
        // Every list ends with the one allowlist rule when the allowlist has entries.
        let allowlistRules = manifest.allowlist.isEmpty ? 0 : 1
        return "\(inputs)|" + manifest.files.map { "\($0.rules - allowlistRules)" }.joined(separator: ",")
    }

    /// The stored names' prefix for the set `kind` compiled from `key`.
    private func prefix(_ kind: Kind, key: String) -> String {
        // FNV-1a: a name, not a security boundary (the key file holds the whole key).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\(kind.rawValue)-\(String(hash, radix: 16))-"
    }

    /// The filter set `kind` of `manifest`: loaded when `key` is what it was compiled from last,
    /// else compiled by the helper, then loaded.
    private func ready(
        _ kind: Kind, key: String, manifest: Manifest, generation: URL,
        completion: @escaping @MainActor (Result<(FilterSet, Bool), GLibError>) -> Void
    ) {
        let keyFile = storeDirectory.appendingPathComponent(kind.keyFile)
        let prefix = prefix(kind, key: key)
        let names = manifest.files.map { prefix + ($0.path as NSString).deletingPathExtension }
        let compileAll: @MainActor () -> Void = { [self] in
            try? FileManager.default.removeItem(at: keyFile)
            let job = FilterStoreCompiler.Job(
                store: storeDirectory, generation: generation, prefix: prefix, withoutAllowlist: kind == .base)
            runHelper(job, manifest: manifest) { [self] failure in
                if let failure { return completion(.failure(GLibError(failure.description))) }
                load(names: names, done: []) { [self] filters in
                    guard let filters else {
                        return completion(.failure(GLibError("WebKit cannot load the filters it just compiled in \(storeDirectory.path)")))
                    }
                    try? Data(key.utf8).write(to: keyFile, options: .atomic)
                    removeFilters(of: kind, except: prefix)
                    completion(.success((FilterSet(key: key, filters: filters), true)))
                }
            }
        }
        guard (try? String(contentsOf: keyFile, encoding: .utf8)) == key else {
            compileAll()
            return
        }
        load(names: names, done: []) { filters in
            // A store folder damaged or emptied behind our back: compile again.
            if let filters { completion(.success((FilterSet(key: key, filters: filters), false))) } else { compileAll() }
        }
    }

    /// Runs `pepper-browser --compile-filters` for `job`; `nil` when it compiled every list,
    /// else what WebKit refused (the helper's JSON line) or why the helper failed.
    private func runHelper(_ job: FilterStoreCompiler.Job, manifest: Manifest, completion: @escaping @MainActor (RuleListFailure?) -> Void)
    {
        let (identifier, file, lists) = (manifest.identifier, manifest.files.first?.path ?? "", manifest.sources.map(\.name))
        let unknown: @Sendable (String) -> RuleListFailure = { reason in
            RuleListFailure(identifier: identifier, file: file, lists: lists, reason: reason)
        }
        guard let program = Bundle.main.executableURL else { return completion(unknown("cannot find the pepper-browser program")) }
        let process = Process()
        process.executableURL = program
        process.arguments = job.arguments
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        process.terminationHandler = { process in
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let refused = try? JSONDecoder().decode(RuleListFailure.self, from: output.fileHandleForReading.readDataToEndOfFile())
            let status = process.terminationStatus
            MainLoop.perform {
                guard status != 0 else { return completion(nil) }
                completion(refused ?? unknown(said.isEmpty ? "the filter compiler exited with status \(status)" : said))
            }
        }
        do {
            try process.run()
        } catch {
            completion(unknown("cannot start the filter compiler \(program.path): \(error)"))
        }
    }

    /// Removes the stored filters of `kind` other than the generation `prefix` (and names of
    /// stores written before sets carried their generation).
    private func removeFilters(of kind: Kind, except prefix: String) {
        let (callback, userData) = AsyncCall.callback { [self] _, result in
            guard let identifiers = webkit_user_content_filter_store_fetch_identifiers_finish(store, result) else { return }
            defer { g_strfreev(identifiers) }
            var index = 0
            while let identifier = identifiers[index] {
                index += 1
                let name = String(cString: identifier)
                let legacy = !name.hasPrefix(Kind.output.rawValue + "-") && !name.hasPrefix(Kind.base.rawValue + "-")
                guard legacy || (name.hasPrefix(kind.rawValue + "-") && !name.hasPrefix(prefix)) else { continue }
                let (removed, removedData) = AsyncCall.callback { [self] _, result in
                    _ = webkit_user_content_filter_store_remove_finish(store, result, nil)
                }
                webkit_user_content_filter_store_remove(store, name, nil, removed, removedData)
            }
        }
        webkit_user_content_filter_store_fetch_identifiers(store, nil, callback, userData)
    }

    private func load(names: [String], done: [OpaquePointer], completion: @escaping @MainActor ([OpaquePointer]?) -> Void) {
        guard let name = names.first else {
            completion(done)
            return
        }
        let (callback, userData) = AsyncCall.callback { [self] _, result in
            var error: UnsafeMutablePointer<GError>?
            let filter = webkit_user_content_filter_store_load_finish(store, result, &error)
            guard GLibError.take(error) == nil, let filter else {
                done.forEach { webkit_user_content_filter_unref($0) }
                completion(nil)
                return
            }
            load(names: Array(names.dropFirst()), done: done + [filter], completion: completion)
        }
        webkit_user_content_filter_store_load(store, name, nil, callback, userData)
    }
}
#endif
