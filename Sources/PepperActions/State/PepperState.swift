import BlockingWork
import ContentBlocker
import Foundation
import ListSync
import Storage

/// Pepper's state and every action a person can take on it, in one place.
///
/// The command line, the console and the app call these functions rather than stores and
/// builders directly, so an action behaves the same from every face: `pepper allowlist add`,
/// the console's Allowlist screen and the browser's shield all end in ``addAllowlist(_:for:rebuild:)``.
/// Each action that changes what is blocked ends in one rebuild of `$PEPPER_HOME/out` (and of
/// the filter engine beside it), and rebuilds are serialized (see ``rebuild()``).
///
/// `docs/architecture.md` shows where this sits; `docs/console.md` lists which screen calls
/// which action.
public final class PepperState: Sendable {
    /// What a state does besides its own work.
    public struct Configuration: Sendable {
        /// Most rules per output list (WebKit's limit is 150,000).
        public var maximumRules: Int
        /// Called after every rebuild, on the rebuild's thread: keeps things outside the home
        /// (such as GNOME Web's settings) pointing at the output.
        public var afterPublish: [@Sendable (PepperState, RebuildOutcome) -> Void]
        /// Where the Picket API key is kept; `nil`: the state's preferences (the iOS app passes
        /// its Keychain store).
        public var picketKeys: (any PicketKeyStore)?

        /// A configuration with the given settings.
        public init(
            maximumRules: Int = 150_000, afterPublish: [@Sendable (PepperState, RebuildOutcome) -> Void] = [],
            picketKeys: (any PicketKeyStore)? = nil
        ) {
            self.maximumRules = maximumRules
            self.afterPublish = afterPublish
            self.picketKeys = picketKeys
        }
    }

    /// The folder holding the state.
    public let home: PepperHome
    /// The state database.
    public let database: PepperDatabase
    /// The settings.
    public let configuration: Configuration
    let scheduler: RebuildScheduler

    /// Opens the state in `home`, creating it when needed.
    public init(home: PepperHome, configuration: Configuration = Configuration()) throws(ActionError) {
        self.home = home
        self.configuration = configuration
        do {
            // The database first: one a newer Pepper wrote is refused before the home is touched.
            database = try PepperDatabase(home: home)
            try home.prepare()
        } catch let error as PepperDatabaseError {
            // Its words name the file already.
            if case .newer = error { throw .storage(error.description) }
            throw .storage("cannot open Pepper's state in \(home.url.path): \(error)")
        } catch {
            throw .storage("cannot open Pepper's state in \(home.url.path): \(error)")
        }
        scheduler = RebuildScheduler()
    }

    /// Opens the state whose database is already open.
    public init(home: PepperHome, database: PepperDatabase, configuration: Configuration = Configuration()) {
        self.home = home
        self.database = database
        self.configuration = configuration
        scheduler = RebuildScheduler()
    }

    // MARK: Rebuilding

    /// Rebuilds `$PEPPER_HOME/out` and the filter engine from the state as it is when the
    /// rebuild starts.
    ///
    /// Rebuilds are serialized twice: within this process, callers that arrive while one runs
    /// share the next one (so ten quick changes cost at most two rebuilds); across processes,
    /// each rebuild holds `build.lock`, taken on a thread of its own (never one of Swift's
    /// cooperative threads, since `flock` blocks). A rebuild reads the state only once it holds
    /// the lock, so the last one to publish saw every change made before it: the newest state
    /// wins, whichever face made it.
    @discardableResult
    public func rebuild() async throws(ActionError) -> RebuildOutcome {
        let outcome = await scheduler.run { [self] () throws(ActionError) -> RebuildOutcome in try rebuildNow() }
        switch outcome {
        case .success(let result): return result
        case .failure(let error): throw error
        }
    }

    /// One rebuild, under the build lock; runs on the scheduler's thread.
    private func rebuildNow() throws(ActionError) -> RebuildOutcome {
        let lock: FileLock
        do {
            lock = try FileLock(path: home.url.appendingPathComponent("build.lock").path, wait: true)
        } catch {
            throw .storage("\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        let result: (output: ContentBlockerOutput, changed: Bool, inputs: [BlockerBuilder.InputSummary])
        do {
            result = try BlockerBuilder.rebuild(home: home, database: database, maximumRules: configuration.maximumRules)
        } catch {
            throw .rebuild("\(error)")
        }
        let outcome = RebuildOutcome(
            manifest: result.output.manifest, changed: result.changed, outputURL: home.outputURL,
            lists: result.inputs)
        for hook in configuration.afterPublish { hook(self, outcome) }
        return outcome
    }

    /// Runs `work` while holding the home's build lock (on a Dispatch thread): for writing
    /// `$PEPPER_HOME/out` from other inputs than the state's (`pepper compile SOURCE`), in turn
    /// with every rebuild.
    public func withBuildLock<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let path = home.url.appendingPathComponent("build.lock").path
        return try await LongBlockingWork.run { () throws -> T in
            let lock = try FileLock(path: path, wait: true)
            defer { withExtendedLifetime(lock) {} }
            return try work()
        }
    }

    /// Runs the synchronous part of an async action (GRDB's synchronous reads and writes, files)
    /// on ``BlockingWork/BlockingWorkPool/shared``: an action awaited by the console or the app
    /// then never holds one of Swift's cooperative threads while the database works.
    func onBlockingThreads<T: Sendable>(_ work: @escaping @Sendable () throws(ActionError) -> T) async throws(ActionError) -> T {
        try await BlockingWorkPool.shared.run(work)
    }
}

/// What a rebuild published.
public struct RebuildOutcome: Sendable, Hashable {
    /// The manifest of the output now in place.
    public var manifest: Manifest
    /// Whether the output changed (the manifest identifier is new).
    public var changed: Bool
    /// The output folder (`$PEPPER_HOME/out`).
    public var outputURL: URL
    /// How reading each input went.
    public var lists: [ParsedListSummary]

    /// An outcome with the given fields.
    public init(manifest: Manifest, changed: Bool, outputURL: URL, lists: [ParsedListSummary] = []) {
        self.manifest = manifest
        self.changed = changed
        self.outputURL = outputURL
        self.lists = lists
    }

    /// Rules in all output files.
    public var totalRules: Int { manifest.files.reduce(0) { $0 + $1.rules } }

    /// The output files (`blocker-1.json` …) as paths inside `$PEPPER_HOME/out`.
    public var fileURLs: [URL] { manifest.files.map { outputURL.appendingPathComponent($0.path) } }
}

/// How reading one list went, for reports (the rebuild's own summary: what it keeps with the
/// incremental compile's entry).
public typealias ParsedListSummary = BlockerBuilder.InputSummary
