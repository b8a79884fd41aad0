import DNSFilter
import NIOConcurrencyHelpers
import NIOCore

/// Upstream answers kept for their TTL (RFC 1035 §7.4, RFC 2181 §8): an answer is cached for
/// the smallest TTL of its records; a negative answer (NXDOMAIN, or no data) for the SOA's
/// minimum, bounded by the SOA's own TTL (RFC 2308 §5). Answers without an SOA and failures are
/// not cached. A hit returns the records with their TTLs lowered by the time spent in the cache.
///
/// Serve-stale (RFC 8767): an answer is kept ``ServeStale/maximumStale`` past its TTL, so that
/// when the upstreams cannot refresh it, it is still given (with ``ServeStale/staleTTL``). A
/// failed refresh is remembered for ``ServeStale/failureRecheck``: meanwhile the stale answer is
/// given at once, and the upstreams are asked again in the background at most once per
/// ``ServeStale/refreshInterval`` (``claimRefresh(_:now:)``), so that the name recovers within
/// about a second of the upstreams' return.
///
/// Bounded: when full, entries past their stale limit go first, then expired ones, then
/// arbitrary ones (a cache is allowed to forget).
final class ResponseCache: Sendable {
    /// What a cached answer is looked up by: the lower-cased question and the query's DO and CD
    /// bits, which are also what the upstream was asked with. DO: DNSSEC records only go to
    /// clients that asked for them (RFC 3225 §3, RFC 4035 §3.2.1). CD: an answer the upstream
    /// did not validate (CD=1, possibly bogus) must not reach a client that relies on its
    /// validation, which gets SERVFAIL for bogus data (RFC 4035 §3.2.2).
    struct Key: Hashable, Sendable {
        var name: [UInt8]
        var type: UInt16
        var recordClass: UInt16
        var dnssecOK: Bool
        var checkingDisabled: Bool

        init(_ question: DNSQuestion, dnssecOK: Bool, checkingDisabled: Bool = false) {
            name = question.name.lowercased().wire
            type = question.type.rawValue
            recordClass = question.recordClass.rawValue
            self.dnssecOK = dnssecOK
            self.checkingDisabled = checkingDisabled
        }
    }

    /// A cached answer: the upstream's response (header flags and sections).
    struct Entry: Sendable {
        var response: DNSMessage
        var storedAt: UInt64
        var lifetime: UInt32
        /// When a refresh of this expired answer last failed (uptime nanoseconds).
        var failedRefreshAt: UInt64?
        /// When the last background refresh started.
        var refreshStartedAt: UInt64?
    }

    /// What a lookup found.
    enum Lookup {
        /// A live answer, TTLs lowered by its age.
        case fresh(DNSMessage)
        /// An expired answer within the stale limit, TTLs set to the stale TTL; `recheck` is
        /// false while a failed refresh is recent (answer at once; refresh in the background).
        case stale(DNSMessage, recheck: Bool)
        /// Nothing usable.
        case miss

