/// The calls a call-directory extension makes on CallKit's `CXCallDirectoryExtensionContext`,
/// as a protocol: the iOS extension passes its real context (a one-line conformance), tests pass
/// a strict fake, and `pepper calls export` passes a writer.
///
/// CallKit's rules: additions come in strictly ascending order per list, with no duplicates;
/// removals (and removing everything) are allowed only when ``isIncremental`` is true; the
/// request ends with exactly one of ``completeRequest()`` or ``cancelRequest(withError:)``.
public protocol CallDirectoryContext: AnyObject {
    /// Whether the system kept the previous load, so changes may be sent instead of everything.
    var isIncremental: Bool { get }
    /// Adds the next blocking entry (greater than the previous one).
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64)
    /// Removes one blocking entry (incremental loads only).
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64)
    /// Removes every blocking entry (incremental loads only).
    func removeAllBlockingEntries()
    /// Adds the next identification entry (greater than the previous one).
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String)
    /// Removes one identification entry (incremental loads only).
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64)
    /// Removes every identification entry (incremental loads only).
    func removeAllIdentificationEntries()
    /// Ends the request successfully.
    func completeRequest()
    /// Ends the request with an error; the system keeps the previous entries.
    func cancelRequest(withError error: any Error)
}

/// One consistent view of the stored lists (a database read transaction), so a load never mixes
/// an old list with a new one even while another process writes.
public protocol CallDirectorySnapshot {
    /// The lists' version: it grows with every committed change.
    var version: Int64 { get }
    /// The oldest version the changes are known since (older change history was compacted): a
    /// load from an older version must be a full one.
    var oldestIncrementalVersion: Int64 { get }
    /// Calls `body` with a cursor over the entries of `kind`, ascending.
    func withEntries<T>(_ kind: CallDirectoryEntryKind, _ body: (inout any CallDirectoryEntryCursor) throws -> T) throws -> T
    /// Calls `body` with cursors over what changed in `kind` since `version`: numbers removed
    /// (ascending) and entries added (ascending). A changed label counts as a removal and an addition.
    ///
    /// - Throws: ``CallDirectoryError/unknownVersion(_:)`` when the changes since `version` are not known.
    func withChanges<T>(
        _ kind: CallDirectoryEntryKind, since version: Int64,
        _ body: (_ removals: inout any CallDirectoryEntryCursor, _ additions: inout any CallDirectoryEntryCursor) throws -> T
    ) throws -> T
}

extension CallDirectorySnapshot {
    /// Every change is known (no history was compacted).
    public var oldestIncrementalVersion: Int64 { 0 }
}

/// Where the lists are stored.
public protocol CallDirectorySource {
    /// Runs `body` on one consistent snapshot of the lists.
    func withSnapshot<T>(_ body: (any CallDirectorySnapshot) throws -> T) throws -> T
}

/// The logic of a call-directory extension: loads the stored lists into a
/// ``CallDirectoryContext``, in full or as the changes since the last load, checking CallKit's
/// rules before CallKit does (so a bad list fails with a named error, not a silent system refusal).
public struct CallDirectoryHandler<Source: CallDirectorySource> {
    /// What a load did.
    public struct Outcome: Sendable, Hashable {
        /// The version loaded: store it and pass it as `lastLoadedVersion` next time.
        public var version: Int64
        /// Whether only changes were sent.
        public var incremental: Bool
        /// Entries added, per list.
        public var added: [CallDirectoryEntryKind: Int]
        /// Entries removed, per list.
        public var removed: [CallDirectoryEntryKind: Int]
        /// Duplicates dropped on the way.
        public var duplicatesRemoved: Int
    }

    private let source: Source
    private let maximumEntries: Int?
    /// Entries passed to the context per chunk.
    public var chunkSize = 10_000
    /// The scope each chunk runs in (an autorelease pool in an iOS extension); by default none.
    public var chunkScope: CallDirectoryChunkScope = { chunk in try chunk() }

    /// A handler over `source`; `maximumEntries` caps each list (nil: no cap).
    public init(source: Source, maximumEntries: Int? = nil) {
        self.source = source
        self.maximumEntries = maximumEntries
    }

