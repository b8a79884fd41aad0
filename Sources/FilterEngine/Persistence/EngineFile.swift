import Foundation

/// The engine's file format: a header, then each array as a length and its raw bytes (native
/// byte order). Loading is a few `memcpy`s: no list is parsed, no string is built.
enum EngineFile {
    static let magic = Array("PEPPERFE".utf8)
    static let version: UInt32 = 5

    /// Why an engine file cannot be loaded.
    enum ReadError: Error, CustomStringConvertible {
        case notAnEngineFile
        case unsupportedVersion(UInt32)
        case truncated

        var description: String {
            switch self {
            case .notAnEngineFile: return "not a Pepper filter-engine file"
            case .unsupportedVersion(let version): return "engine file version \(version) is not supported (rebuild it)"
            case .truncated: return "the engine file is truncated"
            }
        }
    }

    static func encode(_ storage: EngineStorage) -> Data {
        var writer = Writer()
        writer.bytes(magic)
        writer.value(version)
        writer.value(UInt32(MemoryLayout<RuleRecord>.stride))
        writer.array(Array(storage.identifier.utf8))
        writer.array(storage.arena)
        writer.array(storage.rules)
        writer.array(storage.nextRule)
        writer.array(storage.siteHashes)
        writer.array(storage.listNames)
        for table in [storage.importantHosts, storage.blockHosts, storage.exceptionHosts] {
            writer.array(table.slots)
            writer.array(table.filter)
            writer.value(UInt64(table.count))
        }
        writer.array(storage.bareBlockHosts.slots)
        writer.array(storage.bareBlockHosts.filter)
        writer.value(UInt64(storage.bareBlockHosts.count))
        for table in [storage.importantIndex, storage.blockIndex, storage.exceptionIndex] {
            writer.array(table.keys)
            writer.array(table.starts)
            writer.array(table.counts)
            writer.array(table.ids)
            writer.array(table.fallback)
        }
        writer.array(storage.documentExceptions)
        writer.array(storage.allowlistHashes)
        writer.array(storage.regexLiterals)
        return writer.data
    }

    static func decode(_ data: Data) throws(ReadError) -> EngineStorage {
        var reader = Reader(data: data)
        guard try reader.bytes(magic.count) == magic else { throw .notAnEngineFile }
        let fileVersion: UInt32 = try reader.value()
        guard fileVersion == version else { throw .unsupportedVersion(fileVersion) }
        let stride: UInt32 = try reader.value()
        guard stride == UInt32(MemoryLayout<RuleRecord>.stride) else { throw .unsupportedVersion(fileVersion) }
        var storage = EngineStorage()
        storage.identifier = String(decoding: try reader.array(of: UInt8.self), as: UTF8.self)
        storage.arena = try reader.array()
        storage.rules = try reader.array()
        storage.nextRule = try reader.array()
        storage.siteHashes = try reader.array()
        storage.listNames = try reader.array()
        var hosts: [HostTable] = []
        for _ in 0..<3 {
            let slots: [HostSlot] = try reader.array()
            let filter: [UInt64] = try reader.array()
            let count: UInt64 = try reader.value()
            guard count < UInt64(slots.count) else { throw .truncated }
            hosts.append(HostTable(slots: slots, filter: filter, count: Int(count)))
        }
        storage.importantHosts = hosts[0]
        storage.blockHosts = hosts[1]
        storage.exceptionHosts = hosts[2]
        let bareSlots: [BareHostSlot] = try reader.array()
        let bareFilter: [UInt64] = try reader.array()
        let bareCount: UInt64 = try reader.value()
        guard bareCount < UInt64(bareSlots.count) else { throw .truncated }
        storage.bareBlockHosts = BareHostTable(slots: bareSlots, filter: bareFilter, count: Int(bareCount))
        var tables: [TokenTable] = []
        for _ in 0..<3 {
            tables.append(
                TokenTable(
                    keys: try reader.array(), starts: try reader.array(), counts: try reader.array(), ids: try reader.array(),
                    fallback: try reader.array()))
        }
        storage.importantIndex = tables[0]
        storage.blockIndex = tables[1]
        storage.exceptionIndex = tables[2]
        storage.documentExceptions = try reader.array()
        storage.allowlistHashes = try reader.array()
        storage.regexLiterals = try reader.array()
        try validate(storage)
        return storage
    }

