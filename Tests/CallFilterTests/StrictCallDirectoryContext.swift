import CallFilter

/// A `CallDirectoryContext` that enforces CallKit's documented rules the way the system does when
/// it loads an extension: additions strictly ascending per list with no duplicates, removals only
/// in incremental loads, at most `maximumEntries` per list, exactly one completion, nothing after it.
final class StrictCallDirectoryContext: CallDirectoryContext {
    enum Violation: Error, Equatable {
        case callDirectory(CallDirectoryError)
        case callAfterCompletion(String)
        case completedTwice
    }

    let isIncremental: Bool
    let maximumEntries: Int
    /// The lists as the system would hold them after the load.
    private(set) var blocking: [Int64]
    private(set) var identification: [Int64: String]
    private(set) var violations: [Violation] = []
    private(set) var completed = false
    private(set) var cancelledWith: (any Error)?
    private var lastBlockingAddition: Int64?
    private var lastIdentificationAddition: Int64?
    private var blockingAdditions = 0
    private var identificationAdditions = 0

    init(isIncremental: Bool, previous: (blocking: [Int64], identification: [Int64: String]) = ([], [:]), maximumEntries: Int = 2_000_000) {
        self.isIncremental = isIncremental
        self.maximumEntries = maximumEntries
        // A full load starts from nothing; an incremental one from what was loaded before.
        blocking = isIncremental ? previous.blocking : []
        identification = isIncremental ? previous.identification : [:]
    }

    private func check(_ name: String) -> Bool {
        if completed || cancelledWith != nil {
            violations.append(.callAfterCompletion(name))
            return false
        }
        return true
    }

    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        guard check("addBlockingEntry") else { return }
        if let last = lastBlockingAddition {
            if phoneNumber == last { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
            if phoneNumber < last { violations.append(.callDirectory(.entriesOutOfOrder(previous: last, next: phoneNumber))) }
        }
        lastBlockingAddition = phoneNumber
        blockingAdditions += 1
        if blockingAdditions > maximumEntries { violations.append(.callDirectory(.maximumEntriesExceeded(maximum: maximumEntries))) }
        if blocking.contains(phoneNumber) && isIncremental {
            violations.append(.callDirectory(.duplicateEntries(phoneNumber)))
        }
        blocking.append(phoneNumber)
    }

    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {
        guard check("removeBlockingEntry") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        blocking.removeAll { $0 == phoneNumber }
    }

    func removeAllBlockingEntries() {
        guard check("removeAllBlockingEntries") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        blocking.removeAll()
    }

    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        guard check("addIdentificationEntry") else { return }
        if let last = lastIdentificationAddition {
            if phoneNumber == last { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
            if phoneNumber < last { violations.append(.callDirectory(.entriesOutOfOrder(previous: last, next: phoneNumber))) }
        }
        lastIdentificationAddition = phoneNumber
        identificationAdditions += 1
        if identificationAdditions > maximumEntries { violations.append(.callDirectory(.maximumEntriesExceeded(maximum: maximumEntries))) }
        if identification[phoneNumber] != nil && isIncremental { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
        identification[phoneNumber] = label
    }

    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {
        guard check("removeIdentificationEntry") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        identification[phoneNumber] = nil
    }

    func removeAllIdentificationEntries() {
        guard check("removeAllIdentificationEntries") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        identification.removeAll()
    }

    func completeRequest() {
        if completed || cancelledWith != nil { violations.append(.completedTwice) }
        completed = true
    }

    func cancelRequest(withError error: any Error) {
        if completed || cancelledWith != nil { violations.append(.completedTwice) }
        cancelledWith = error
    }

    /// The loaded blocking list, sorted (the order the system keeps).
    var sortedBlocking: [Int64] { blocking.sorted() }
}

/// An in-memory `CallDirectorySource` with a change log, as the database keeps one.
struct MemoryCallDirectorySource: CallDirectorySource {
    /// Per version, the lists at that version.
    var history: [(blocking: [Int64: String?], identification: [Int64: String])]
    /// Entries served exactly as given (to feed the handler bad data).
    var rawBlocking: [Int64]?

    init(blocking: [Int64], identification: [Int64: String] = [:]) {
        history = [(Dictionary(uniqueKeysWithValues: blocking.map { ($0, nil) }), identification)]
    }

    mutating func commit(blocking: [Int64], identification: [Int64: String]) {
        history.append((Dictionary(uniqueKeysWithValues: blocking.map { ($0, nil) }), identification))
    }

    func withSnapshot<T>(_ body: (any CallDirectorySnapshot) throws -> T) throws -> T {
        try body(Snapshot(source: self))
    }

    struct Snapshot: CallDirectorySnapshot {
        let source: MemoryCallDirectorySource
        var version: Int64 { Int64(source.history.count - 1) }

        func entries(_ kind: CallDirectoryEntryKind, at version: Int) -> [CallDirectoryEntry] {
            switch kind {
            case .blocking: source.history[version].blocking.keys.sorted().map { CallDirectoryEntry(number: $0) }
            case .identification:
                source.history[version].identification.sorted { $0.key < $1.key }.map {
                    CallDirectoryEntry(number: $0.key, label: $0.value)
                }
            }
        }

        func withEntries<T>(_ kind: CallDirectoryEntryKind, _ body: (inout any CallDirectoryEntryCursor) throws -> T) throws -> T {
            var cursor: any CallDirectoryEntryCursor =
                if kind == .blocking, let raw = source.rawBlocking {
                    SequenceEntryCursor(raw.map { CallDirectoryEntry(number: $0) })
                } else {
                    SequenceEntryCursor(entries(kind, at: Int(version)))
                }
            return try body(&cursor)
        }

        func withChanges<T>(
            _ kind: CallDirectoryEntryKind, since old: Int64,
            _ body: (inout any CallDirectoryEntryCursor, inout any CallDirectoryEntryCursor) throws -> T
        ) throws -> T {
            guard old >= 0, old <= version else { throw CallDirectoryError.unknownVersion(old) }
            let before = Dictionary(uniqueKeysWithValues: entries(kind, at: Int(old)).map { ($0.number, $0.label) })
            let after = Dictionary(uniqueKeysWithValues: entries(kind, at: Int(version)).map { ($0.number, $0.label) })
            let removed = before.filter { after[$0.key] == nil || after[$0.key]! != $0.value }.keys.sorted()
            let added = after.filter { before[$0.key] == nil || before[$0.key]! != $0.value }.sorted { $0.key < $1.key }
            var removals: any CallDirectoryEntryCursor = SequenceEntryCursor(removed.map { CallDirectoryEntry(number: $0) })
            var additions: any CallDirectoryEntryCursor = SequenceEntryCursor(
                added.map { CallDirectoryEntry(number: $0.key, label: $0.value) })
            return try body(&removals, &additions)
        }
    }
}