        /// The live answer, when there is one.
        var fresh: DNSMessage? {
            if case .fresh(let response) = self { return response }
            return nil
        }
    }

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])
    /// The most entries kept.
    let capacity: Int
    /// The longest any answer is kept, whatever its TTL (a day, as common resolvers do).
    let maximumTTL: UInt32
    /// How stale answers are kept and given (``ServeStale/off``: not at all).
    let serveStale: ServeStale

    init(capacity: Int, maximumTTL: UInt32 = 86_400, serveStale: ServeStale = .off) {
        self.capacity = capacity
        self.maximumTTL = maximumTTL
        self.serveStale = serveStale
    }

    /// The number of cached answers.
    var count: Int { entries.withLockedValue { $0.count } }

    /// The live answer for `key` with TTLs lowered by its age, or `nil`.
    func lookup(_ key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> DNSMessage? {
        find(key, now: now).fresh
    }

    /// The answer for `key`: live, stale (when serve-stale keeps it), or none. Entries past the
    /// stale limit are removed.
    func find(_ key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Lookup {
        guard capacity > 0 else { return .miss }
        let serveStale = self.serveStale
        let entry: Entry? = entries.withLockedValue { entries in
            guard let entry = entries[key] else { return nil }
            if Self.age(entry, now: now) >= UInt64(entry.lifetime) + UInt64(serveStale.maximumStale) {
                entries[key] = nil
                return nil
            }
            return entry
        }
        guard let entry else { return .miss }
        let age = Self.age(entry, now: now)
        var response = entry.response
        if age >= UInt64(entry.lifetime) {
            guard serveStale.enabled else { return .miss }
            // RFC 8767 §4: stale records go out with the stale TTL (30 s recommended).
            func stale(_ records: inout [DNSRecord]) {
                for index in records.indices { records[index].ttl = serveStale.staleTTL }
            }
            stale(&response.answers)
            stale(&response.authorities)
            stale(&response.additionals)
            let recentFailure = entry.failedRefreshAt.map { (now &- $0) < serveStale.failureRecheck.nanoseconds } ?? false
            return .stale(response, recheck: !recentFailure)
        }
        let ttlAge = UInt32(clamping: age)
        func aged(_ records: inout [DNSRecord]) {
            for index in records.indices { records[index].ttl = records[index].ttl > ttlAge ? records[index].ttl - ttlAge : 0 }
        }
        aged(&response.answers)
        aged(&response.authorities)
        aged(&response.additionals)
        return .fresh(response)
    }

    /// Notes that refreshing the expired answer of `key` failed: for ``ServeStale/failureRecheck``
    /// its stale answer is given without waiting for the upstreams.
    func refreshFailed(_ key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        entries.withLockedValue { entries in entries[key]?.failedRefreshAt = now }
    }

    /// Whether the caller should refresh the stale answer of `key` in the background now: true
    /// at most once per ``ServeStale/refreshInterval`` per answer, so an outage costs the
    /// upstreams one query per stale name and interval, whatever the clients ask.
    func claimRefresh(_ key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Bool {
        let interval = UInt64(serveStale.refreshInterval.nanoseconds)
        return entries.withLockedValue { entries in
            guard var entry = entries[key] else { return false }
            if let started = entry.refreshStartedAt, now &- started < interval { return false }
            entry.refreshStartedAt = now
            entries[key] = entry
            return true
        }
    }

    /// Stores an upstream response when it may be cached; returns the number of entries then
    /// (`nil`: not cached).
    @discardableResult
    func store(_ response: DNSMessage, for key: Key, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Int? {
        guard capacity > 0, let lifetime = Self.lifetime(of: response), lifetime > 0 else { return nil }
        let entry = Entry(response: response, storedAt: now, lifetime: min(lifetime, maximumTTL))
        let maximumStale = serveStale.maximumStale
        return entries.withLockedValue { entries in
            if entries.count >= capacity && entries[key] == nil {
                Self.makeRoom(&entries, capacity: capacity, now: now, maximumStale: maximumStale)
            }
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

    /// Seconds since the entry was stored.
    @inline(__always)
    private static func age(_ entry: Entry, now: UInt64) -> UInt64 {
        (now &- entry.storedAt) / 1_000_000_000
    }

    private static func makeRoom(_ entries: inout [Key: Entry], capacity: Int, now: UInt64, maximumStale: UInt32) {
        // Past the stale limit first, then merely expired ones (kept only to be served stale).
        let useless = entries.filter { age($0.value, now: now) >= UInt64($0.value.lifetime) + UInt64(maximumStale) }.map(\.key)
        for key in useless { entries[key] = nil }
        guard entries.count >= capacity else { return }
        let expired = entries.filter { age($0.value, now: now) >= UInt64($0.value.lifetime) }.map(\.key)
        for key in expired { entries[key] = nil }
        guard entries.count >= capacity else { return }
        // Still full: forget an eighth, in the dictionary's (arbitrary) order.
        let victims = entries.keys.prefix(max(1, capacity / 8))
        for key in Array(victims) { entries[key] = nil }
    }
}

/// Serve-stale (RFC 8767): what a ``ResponseCache`` keeps past the TTL and how the server uses it
/// when the upstreams do not answer.
public struct ServeStale: Sendable, Hashable {
    /// Whether expired answers are kept and given at all.
    public var enabled: Bool
    /// The TTL of a stale answer's records (RFC 8767 recommends 30 s).
    public var staleTTL: UInt32
    /// How long past its TTL an answer may still be given (RFC 8767 suggests 1 to 3 days).
    public var maximumStale: UInt32
    /// How long a client waits for the upstreams before it is given the stale answer, or
    /// SERVFAIL when there is none (RFC 8767's client response timer, 1.8 s recommended): the
    /// bound on every forwarded answer while the upstreams are down.
    public var clientResponseTimeout: TimeAmount
    /// After a refresh failed, how long the stale answer is given at once, without a client
    /// waiting for the upstreams (RFC 8767's failure recheck timer, 30 s recommended).
    public var failureRecheck: TimeAmount
    /// Meanwhile, how often a stale answer is refreshed in the background (one upstream query
    /// per name and interval): how soon a name recovers once the upstreams are back.
    public var refreshInterval: TimeAmount

    /// The given settings; the defaults are RFC 8767's recommendations and a one-day limit.
    public init(
        enabled: Bool = true, staleTTL: UInt32 = 30, maximumStale: UInt32 = 86_400,
        clientResponseTimeout: TimeAmount = .milliseconds(1_800),
        failureRecheck: TimeAmount = .seconds(30), refreshInterval: TimeAmount = .seconds(1)
    ) {
        self.enabled = enabled
        self.staleTTL = staleTTL
        self.maximumStale = maximumStale
        self.clientResponseTimeout = clientResponseTimeout
        self.failureRecheck = failureRecheck
        self.refreshInterval = refreshInterval
    }

    /// No stale answers; a client still gets SERVFAIL after ``clientResponseTimeout``.
    public static let off = ServeStale(enabled: false, maximumStale: 0)
}