    /// Offsets and ids must stay inside their arrays: a damaged file must not crash the engine.
    private static func validate(_ storage: EngineStorage) throws(ReadError) {
        let arena = UInt64(storage.arena.count)
        guard storage.nextRule.count == storage.rules.count, storage.regexLiterals.count % 3 == 0, storage.listNames.count % 2 == 0,
            stride(from: 0, to: storage.listNames.count, by: 2).allSatisfy({
                UInt64(storage.listNames[$0]) + UInt64(storage.listNames[$0 + 1]) <= arena
            })
        else { throw .truncated }
        for rule in storage.rules {
            guard UInt64(rule.patternOffset) + UInt64(rule.patternLength) <= arena,
                UInt64(rule.textOffset) + UInt64(rule.textLength) <= arena,
                Int(rule.sitesOffset) + Int(rule.includedCount) + Int(rule.excludedCount) <= storage.siteHashes.count,
                Int(rule.list) * 2 + 1 < storage.listNames.count || storage.listNames.isEmpty
            else { throw .truncated }
        }
        let ruleCount = UInt32(storage.rules.count)
        for table in [storage.importantIndex, storage.blockIndex, storage.exceptionIndex] {
            guard table.keys.count.nonzeroBitCount == 1, table.keys.contains(0), table.starts.count == table.keys.count,
                table.counts.count == table.keys.count,
                table.ids.allSatisfy({ $0 < ruleCount }), table.fallback.allSatisfy({ $0 < ruleCount }),
                zip(table.starts, table.counts).allSatisfy({ Int($0) + Int($1) <= table.ids.count })
            else { throw .truncated }
        }
        for table in [storage.importantHosts, storage.blockHosts, storage.exceptionHosts] {
            // An empty slot must remain, or a lookup for an absent host would never end.
            guard table.slots.count.nonzeroBitCount == 1, table.filter.count.nonzeroBitCount == 1,
                table.slots.contains(where: { $0.key == 0 }),
                table.slots.allSatisfy({ $0.key == 0 || ($0.head < ruleCount && ($0.dnsHead == UInt32.max || $0.dnsHead < ruleCount)) })
            else { throw .truncated }
        }
        let bare = storage.bareBlockHosts
        let listCount = storage.listNames.count / 2
        // An empty slot must remain (see above); lists must exist for explanations.
        guard bare.filter.count.nonzeroBitCount == 1, bare.slots.contains(where: { $0.key == 0 }),
            bare.slots.allSatisfy({ $0.key == 0 || (Int($0.list) < listCount && $0.form <= 1) })
        else { throw .truncated }
        guard storage.documentExceptions.allSatisfy({ $0 < ruleCount }) else { throw .truncated }
        // Chains only move forward (rules are chained in the order they were added), so none loops.
        for (rule, next) in storage.nextRule.enumerated() where next != UInt32.max {
            guard next < ruleCount, Int(next) > rule else { throw .truncated }
        }
        // Statements rather than one expression: the iOS SDK's overloads make that one too slow to type-check.
        for start in stride(from: 0, to: storage.regexLiterals.count, by: 3) {
            let end = UInt64(storage.regexLiterals[start + 1]) + UInt64(storage.regexLiterals[start + 2])
            guard storage.regexLiterals[start] < ruleCount, end <= arena else { throw .truncated }
        }
    }

    private struct Writer {
        var data = Data()

        mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }

        mutating func value<T>(_ value: T) {
            withUnsafeBytes(of: value) { data.append(contentsOf: $0) }
        }

        mutating func array<T>(_ array: [T]) {
            value(UInt64(array.count))
            array.withUnsafeBytes { data.append(contentsOf: $0) }
        }
    }

    private struct Reader {
        let data: Data
        var offset = 0

        mutating func bytes(_ count: Int) throws(ReadError) -> [UInt8] {
            guard offset + count <= data.count else { throw .truncated }
            defer { offset += count }
            return Array(data[(data.startIndex + offset)..<(data.startIndex + offset + count)])
        }

        mutating func value<T>() throws(ReadError) -> T {
            let size = MemoryLayout<T>.size
            guard offset + size <= data.count else { throw .truncated }
            defer { offset += size }
            return data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        }

        mutating func array<T>(of type: T.Type = T.self) throws(ReadError) -> [T] {
            let count: UInt64 = try value()
            let size = MemoryLayout<T>.stride
            guard count < UInt64(Int.max / max(size, 1)), offset + Int(count) * size <= data.count else { throw .truncated }
            let length = Int(count) * size
            let result = [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                data.withUnsafeBytes { raw in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
                }
                initialized = Int(count)
            }
            offset += length
            return result
        }
    }
}

extension FilterEngine {
    /// Saves the engine (atomically: a temporary file renamed into place).
    public func write(to url: URL) throws {
        try EngineFile.encode(data.storage).write(to: url, options: .atomic)
    }

    /// Loads an engine saved by ``write(to:)``.
    public init(contentsOf url: URL) throws {
        // The file's bytes go before the engine is frozen: at most two copies at any time.
        let storage = try { () throws -> EngineStorage in
            let data = try Data(contentsOf: url, options: .mappedIfSafe)
            return try EngineFile.decode(data)
        }()
        self.init(storage: storage)
    }
}
