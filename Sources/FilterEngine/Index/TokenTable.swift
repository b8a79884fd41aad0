/// An open-addressing hash table from token hash to the rules indexed under that token, in
/// flat arrays (no per-bucket allocation, written and read as raw memory).
struct TokenTable: Sendable {
    /// Slot keys (token hashes; 0 = empty); the capacity is a power of two.
    var keys: [UInt32]
    /// For each slot, where its rule ids start in ``ids``, and how many.
    var starts: [UInt32]
    var counts: [UInt32]
    /// Rule ids, grouped by token.
    var ids: [UInt32]
    /// Rules that have no usable token: tried for every request.
    var fallback: [UInt32]

    init(keys: [UInt32], starts: [UInt32], counts: [UInt32], ids: [UInt32], fallback: [UInt32]) {
        self.keys = keys
        self.starts = starts
        self.counts = counts
        self.ids = ids
        self.fallback = fallback
    }

    /// Builds a table from `(token, rule)` pairs (rules without token have token 0).
    init(entries: [(token: UInt32, rule: UInt32)]) {
        // Sorting groups the rules of a token without a dictionary of arrays; rules stay in
        // ascending order within a token, so matching is deterministic.
        let sorted = entries.filter { $0.token != 0 }.sorted { ($0.token, $0.rule) < ($1.token, $1.rule) }
        var distinct = 0
        for (index, entry) in sorted.enumerated() where index == 0 || sorted[index - 1].token != entry.token { distinct += 1 }
        var capacity = 16
        while capacity < distinct * 2 { capacity *= 2 }
        var keys = [UInt32](repeating: 0, count: capacity)
        var starts = [UInt32](repeating: 0, count: capacity)
        var counts = [UInt32](repeating: 0, count: capacity)
        var ids = [UInt32]()
        ids.reserveCapacity(sorted.count)
        var index = 0
        while index < sorted.count {
            let token = sorted[index].token
            var slot = Int(token) & (capacity - 1)
            while keys[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            keys[slot] = token
            starts[slot] = UInt32(ids.count)
            while index < sorted.count && sorted[index].token == token {
                ids.append(sorted[index].rule)
                index += 1
            }
            counts[slot] = UInt32(ids.count) - starts[slot]
        }
        let fallback = entries.filter { $0.token == 0 }.map(\.rule).sorted()
        self.init(keys: keys, starts: starts, counts: counts, ids: ids, fallback: fallback)
    }

    /// Calls `body` with each rule indexed under `token`; stops when it returns `false`.
    @inline(__always)
    func forEachRule(token: UInt32, _ body: (UInt32) -> Bool) -> Bool {
        let mask = keys.count - 1
        var slot = Int(token) & mask
        while true {
            let key = keys[slot]
            if key == 0 { return true }
            if key == token {
                let start = Int(starts[slot])
                for index in start..<(start + Int(counts[slot])) where !body(ids[index]) { return false }
                return true
            }
            slot = (slot + 1) & mask
        }
    }
}
