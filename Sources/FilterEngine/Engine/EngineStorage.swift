/// Everything a built engine holds, as flat arrays: what is saved to a file and loaded back.
struct EngineStorage: Sendable {
    /// Patterns, rule texts, literals and list names, back to back.
    var arena: [UInt8] = []
    /// The rules.
    var rules: [RuleRecord] = []
    /// For each rule, the next rule of the same host in a ``HostTable`` (`UInt32.max`: none).
    var nextRule: [UInt32] = []
    /// Sorted FNV-64 hashes of rule sites (`$domain` entries), referenced by the rules.
    var siteHashes: [UInt64] = []
    /// List names (offset, length) in the arena.
    var listNames: [UInt32] = []
    /// Request indexes: `$important` blocks, blocks, exceptions — hostname rules by host, the
    /// others by token.
    var importantHosts = HostTable()
    var blockHosts = HostTable()
    var exceptionHosts = HostTable()
    /// Blocks of whole hosts without options, by host (the bulk of big lists).
    var bareBlockHosts = BareHostTable()
    var importantIndex = TokenTable(entries: [])
    var blockIndex = TokenTable(entries: [])
    var exceptionIndex = TokenTable(entries: [])
    /// `$document` exceptions, checked against the page.
    var documentExceptions: [UInt32] = []
    /// Sorted hashes of allowlisted sites.
    var allowlistHashes: [UInt64] = []
    /// Regular-expression rules and the literal each requires (offset, length in the arena).
    var regexLiterals: [UInt32] = []
    /// Identifies the inputs the engine was built from (e.g. the manifest identifier).
    var identifier: String = ""

    /// Appends bytes to the arena; returns their offset.
    mutating func store(_ bytes: some Collection<UInt8>) -> UInt32 {
        let offset = UInt32(arena.count)
        arena.append(contentsOf: bytes)
        return offset
    }

    /// The list name at `index`.
    func listName(_ index: Int) -> String {
        let offset = Int(listNames[index * 2])
        let length = Int(listNames[index * 2 + 1])
        return String(decoding: arena[offset..<(offset + length)], as: UTF8.self)
    }

    func string(offset: UInt32, length: UInt32) -> String {
        String(decoding: arena[Int(offset)..<Int(offset + length)], as: UTF8.self)
    }
}

/// One slot of a ``HostTable``: a host's hash, its first rule, and its first rule that applies
/// at the DNS level — together, so a lookup touches one cache line.
struct HostSlot: Sendable {
    var key: UInt64
    var head: UInt32
    var dnsHead: UInt32
}

/// An open-addressing table from a host's FNV-64 hash to its rules (chained through
/// ``EngineStorage/nextRule``), with a Bloom filter in front: most lookups are for hosts that
/// are not there, and the filter (a few bits per host) answers those from the CPU cache.
struct HostTable: Sendable {
    var slots: [HostSlot] = Array(repeating: HostSlot(key: 0, head: 0, dnsHead: UInt32.max), count: 4)
    var filter: [UInt64] = [0]
    var count = 0

    init() {}

    init(slots: [HostSlot], filter: [UInt64], count: Int) {
        self.slots = slots
        self.filter = filter
        self.count = count
    }

    /// Builds a table from `(hash, rule, appliesAtDNSLevel)` entries, chaining rules of the same
    /// host through `next` in the order given.
    init(entries: [(hash: UInt64, rule: UInt32, dns: Bool)], next: inout [UInt32]) {
        var capacity = 4
        while capacity < entries.count * 2 { capacity *= 2 }
        slots = Array(repeating: HostSlot(key: 0, head: 0, dnsHead: UInt32.max), count: capacity)
        var tails = [UInt32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (hash, rule, dns) in entries {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].key != 0 && slots[slot].key != hash { slot = (slot + 1) & mask }
            if slots[slot].key == 0 {
                slots[slot].key = hash
                slots[slot].head = rule
                count += 1
            } else {
                next[Int(tails[slot])] = rule
            }
            if dns && slots[slot].dnsHead == UInt32.max { slots[slot].dnsHead = rule }
            tails[slot] = rule
        }
        filter = Self.bloomFilter(entries.map(\.hash))
    }

    /// The Bloom filter in front of a host table: 16 bits per host, two probes, about 1.4 %
    /// false positives.
    static func bloomFilter(_ hashes: some Collection<UInt64>) -> [UInt64] {
        var words = 1
        while words * 64 < hashes.count * 16 { words *= 2 }
        var filter = [UInt64](repeating: 0, count: words)
        let bits = words * 64 - 1
        for hash in hashes {
            let (first, second) = probes(hash, bits)
            filter[first >> 6] |= 1 << UInt64(first & 63)
            filter[second >> 6] |= 1 << UInt64(second & 63)
        }
        return filter
    }

    /// Whether `filter` may hold `hash` (`false`: it surely does not).
    @inline(__always)
    static func bloomFilter(_ filter: UnsafeBufferPointer<UInt64>, mayContain hash: UInt64) -> Bool {
        let (first, second) = probes(hash, filter.count * 64 - 1)
        return filter[first >> 6] & (1 << UInt64(first & 63)) != 0 && filter[second >> 6] & (1 << UInt64(second & 63)) != 0
    }

    @inline(__always)
    static func probes(_ hash: UInt64, _ bits: Int) -> (Int, Int) {
        (Int(truncatingIfNeeded: hash >> 17) & bits, Int(truncatingIfNeeded: (hash >> 41) &* 0x9E37_79B1) & bits)
    }
}