    /// Loads the lists into `context` and completes (or cancels) the request.
    ///
    /// - Parameters:
    ///   - context: CallKit's context (or a fake, or an exporter) to load into.
    ///   - lastLoadedVersion: The version of the last successful load, if the extension
    ///     stored one; an incremental context then gets only the changes since.
    /// - Returns: What was loaded; on failure the request is cancelled with the same error.
    @discardableResult
    public func beginRequest(with context: some CallDirectoryContext, lastLoadedVersion: Int64?) throws -> Outcome {
        do {
            let outcome = try source.withSnapshot { snapshot in
                try load(snapshot, into: context, lastLoadedVersion: lastLoadedVersion)
            }
            context.completeRequest()
            return outcome
        } catch {
            context.cancelRequest(withError: error)
            throw error
        }
    }

    private func load(
        _ snapshot: any CallDirectorySnapshot, into context: some CallDirectoryContext, lastLoadedVersion: Int64?
    ) throws
        -> Outcome
    {
        var outcome = Outcome(version: snapshot.version, incremental: false, added: [:], removed: [:], duplicatesRemoved: 0)
        if context.isIncremental, let lastLoadedVersion, lastLoadedVersion <= snapshot.version,
            lastLoadedVersion >= snapshot.oldestIncrementalVersion
        {
            outcome.incremental = true
            for kind in CallDirectoryEntryKind.allCases {
                try snapshot.withChanges(kind, since: lastLoadedVersion) { removals, additions in
                    var removed = CallDirectoryEntries(erasing: removals, maximumCount: nil)
                    outcome.removed[kind] = try removed.forEach(chunksOf: chunkSize, in: chunkScope) { entry in
                        switch kind {
                        case .blocking: context.removeBlockingEntry(withPhoneNumber: entry.number)
                        case .identification: context.removeIdentificationEntry(withPhoneNumber: entry.number)
                        }
                    }
                    var added = CallDirectoryEntries(erasing: additions, maximumCount: maximumEntries)
                    outcome.added[kind] = try added.forEach(chunksOf: chunkSize, in: chunkScope) { entry in add(entry, kind, to: context) }
                    outcome.duplicatesRemoved += removed.duplicatesRemoved + added.duplicatesRemoved
                }
            }
            return outcome
        }
        if context.isIncremental {
            // Incremental context but no usable checkpoint (none, from the future, or older than the
            // kept history): start the lists over.
            context.removeAllBlockingEntries()
            context.removeAllIdentificationEntries()
        }
        for kind in CallDirectoryEntryKind.allCases {
            try snapshot.withEntries(kind) { cursor in
                var entries = CallDirectoryEntries(erasing: cursor, maximumCount: maximumEntries)
                outcome.added[kind] = try entries.forEach(chunksOf: chunkSize, in: chunkScope) { entry in add(entry, kind, to: context) }
                outcome.duplicatesRemoved += entries.duplicatesRemoved
            }
        }
        return outcome
    }

    private func add(_ entry: CallDirectoryEntry, _ kind: CallDirectoryEntryKind, to context: some CallDirectoryContext) {
        switch kind {
        case .blocking: context.addBlockingEntry(withNextSequentialPhoneNumber: entry.number)
        case .identification: context.addIdentificationEntry(withNextSequentialPhoneNumber: entry.number, label: entry.label ?? "")
        }
    }
}

/// `any CallDirectoryEntryCursor` used where a concrete cursor type is needed.
extension CallDirectoryEntries where Base == AnyEntryCursor {
    /// Checks the entries of an existential cursor.
    public init(erasing base: any CallDirectoryEntryCursor, maximumCount: Int? = nil, duplicates: DuplicatePolicy = .remove) {
        self.init(AnyEntryCursor(base), maximumCount: maximumCount, duplicates: duplicates)
    }
}

/// A type-erased cursor.
public struct AnyEntryCursor: CallDirectoryEntryCursor {
    private var base: any CallDirectoryEntryCursor

    /// Wraps `base`.
    public init(_ base: any CallDirectoryEntryCursor) {
        self.base = base
    }

    /// The next entry of the wrapped cursor.
    public mutating func next() throws -> CallDirectoryEntry? { try base.next() }
}
