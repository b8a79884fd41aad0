import CallFilter

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
