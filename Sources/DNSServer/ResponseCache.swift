import DNSFilter
import NIOConcurrencyHelpers
import NIOCore

/// Upstream answers kept for their TTL (RFC 1035 §7.4, RFC 2181 §8): an answer is cached for
/// the smallest TTL of its records; a negative answer (NXDOMAIN, or no data) for the SOA's
/// minimum, bounded by the SOA's own TTL (RFC 2308 §5). Answers without an SOA and failures are
/// not cached. A hit returns the records with their TTLs lowered by the time spent in the cache.
/// Bounded: when full, expired entries go first, then arbitrary ones (a cache is allowed to
/// forget).
final class ResponseCache: Sendable {
    /// What a cached answer is looked up by: the lower-cased question and the DO bit (DNSSEC
    /// records are only in answers to queries that asked for them).
    struct Key: Hashable, Sendable {
        var name: [UInt8]
        var type: UInt16
        var recordClass: UInt16
        var dnssecOK: Bool

        init(_ question: DNSQuestion, dnssecOK: Bool) {
            name = question.name.lowercased().wire
            type = question.type.rawValue
            recordClass = question.recordClass.rawValue
            self.dnssecOK = dnssecOK
        }
    }

    /// A cached answer: the upstream's response (header flags and sections).
    struct Entry: Sendable {
        var response: DNSMessage
        var storedAt: UInt64
        var lifetime: UInt32
    }

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])
    /// The most entries kept.
    let capacity: Int
    /// The longest any answer is kept, whatever its TTL (a day, as common resolvers do).
    let maximumTTL: UInt32

    init(capacity: Int, maximumTTL: UInt32 = 86_400) {
        self.capacity = capacity
        self.maximumTTL = maximumTTL
    }

    /// The number of cached answers.
    var count: Int { entries.withLockedValue { $0.count } }

    /// The answer for `key` with TTLs lowered by its age, or `nil` (expired entries are removed).
    func lookup(_ key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> DNSMessage? {
        guard capacity > 0 else { return nil }
        let entry: Entry? = entries.withLockedValue { entries in
            guard let entry = entries[key] else { return nil }
            if Self.age(entry, now: now) >= entry.lifetime {
                entries[key] = nil
                return nil
            }
            return entry
        }
        guard let entry else { return nil }
        let age = Self.age(entry, now: now)
        var response = entry.response
        func aged(_ records: inout [DNSRecord]) {
            for index in records.indices { records[index].ttl = records[index].ttl > age ? records[index].ttl - age : 0 }
        }
        aged(&response.answers)
        aged(&response.authorities)
        aged(&response.additionals)
        return response
    }

    /// Stores an upstream response when it may be cached; returns the number of entries then
    /// (`nil`: not cached).
    @discardableResult
    func store(_ response: DNSMessage, for key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Int? {
        guard capacity > 0, let lifetime = Self.lifetime(of: response), lifetime > 0 else { return nil }
        let entry = Entry(response: response, storedAt: now, lifetime: min(lifetime, maximumTTL))
        return entries.withLockedValue { entries in
            if entries.count >= capacity && entries[key] == nil { Self.makeRoom(&entries, capacity: capacity, now: now) }
            entries[key] = entry
            return entries.count
        }
    }

    /// Drops every entry (a new engine does not change upstream answers, but the tests and a
    /// SIGHUP reload start clean).
    func removeAll() {
        entries.withLockedValue { $0.removeAll() }
    }

    /// How long a response may be cached, or `nil` when it may not.
    static func lifetime(of response: DNSMessage) -> UInt32? {
        guard !response.header.flags.isTruncated else { return nil }
        let code = response.responseCode
        let records = response.answers + response.authorities + response.additionals
        if code == .noError && !response.answers.isEmpty {
            return records.map(\.ttl).min()
        }
        guard code == .noError || code == .nameError else { return nil }
        // Negative: the SOA in the authority section says how long (RFC 2308 §5).
        guard let soaRecord = response.authorities.first(where: { $0.type == .soa }), let soa = soaRecord.soa else { return nil }
        return min(soaRecord.ttl, soa.minimum)
    }

    @inline(__always)
    private static func age(_ entry: Entry, now: UInt64) -> UInt32 {
        UInt32(clamping: (now &- entry.storedAt) / 1_000_000_000)
    }

    private static func makeRoom(_ entries: inout [Key: Entry], capacity: Int, now: UInt64) {
        let expired = entries.filter { age($0.value, now: now) >= $0.value.lifetime }.map(\.key)
        for key in expired { entries[key] = nil }
        guard entries.count >= capacity else { return }
        // Still full: forget an eighth, in the dictionary's (arbitrary) order.
        let victims = entries.keys.prefix(max(1, capacity / 8))
        for key in Array(victims) { entries[key] = nil }
    }
}
