import CoreMetrics
import DNSFilter
import NIOConcurrencyHelpers
import NIOCore

/// What `pepper dns serve --metrics` exposes (names and meanings in docs/metrics.md). Every
/// metric is made once, at start, through the given swift-metrics factory: answering a query
/// only increments a counter and records one duration.
public final class DNSServerMetrics: Sendable {
    /// The latency histogram's name.
    public static let answerDurationName = "pepper_dns_answer_duration_seconds"
    /// Its buckets: a blocked or cached answer takes microseconds, a forwarded one an upstream's
    /// round trip, a failed one the upstream timeouts.
    public static let answerDurationBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
    ]

    /// The `outcome` label of `pepper_dns_queries_total`.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The name (or a parent) is blocked.
        case blocked
        /// A CNAME of the upstream answer leads to a blocked name.
        case blockedCNAME = "blocked_cname"
        /// Answered from the cache.
        case cached
        /// Answered by an upstream.
        case forwarded
        /// The client is not allowed.
        case refused
        /// Every upstream failed.
        case servfail
        /// FORMERR: more or fewer than one question.
        case malformed
        /// NOTIMP or BADVERS: an opcode or EDNS version this server does not answer.
        case unsupported
        /// Answered from an expired cache entry: the upstreams did not answer (RFC 8767).
        /// (Last, so that the counters' order in ``index(of:)`` follows `allCases`.)
        case stale

        init(_ outcome: QueryOutcome) {
            switch outcome {
            case .blocked: self = .blocked
            case .blockedCNAME: self = .blockedCNAME
            case .cached: self = .cached
            case .forwarded: self = .forwarded
            case .stale: self = .stale
            case .failed: self = .servfail
            case .refused: self = .refused
            case .malformed: self = .malformed
            }
        }
    }

    /// By outcome, then transport (in ``DNSTransport``'s order).
    private let queries: [[Counter]]
    private let rateLimitedQueries: [Counter]
    private let refusedConnections: Counter
    /// Queries by device name, made as names appear (at most ``maximumDevices``; later ones
    /// count under `other`, so a client inventing names cannot grow the metrics without end).
    private let deviceQueries = NIOLockedValueBox<[DNSDeviceName: Counter]>([:])
    private let otherDeviceQueries: Counter
    private let factory: any MetricsFactory
    /// Device names given their own counter.
    static let maximumDevices = 1_000
    private let answerDuration: [CoreMetrics.Timer]
    private let cacheHits: Counter
    private let cacheMisses: Counter
    private let cacheEntries: Gauge
    private let upstreamErrors: [Counter]
    private let droppedPackets: Counter
    private let reloadsSucceeded: Counter
    private let reloadsFailed: Counter
    private let blockedDomains: Gauge

    /// Metrics made by `factory`, with one `upstream` label value per upstream.
    public init(factory: any MetricsFactory, upstreams: [String]) {
        let transports = DNSTransport.allCases.map(\.rawValue)
        self.factory = factory
        rateLimitedQueries = transports.map { transport in
            Counter(label: "pepper_dns_rate_limited_total", dimensions: [("transport", transport)], factory: factory)
        }
        refusedConnections = Counter(label: "pepper_dns_connections_refused_total", factory: factory)
        otherDeviceQueries = Counter(label: "pepper_dns_device_queries_total", dimensions: [("device", "other")], factory: factory)
        queries = Outcome.allCases.map { outcome in
            transports.map { transport in
                Counter(
                    label: "pepper_dns_queries_total", dimensions: [("outcome", outcome.rawValue), ("transport", transport)],
                    factory: factory)
            }
        }
        answerDuration = transports.map { transport in
            CoreMetrics.Timer(label: Self.answerDurationName, dimensions: [("transport", transport)], factory: factory)
        }
        cacheHits = Counter(label: "pepper_dns_cache_lookups_total", dimensions: [("result", "hit")], factory: factory)
        cacheMisses = Counter(label: "pepper_dns_cache_lookups_total", dimensions: [("result", "miss")], factory: factory)
        cacheEntries = Gauge(label: "pepper_dns_cache_entries", factory: factory)
        upstreamErrors = upstreams.map { upstream in
            Counter(label: "pepper_dns_upstream_errors_total", dimensions: [("upstream", upstream)], factory: factory)
        }
        droppedPackets = Counter(label: "pepper_dns_dropped_packets_total", factory: factory)
        reloadsSucceeded = Counter(label: "pepper_dns_list_reloads_total", dimensions: [("result", "success")], factory: factory)
        reloadsFailed = Counter(label: "pepper_dns_list_reloads_total", dimensions: [("result", "failure")], factory: factory)
        blockedDomains = Gauge(label: "pepper_dns_blocked_domains", factory: factory)
    }

    /// One query answered (`device`: the name it carried, if any).
    func answered(_ outcome: Outcome, transport: DNSTransport, device: DNSDeviceName? = nil) {
        queries[Self.index(of: outcome)][Self.index(of: transport)].increment()
        if let device { counter(for: device).increment() }
    }

    /// The time from a query's arrival to its answer being written.
    func answerTook(since start: NIODeadline, transport: DNSTransport) {
        answerDuration[Self.index(of: transport)].recordNanoseconds((NIODeadline.now() - start).nanoseconds)
    }

    /// A query over its client's rate limit (refused or dropped).
    func rateLimited(transport: DNSTransport) {
        rateLimitedQueries[Self.index(of: transport)].increment()
    }

    /// A connection closed at once: its client had as many open as it may.
    func connectionRefused() {
        refusedConnections.increment()
    }

    private func counter(for device: DNSDeviceName) -> Counter {
        deviceQueries.withLockedValue { counters in
            if let counter = counters[device] { return counter }
            guard counters.count < Self.maximumDevices else { return otherDeviceQueries }
            let counter = Counter(label: "pepper_dns_device_queries_total", dimensions: [("device", device.value)], factory: factory)
            counters[device] = counter
            return counter
        }
    }

    /// A cache lookup.
    func cacheLookup(hit: Bool) {
        (hit ? cacheHits : cacheMisses).increment()
    }

    /// The number of cached answers now.
    func cacheSize(_ entries: Int) {
        cacheEntries.record(entries)
    }

    /// An upstream (by its position in the configuration) failed to answer.
    func upstreamFailed(_ index: Int) {
        guard upstreamErrors.indices.contains(index) else { return }
        upstreamErrors[index].increment()
    }

    /// A packet was dropped unanswered (unreadable, or a response sent to the server).
    func dropped() {
        droppedPackets.increment()
    }

    /// The lists were reloaded (or a reload failed and the old ones stay).
    public func reloaded(succeeded: Bool) {
        (succeeded ? reloadsSucceeded : reloadsFailed).increment()
    }

    /// The names the default filter blocks now (after a start or a reload).
    public func loaded(blockedDomains count: Int) {
        blockedDomains.record(count)
    }

    @inline(__always)
    private static func index(of transport: DNSTransport) -> Int {
        switch transport {
        case .udp: 0
        case .tcp: 1
        case .tls: 2
        case .https: 3
        }
    }

    @inline(__always)
    private static func index(of outcome: Outcome) -> Int {
        switch outcome {
        case .blocked: 0
        case .blockedCNAME: 1
        case .cached: 2
        case .forwarded: 3
        case .refused: 4
        case .servfail: 5
        case .malformed: 6
        case .unsupported: 7
        case .stale: 8
        }
    }
}
