import Foundation

/// A built engine's arrays, frozen into memory that is never reference-counted: the matching
/// code reads them through plain pointers. Immutable once made, so it is shared freely.
final class EngineData: @unchecked Sendable {
    let arena: UnsafeBufferPointer<UInt8>
    let rules: UnsafeBufferPointer<RuleRecord>
    let nextRule: UnsafeBufferPointer<UInt32>
    let siteHashes: UnsafeBufferPointer<UInt64>
    let listNames: [String]
    let listNameSpans: UnsafeBufferPointer<UInt32>
    let importantHosts: FrozenHostTable
    let blockHosts: FrozenHostTable
    let exceptionHosts: FrozenHostTable
    let bareBlockHosts: FrozenBareHostTable
    let importantIndex: FrozenTokenTable
    let blockIndex: FrozenTokenTable
    let exceptionIndex: FrozenTokenTable
    let documentExceptions: UnsafeBufferPointer<UInt32>
    let allowlistHashes: UnsafeBufferPointer<UInt64>
    let regexLiterals: UnsafeBufferPointer<UInt32>
    let identifier: String
    private var allocations: [UnsafeMutableRawPointer] = []
    /// The engine whose arrays this one shares (kept alive while they are read), if any.
    private let base: EngineData?

    /// Freezes `storage`'s arrays, releasing each once copied, so that building or loading an
    /// engine never holds two full copies of it.
    init(_ storage: consuming EngineStorage) {
        var allocations: [UnsafeMutableRawPointer] = []
        func freeze<T>(_ array: inout [T]) -> UnsafeBufferPointer<T> {
            defer { array = [] }
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
            _ = buffer.initialize(from: array)
            allocations.append(UnsafeMutableRawPointer(buffer.baseAddress!))
            return UnsafeBufferPointer(rebasing: UnsafeBufferPointer(buffer)[0..<array.count])
        }
        func freeze(_ table: inout HostTable) -> FrozenHostTable {
            FrozenHostTable(slots: freeze(&table.slots), filter: freeze(&table.filter), count: table.count)
        }
        func freeze(_ table: inout TokenTable) -> FrozenTokenTable {
            FrozenTokenTable(
                keys: freeze(&table.keys), starts: freeze(&table.starts), counts: freeze(&table.counts), ids: freeze(&table.ids),
                fallback: freeze(&table.fallback))
        }
        listNames = (0..<(storage.listNames.count / 2)).map { storage.listName($0) }
        arena = freeze(&storage.arena)
        rules = freeze(&storage.rules)
        nextRule = freeze(&storage.nextRule)
        siteHashes = freeze(&storage.siteHashes)
        listNameSpans = freeze(&storage.listNames)
        importantHosts = freeze(&storage.importantHosts)
        blockHosts = freeze(&storage.blockHosts)
        exceptionHosts = freeze(&storage.exceptionHosts)
        bareBlockHosts = FrozenBareHostTable(
            slots: freeze(&storage.bareBlockHosts.slots), filter: freeze(&storage.bareBlockHosts.filter),
            count: storage.bareBlockHosts.count)
        importantIndex = freeze(&storage.importantIndex)
        blockIndex = freeze(&storage.blockIndex)
        exceptionIndex = freeze(&storage.exceptionIndex)
        documentExceptions = freeze(&storage.documentExceptions)
        allowlistHashes = freeze(&storage.allowlistHashes)
        regexLiterals = freeze(&storage.regexLiterals)
        identifier = storage.identifier
        self.allocations = allocations
        base = nil
    }

    /// `base`'s arrays with another allowlist (sorted site hashes): the arrays are shared, not
    /// copied, so an allowlist change costs the allowlist only.
    init(base: EngineData, allowlistHashes hashes: [UInt64]) {
        let buffer = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(hashes.count, 1))
        _ = buffer.initialize(from: hashes)
        allocations = [UnsafeMutableRawPointer(buffer.baseAddress!)]
        allowlistHashes = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(buffer)[0..<hashes.count])
        self.base = base
        arena = base.arena
        rules = base.rules
        nextRule = base.nextRule
        siteHashes = base.siteHashes
        listNames = base.listNames
        listNameSpans = base.listNameSpans
        importantHosts = base.importantHosts
        blockHosts = base.blockHosts
        exceptionHosts = base.exceptionHosts
        bareBlockHosts = base.bareBlockHosts
        importantIndex = base.importantIndex
        blockIndex = base.blockIndex
        exceptionIndex = base.exceptionIndex
        documentExceptions = base.documentExceptions
        regexLiterals = base.regexLiterals
        identifier = base.identifier
    }

    deinit {
        for pointer in allocations { pointer.deallocate() }
    }

    /// The arrays back as an `EngineStorage`, for saving to a file.
    var storage: EngineStorage {
        var storage = EngineStorage()
        storage.arena = Array(arena)
        storage.rules = Array(rules)
        storage.nextRule = Array(nextRule)
        storage.siteHashes = Array(siteHashes)
        storage.listNames = Array(listNameSpans)
        storage.importantHosts = importantHosts.table
        storage.blockHosts = blockHosts.table
        storage.exceptionHosts = exceptionHosts.table
        storage.bareBlockHosts = bareBlockHosts.table
        storage.importantIndex = importantIndex.table
        storage.blockIndex = blockIndex.table
        storage.exceptionIndex = exceptionIndex.table
        storage.documentExceptions = Array(documentExceptions)
        storage.allowlistHashes = Array(allowlistHashes)
        storage.regexLiterals = Array(regexLiterals)
        storage.identifier = identifier
        return storage
    }

    @inline(__always)
    func pattern(_ record: RuleRecord) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: arena[Int(record.patternOffset)..<Int(record.patternOffset + record.patternLength)])
    }

    func string(offset: UInt32, length: UInt32) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: arena[Int(offset)..<Int(offset + length)]), as: UTF8.self)
    }
}

/// A ``HostTable`` in frozen memory.
struct FrozenHostTable {
    let slots: UnsafeBufferPointer<HostSlot>
    let filter: UnsafeBufferPointer<UInt64>
    let count: Int

    /// The slot for `hash`, if the host is in the table.
    @inline(__always)
    func slot(for hash: UInt64) -> HostSlot? {
        guard count > 0, HostTable.bloomFilter(filter, mayContain: hash) else { return nil }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot.key == hash { return slot }
            if slot.key == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    var table: HostTable { HostTable(slots: Array(slots), filter: Array(filter), count: count) }
}

/// A ``TokenTable`` in frozen memory.
struct FrozenTokenTable {
    let keys: UnsafeBufferPointer<UInt32>
    let starts: UnsafeBufferPointer<UInt32>
    let counts: UnsafeBufferPointer<UInt32>
    let ids: UnsafeBufferPointer<UInt32>
    let fallback: UnsafeBufferPointer<UInt32>

    /// The rules indexed under `token`.
    @inline(__always)
    func rules(token: UInt32) -> UnsafeBufferPointer<UInt32> {
        let mask = keys.count - 1
        var slot = Int(token) & mask
        while true {
            let key = keys[slot]
            if key == token {
                let start = Int(starts[slot])
                return UnsafeBufferPointer(rebasing: ids[start..<(start + Int(counts[slot]))])
            }
            if key == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
            slot = (slot + 1) & mask
        }
    }

    var table: TokenTable {
        TokenTable(keys: Array(keys), starts: Array(starts), counts: Array(counts), ids: Array(ids), fallback: Array(fallback))
    }
}
