import CallFilter
import Foundation
import Storage

/// The version of the lists the call directory last loaded, kept in the shared container so
/// the next load can send only the changes since (`CXCallDirectoryExtensionContext.isIncremental`).
public struct CallDirectoryCheckpoint: Sendable {
    private struct Record: Codable {
        var version: Int64
        var loadedAt: Date
    }

    /// Where it is kept.
    public let url: URL

    /// The checkpoint stored at `url`.
    public init(url: URL) {
        self.url = url
    }

    /// The version last loaded, or `nil` when none is known (never loaded, or forgotten).
    public func version() -> Int64? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONDecoder().decode(Record.self, from: data))?.version
    }

    /// Records that `version` was loaded.
    public func save(_ version: Int64, at date: Date = Date()) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(Record(version: version, loadedAt: date)).write(to: url, options: .atomic)
    }

    /// Forgets the version: the next load is a full one.
    public func clear() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// What the call-directory extension does when the system asks for entries: open the shared
/// lists read-only, load them into the context — only the changes since the checkpoint when
/// the system kept the last load — and move the checkpoint only once the load completed and the
/// system did not refuse it.
///
/// The checkpoint is cleared before loading, so a load that fails, or a process killed half-way,
/// leaves none: the next load is a full one, never changes applied to an unknown base. One
/// instance per request: the system may report a refusal (``systemRejectedLoad()``) while the
/// load completes or after, and either way no checkpoint stays.
public final class CallDirectoryLoad: @unchecked Sendable {
    /// The shared container.
    public let container: AppGroupContainer
    /// The most entries per list (the system's limit depends on the device; `nil`: no cap).
    public let maximumEntries: Int?
    /// Entries per chunk.
    public let chunkSize: Int
    private let lock = NSLock()
    private var refused = false

    /// A load from `container`.
    public init(container: AppGroupContainer, maximumEntries: Int? = nil, chunkSize: Int = 10_000) {
        self.container = container
        self.maximumEntries = maximumEntries
        self.chunkSize = chunkSize
    }

    /// The checkpoint in the container.
    public var checkpoint: CallDirectoryCheckpoint { CallDirectoryCheckpoint(url: container.callDirectoryCheckpointURL) }

    /// The scope an iOS extension runs each chunk in: an autorelease pool where Objective-C
    /// exists (the labels CallKit receives are bridged objects), nothing elsewhere.
    public static func releasingChunk(_ chunk: () throws -> Void) throws {
        #if canImport(ObjectiveC)
        try autoreleasepool(invoking: chunk)
        #else
        try chunk()
        #endif
    }

    /// Loads the lists into `context` and completes or cancels it (exactly once).
    ///
    /// - Returns: What was loaded, or why the request was cancelled.
    @discardableResult
    public func run(into context: some CallDirectoryContext) -> Result<CallDirectoryHandler<CallListStore>.Outcome, CallDirectoryLoadError>
    {
        let checkpoint = self.checkpoint
        let lastLoaded = checkpoint.version()
        checkpoint.clear()
        let store: CallListStore
        do {
            store = CallListStore(database: try PepperDatabase(readingOnly: container.databaseURL))
        } catch {
            let failure = CallDirectoryLoadError.noLists("\(error)")
            context.cancelRequest(withError: failure)
            return .failure(failure)
        }
        var handler = CallDirectoryHandler(source: store, maximumEntries: maximumEntries)
        handler.chunkSize = chunkSize
        handler.chunkScope = Self.releasingChunk
        let outcome: CallDirectoryHandler<CallListStore>.Outcome
        do {
            outcome = try handler.beginRequest(with: context, lastLoadedVersion: lastLoaded)
        } catch {
            return .failure(.rejected("\(error)"))
        }
        lock.withLock {
            // Without a checkpoint the next load is simply a full one, so a failed save is harmless.
            if !refused { try? checkpoint.save(outcome.version) }
        }
        return .success(outcome)
    }

    /// The system refused the entries it was given (its delegate's `requestFailed`): the next
    /// load must be a full one.
    public func systemRejectedLoad() {
        lock.withLock {
            refused = true
            checkpoint.clear()
        }
    }
}

/// Why the call directory was not loaded.
public enum CallDirectoryLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The shared database cannot be read.
    case noLists(String)
    /// The stored lists break CallKit's rules, or reading them failed half-way.
    case rejected(String)

    public var description: String {
        switch self {
        case .noLists(let reason): return "cannot read the call lists: \(reason)"
        case .rejected(let reason): return "the call lists cannot be loaded: \(reason)"
        }
    }
}
