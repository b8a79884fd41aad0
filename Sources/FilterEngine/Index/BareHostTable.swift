/// One slot of a ``BareHostTable``: a host's hash and where its rule was written. 16 bytes,
/// against about 90 for a hostname rule in the general tables (record, pattern, chain, slot).
struct BareHostSlot: Sendable {
    var key: UInt64
    var line: UInt32
    var list: UInt16
    /// How the rule was written: ``BareHostTable/Form``.
    var form: UInt16
}

/// The plain blocks of whole hosts, `||ads.example^` or a domain-list line: no options, so they
/// block every request to the host and its subdomains and apply at the DNS level. Most of a big
/// blocklist is such rules (a million-name DNS blocklist is nothing else), so they get a table
/// of their own that keeps only the host's hash, list and line: the host's text is not stored,
/// because a match is found from the request's own host, which then spells the rule.
///
/// Hosts are compared by their 64-bit FNV-1a hash alone (as the allowlist is): with a million
/// hosts, the chance that a given other host collides with one is about 1 in 18 million million.
/// Open addressing with linear probing at most ¾ full, any capacity (not only powers of two:
/// the slot comes from the hash by multiplication), and a Bloom filter in front.
struct BareHostTable: Sendable {
    /// How a bare rule was written, to show it again.
    enum Form: UInt16 {
        /// `||host^`
        case hostAnchor = 0
        /// `host` (a domain list's line)
        case domain = 1
    }

    var slots: [BareHostSlot] = [BareHostSlot(key: 0, line: 0, list: 0, form: 0)]
    var filter: [UInt64] = [0]
    var count = 0

    init() {}

    init(slots: [BareHostSlot], filter: [UInt64], count: Int) {
        self.slots = slots
        self.filter = filter
        self.count = count
    }

    /// Builds the table; a host given twice keeps its first rule.
    init(entries: [BareHostSlot]) {
        let capacity = max(1, entries.count + entries.count / 3 + 1)
        slots = Array(repeating: BareHostSlot(key: 0, line: 0, list: 0, form: 0), count: capacity)
        for entry in entries {
            var index = Self.home(entry.key, capacity)
            while slots[index].key != 0 && slots[index].key != entry.key { index = index + 1 == capacity ? 0 : index + 1 }
            if slots[index].key == 0 {
                slots[index] = entry
                count += 1
            }
        }
        filter = HostTable.bloomFilter(slots.lazy.filter { $0.key != 0 }.map(\.key))
    }

    /// The first slot to look at for `hash`: its high bits scaled to the capacity.
    @inline(__always)
    static func home(_ hash: UInt64, _ capacity: Int) -> Int {
        Int(truncatingIfNeeded: hash.multipliedFullWidth(by: UInt64(capacity)).high)
    }
}

/// A ``BareHostTable`` in frozen memory.
struct FrozenBareHostTable {
    let slots: UnsafeBufferPointer<BareHostSlot>
    let filter: UnsafeBufferPointer<UInt64>
    let count: Int

    /// The index of the slot for `hash`, if the host is in the table.
    @inline(__always)
    func index(of hash: UInt64) -> Int? {
        guard count > 0, HostTable.bloomFilter(filter, mayContain: hash) else { return nil }
        let capacity = slots.count
        var index = BareHostTable.home(hash, capacity)
        while true {
            let key = slots[index].key
            if key == hash { return index }
            if key == 0 { return nil }
            index = index + 1 == capacity ? 0 : index + 1
        }
    }

    var table: BareHostTable { BareHostTable(slots: Array(slots), filter: Array(filter), count: count) }
}
