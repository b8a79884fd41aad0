/// Which of CallKit's two lists an entry belongs to.
public enum CallDirectoryEntryKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Calls from the number are blocked.
    case blocking = "block"
    /// Calls from the number show a label ("Suspicious").
    case identification = "identify"
}

/// One entry for CallKit: the E.164 digits as an integer (`12539501212`) and, for
/// identification entries, the label shown on incoming calls.
public struct CallDirectoryEntry: Sendable, Hashable, Codable {
    /// The E.164 digits as an integer.
    public var number: Int64
    /// The label of an identification entry; nil for a blocking entry.
    public var label: String?

    /// An entry.
    public init(number: Int64, label: String? = nil) {
        self.number = number
        self.label = label
    }
}

/// The ways a list of entries can break CallKit's rules, named as CallKit names them
/// (`CXErrorCodeCallDirectoryManagerError`).
public enum CallDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An entry was not greater than the one before it.
    case entriesOutOfOrder(previous: Int64, next: Int64)
    /// The same number twice in one list.
    case duplicateEntries(Int64)
    /// More entries than the configured maximum.
    case maximumEntriesExceeded(maximum: Int)
    /// A removal while the context was not incremental.
    case unexpectedIncrementalRemoval
    /// A number CallKit cannot take (zero or negative).
    case invalidNumber(Int64)
    /// The stored list cannot tell what changed since `version` (unknown or future version).
    case unknownVersion(Int64)

    /// CallKit's name for the error (`entriesOutOfOrder`).
    public var code: String {
        switch self {
        case .entriesOutOfOrder: "entriesOutOfOrder"
        case .duplicateEntries: "duplicateEntries"
        case .maximumEntriesExceeded: "maximumEntriesExceeded"
        case .unexpectedIncrementalRemoval: "unexpectedIncrementalRemoval"
        case .invalidNumber: "invalidNumber"
        case .unknownVersion: "unknownVersion"
        }
    }

    /// CallKit's name and the entries involved.
    public var description: String {
        switch self {
        case .entriesOutOfOrder(let previous, let next): "entriesOutOfOrder: \(next) after \(previous)"
        case .duplicateEntries(let number): "duplicateEntries: \(number) twice"
        case .maximumEntriesExceeded(let maximum): "maximumEntriesExceeded: more than \(maximum) entries"
        case .unexpectedIncrementalRemoval: "unexpectedIncrementalRemoval: removal in a full (non-incremental) load"
        case .invalidNumber(let number): "invalidNumber: \(number) is not a positive E.164 number"
        case .unknownVersion(let version): "unknownVersion: no changes recorded since version \(version); do a full export"
        }
    }
}

/// A source of entries read one at a time (a database cursor, a file), so that millions of
/// entries never sit in memory at once.
public protocol CallDirectoryEntryCursor {
    /// The next entry, or nil at the end.
    mutating func next() throws -> CallDirectoryEntry?
}

/// Entries from an in-memory sequence.
public struct SequenceEntryCursor<Base: IteratorProtocol<CallDirectoryEntry>>: CallDirectoryEntryCursor {
    private var base: Base

    /// A cursor over `sequence`.
    public init<S: Sequence>(_ sequence: S) where S.Iterator == Base {
        base = sequence.makeIterator()
    }

    /// The next element of the sequence.
    public mutating func next() throws -> CallDirectoryEntry? { base.next() }
}

/// Streams entries in the order CallKit demands — strictly ascending, no duplicates, at most a
/// configured number — checking a cursor's entries as they pass, in constant memory.
///
/// Duplicates (the same number twice in a row, e.g. a number in two imported lists) are
/// removed, keeping the first, unless ``DuplicatePolicy/reject`` asks for an error; an entry
/// smaller than the one before it is always ``CallDirectoryError/entriesOutOfOrder(previous:next:)``:
/// the source must sort (SQLite's `ORDER BY` on the primary key does).
public struct CallDirectoryEntries<Base: CallDirectoryEntryCursor>: CallDirectoryEntryCursor {
    /// What to do with the same number twice in a row.
    public enum DuplicatePolicy: Sendable {
        /// Drop the repeat (keep the first entry).
        case remove
        /// Throw ``CallDirectoryError/duplicateEntries(_:)``.
        case reject
    }

    private var base: Base
    private let maximumCount: Int?
    private let duplicates: DuplicatePolicy
    private var previous: Int64?
    /// Entries passed on so far.
    public private(set) var count = 0
    /// Duplicates dropped so far.
    public private(set) var duplicatesRemoved = 0

    /// Checks `base`'s entries; `maximumCount` nil means no limit.
    public init(_ base: Base, maximumCount: Int? = nil, duplicates: DuplicatePolicy = .remove) {
        self.base = base
        self.maximumCount = maximumCount
        self.duplicates = duplicates
    }

    /// The next valid entry, or nil at the end.
    ///
    /// - Throws: ``CallDirectoryError`` when the source breaks CallKit's rules, or the source's error.
    public mutating func next() throws -> CallDirectoryEntry? {
        while let entry = try base.next() {
            guard entry.number > 0 else { throw CallDirectoryError.invalidNumber(entry.number) }
            if let previous {
                if entry.number == previous {
                    guard duplicates == .remove else { throw CallDirectoryError.duplicateEntries(entry.number) }
                    duplicatesRemoved += 1
                    continue
                }
                guard entry.number > previous else { throw CallDirectoryError.entriesOutOfOrder(previous: previous, next: entry.number) }
            }
            if let maximumCount, count >= maximumCount { throw CallDirectoryError.maximumEntriesExceeded(maximum: maximumCount) }
            previous = entry.number
            count += 1
            return entry
        }
        return nil
    }

    /// Passes every entry to `body`; returns how many there were.
    public mutating func forEach(_ body: (CallDirectoryEntry) throws -> Void) throws -> Int {
        while let entry = try next() { try body(entry) }
        return count
    }

    /// Passes every entry to `body`, `size` entries per call of `scope`; returns how many
    /// there were. An iOS extension passes an autorelease pool as the scope, so that what the
    /// system allocates per entry is freed after each chunk instead of after millions.
    public mutating func forEach(
        chunksOf size: Int, in scope: CallDirectoryChunkScope, _ body: (CallDirectoryEntry) throws -> Void
    ) throws -> Int {
        // `scope` only runs the chunk before returning; Swift cannot tell, hence the wrapper.
        try withoutActuallyEscaping(body) { body in
            var more = true
            while more {
                try scope {
                    var passed = 0
                    while passed < max(size, 1), let entry = try next() {
                        try body(entry)
                        passed += 1
                    }
                    more = passed == max(size, 1)
                }
            }
        }
        return count
    }
}

/// Runs one chunk of a load (see ``CallDirectoryEntries/forEach(chunksOf:in:_:)``): calls
/// `chunk` once, inside whatever scope the caller needs.
public typealias CallDirectoryChunkScope = (_ chunk: () throws -> Void) throws -> Void
