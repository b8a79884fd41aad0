import DNSFilter
import FilterEngine
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Storage

/// What happened to one query, for logs and counters: the query log's own type, so that what
/// the resolver decides is stored as it is and every reader asks it (`isBlocked`) rather than
/// reading text.
public typealias QueryOutcome = DNSQueryOutcome

/// How a query reached the server.
public enum DNSTransport: String, Sendable, Hashable, CaseIterable {
    /// Plain DNS over UDP.
    case udp
    /// Plain DNS over TCP (RFC 7766).
    case tcp
    /// DNS over TLS (RFC 7858).
    case tls
    /// DNS over HTTPS (RFC 8484).
    case https

    /// Whether answers may be as long as a DNS message can be (65,535 bytes): every transport
    /// but UDP.
    var isStream: Bool { self != .udp }

    /// Whether it is encrypted, and may carry a device name.
    public var isEncrypted: Bool { self == .tls || self == .https }
}

/// Who asks: the address a query came from, how, and the device name it carried (DNS over TLS
/// or HTTPS only, see ``EncryptedDNSEndpoint``).
public struct DNSClient: Sendable, Hashable {
    /// The client's address.
    public var address: IPAddress
    /// The transport.
    public var transport: DNSTransport
    /// The device it named, if any.
    public var device: DNSDeviceName?

    /// A client with the given fields.
    public init(address: IPAddress, transport: DNSTransport, device: DNSDeviceName? = nil) {
        self.address = address
        self.transport = transport
        self.device = device
    }
}

/// One answered query, as reported to the server's observer (the query log).
public struct QueryEvent: Sendable, Hashable {
    /// The client's address.
    public var client: IPAddress
    /// The device it named (DNS over TLS or HTTPS), if any.
    public var device: DNSDeviceName?
    /// How the query came.
    public var transport: DNSTransport
    /// The name asked about, lower case, no final dot.
    public var name: String
    /// The type asked for.
    public var type: DNSRecordType
    /// What was done.
    public var outcome: QueryOutcome
    /// The response code sent.
    public var responseCode: DNSResponseCode

    /// An event with the given fields.
    public init(
        client: IPAddress, device: DNSDeviceName? = nil, transport: DNSTransport = .udp, name: String, type: DNSRecordType,
        outcome: QueryOutcome, responseCode: DNSResponseCode
    ) {
        self.client = client
        self.device = device
        self.transport = transport
        self.name = name
        self.type = type
        self.outcome = outcome
        self.responseCode = responseCode
    }
}

/// Turns a query into its answer: access check, decoding, filtering, cache, upstreams.
final class QueryResolver: Sendable {
    private let filterBox: NIOLockedValueBox<DNSFilterSet>
    let cache: ResponseCache
    let forwarder: UpstreamForwarder
    let access: ClientAccess
    /// Which named devices are answered over DNS over TLS and HTTPS.
    let devices: DeviceAccess
    /// Queries per second per client (off when `nil`).
    let rateLimiter: ClientRateLimiter?
    let logger: Logger
    let observer: (@Sendable (QueryEvent) -> Void)?
    /// Struck employers' names, sent to the block page (only with a block page).
    let picket: PicketGate?
    /// Counters for `--metrics` (none without it: answering then reads no clock).
    let metrics: DNSServerMetrics?
    /// Queries waiting for an upstream (or, over TCP, for any answer): a graceful shutdown
    /// waits for them.
    private let inFlight = NIOLockedValueBox(0)
    /// Whether the upstreams answer at all lately (RFC 8767 serve-stale without waiting).
    let health: UpstreamHealth

    init(
        filters: DNSFilterSet, cache: ResponseCache, forwarder: UpstreamForwarder, access: ClientAccess,
        devices: DeviceAccess = DeviceAccess(), rateLimiter: ClientRateLimiter? = nil, logger: Logger,
        observer: (@Sendable (QueryEvent) -> Void)?, picket: PicketGate? = nil, metrics: DNSServerMetrics? = nil
    ) {
        self.filterBox = NIOLockedValueBox(filters)
        self.cache = cache
        self.forwarder = forwarder
        self.access = access
        self.devices = devices
        self.rateLimiter = rateLimiter
        self.logger = logger
        self.observer = observer
        self.picket = picket
        self.metrics = metrics
        health = UpstreamHealth(recheck: cache.serveStale.failureRecheck)
    }

    /// The filters in use: the default and the client groups'.
    var filters: DNSFilterSet { filterBox.withLockedValue { $0 } }

    /// Notes a query whose answer is not written yet; ``finished()`` when it is.
    func started() {
        inFlight.withLockedValue { $0 += 1 }
    }

    /// The answer of a ``started()`` query was written (or will never be).
    func finished() {
        inFlight.withLockedValue { $0 -= 1 }
    }

    /// Waits until no query is in flight, or until `deadline`; returns how many were left.
    func drain(until deadline: NIODeadline) async -> Int {
        while true {
            let left = inFlight.withLockedValue { $0 }
            if left == 0 || NIODeadline.now() >= deadline { return left }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Puts new filters in place: queries being answered finish with the old ones, the next
    /// ones use the new ones.
    func replaceFilters(_ filters: DNSFilterSet) {
        filterBox.withLockedValue { $0 = filters }
    }

    /// What to do with one query, decided without waiting: answer now, drop, or ask upstream.
    enum Step {
        /// Send these bytes.
        case reply([UInt8])
        /// Send nothing (unreadable packets, stray responses).
        case drop
        /// Ask the upstreams; ``forward(_:on:)`` finishes it.
        case forward(Forwarding)
    }

    /// A query that needs an upstream answer.
    struct Forwarding {
        var query: DNSMessage
        var question: DNSQuestion
        var key: ResponseCache.Key
        var client: DNSClient
        var limit: Int
        /// The expired answer to give if the upstreams do not answer in time.
        var stale: DNSMessage?
    }

    /// The answer to `bytes` from `client`, or `nil` to send nothing.
    func answer(_ bytes: ByteBuffer, from client: DNSClient, on eventLoop: EventLoop) -> EventLoopFuture<[UInt8]?> {
        switch step(bytes, from: client) {
        case .reply(let reply): return eventLoop.makeSucceededFuture(reply)
        case .drop: return eventLoop.makeSucceededFuture(nil)
        case .forward(let forwarding): return forward(forwarding, on: eventLoop).map { $0 }
        }
    }

    /// Everything that can be decided at once: access, decoding, blocking, the cache.
    func step(_ bytes: ByteBuffer, from client: DNSClient) -> Step {
        let clientAddress = client.address
        let transport = client.transport
        let query: DNSMessage
        do {
            query = try bytes.withUnsafeReadableBytes { raw in try DNSMessage(decoding: raw) }
        } catch {
            logger.debug("malformed query", metadata: ["client": "\(clientAddress)", "error": "\(error)"])
            guard let reply = formatError(bytes) else {
                metrics?.dropped()
                return .drop
            }
            metrics?.answered(.malformed, transport: transport)
            return .reply(reply)
        }
        guard !query.header.flags.isResponse else {
            metrics?.dropped()
            return .drop
        }
        let limit = transport.isStream ? 65_535 : query.maximumUDPResponseSize
        // Over the limit: refused (or dropped) before anything costs more, and not logged, so
        // that a flood cannot push the other clients' queries out of the query log.
        if let rateLimiter, !rateLimiter.admits(client) {
            metrics?.rateLimited(transport: transport)
            switch rateLimiter.action {
            case .drop: return .drop
            case .refuse: return .reply(DNSMessage.response(to: query, code: .refused).encoded(maximumSize: limit))
            }
        }
        let filters = self.filters
        guard permits(client, filters) else {
            report(client, query, .refused, .refused)
            return .reply(DNSMessage.response(to: query, code: .refused).encoded(maximumSize: limit))
        }
        guard query.header.flags.opcode == 0 else {
            metrics?.answered(.unsupported, transport: transport)
            return .reply(Self.notImplemented(query).encoded(maximumSize: limit))
        }
        guard query.questions.count == 1, let question = query.questions.first else {
            report(client, query, .malformed, .formatError)
            return .reply(DNSMessage.response(to: query, code: .formatError).encoded(maximumSize: limit))
        }
        if let edns = query.edns, edns.version != 0 {
            // RFC 6891 §6.1.3: BADVERS (16), i.e. extended code 1 with header code 0.
            var response = DNSMessage.response(to: query)
            response.edns = EDNS(udpPayloadSize: DNSMessage.advertisedPayloadSize, extendedResponseCode: 1, dnssecOK: edns.dnssecOK)
            metrics?.answered(.unsupported, transport: transport)
            return .reply(response.encoded(maximumSize: limit))
        }
        let filter = filters.filter(for: clientAddress, device: client.device)
        if filter.decision(for: question.name) == .block {
            // Only blocked names can be a struck employer's (the Picket source compiles to
            // block rules), so other queries never pay for the lookup.
            let employer = picket.flatMap { gate in gate.notice(for: question.name.lowercasedHost).map { (gate, $0) } }
            if let (gate, notice) = employer {
                if !gate.isLetThrough(clientAddress, notice) {
                    let response = gate.noticeResponse(to: query)
                    report(client, query, .blocked, response.responseCode)
                    return .reply(response.encoded(maximumSize: limit))
                }
                // The client chose "Proceed anyway": forwarded like any name.
            } else {
                let response = filter.blockedResponse(to: query)
                report(client, query, .blocked, response.responseCode)
                return .reply(response.encoded(maximumSize: limit))
            }
        }
        // DO and CD are in the key: an answer with DNSSEC records never goes to a client that did
        // not ask for them (RFC 3225 §3, RFC 4035 §3.2.1), and an answer the upstream did not
        // validate (CD=1) never to one that relies on its validation (RFC 4035 §3.2.2).
        let key = ResponseCache.Key(
            question, dnssecOK: query.edns?.dnssecOK ?? false, checkingDisabled: query.header.flags.checkingDisabled)
        var stale: DNSMessage?
        switch cache.find(key) {
        case .fresh(let cached):
            metrics?.cacheLookup(hit: true)
            return .reply(
                respond(to: query, with: cached, filter: filter, client: client, limit: limit, outcome: .cached))
        case .stale(let expired, recheck: false):
            // A refresh failed moments ago: the stale answer at once, and a refresh in the
            // background at most once per interval (the name recovers soon after the upstreams).
            metrics?.cacheLookup(hit: true)
            if cache.claimRefresh(key) { refresh(question, key: key) }
            return .reply(
                respond(to: query, with: expired, filter: filter, client: client, limit: limit, outcome: .stale))
        case .stale(let expired, recheck: true) where health.upstreamsDown():
            // The upstreams are failing for other names: no client should wait on them for
            // this one either. The stale answer at once, a refresh in the background.
            metrics?.cacheLookup(hit: true)
            if cache.claimRefresh(key) { refresh(question, key: key) }
            return .reply(
                respond(to: query, with: expired, filter: filter, client: client, limit: limit, outcome: .stale))
        case .stale(let expired, recheck: true):
            stale = expired
            metrics?.cacheLookup(hit: false)
        case .miss:
            metrics?.cacheLookup(hit: false)
        }
        return .forward(
            Forwarding(query: query, question: question, key: key, client: client, limit: limit, stale: stale))
    }

    /// Whether `client` is answered at all. Plain DNS: addresses of ``ClientAccess`` or of a
    /// client group (naming them says they are expected). DNS over TLS and HTTPS: those too, and
    /// any client naming a known device (``DeviceAccess``), wherever it is; only the latter when
    /// the owner refuses unknown devices.
    private func permits(_ client: DNSClient, _ filters: DNSFilterSet) -> Bool {
        if client.transport.isEncrypted {
            if let device = client.device, devices.knows(device) || filters.names(device) { return true }
            if devices.refuseUnknown { return false }
        }
        return access.permits(client.address) || filters.group(for: client.address) != nil
    }

    /// Asks the upstreams, caches the answer and returns the client's answer. The client waits
    /// at most ``ServeStale/clientResponseTimeout`` (RFC 8767's client response timer): then it
    /// gets the stale answer when there is one, else SERVFAIL, while the upstreams may still
    /// answer and refresh the cache. Every upstream failing gives the same at once.
    func forward(_ forwarding: Forwarding, on eventLoop: EventLoop) -> EventLoopFuture<[UInt8]> {
        let query = forwarding.query
        let promise = eventLoop.makePromise(of: [UInt8].self)
        let answered = NIOLockedValueBox(false)
        /// Answers the client once: whichever of the upstream and the timer comes first.
        @Sendable func answer(_ make: () -> [UInt8]) {
            let first = answered.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { promise.succeed(make()) }
        }
        @Sendable func fallback() -> [UInt8] {
            if let stale = forwarding.stale {
                // No answer in time counts as a failed refresh: the next clients get the stale
                // answer at once instead of each waiting for the timer.
                self.cache.refreshFailed(forwarding.key)
                return self.respond(
                    to: query, with: stale, filter: self.filter(for: forwarding.client), client: forwarding.client,
                    limit: forwarding.limit, outcome: .stale)
            }
            self.report(forwarding.client, query, .failed, .serverFailure)
            return DNSMessage.response(to: query, code: .serverFailure).encoded(maximumSize: forwarding.limit)
        }
        let timer = eventLoop.scheduleTask(in: cache.serveStale.clientResponseTimeout) {
            self.health.failed()
            answer(fallback)
        }
        forwarder.resolve(
            forwarding.question, dnssecOK: forwarding.key.dnssecOK, checkingDisabled: forwarding.key.checkingDisabled, on: eventLoop
        ).whenComplete { result in
            timer.cancel()
            switch result {
            case .success(let upstream):
                self.health.succeeded()
                if let entries = self.cache.store(upstream, for: forwarding.key) { self.metrics?.cacheSize(entries) }
                answer {
                    self.respond(
                        to: query, with: upstream, filter: self.filter(for: forwarding.client), client: forwarding.client,
                        limit: forwarding.limit, outcome: .forwarded)
                }
            case .failure(let error):
                self.health.failed()
                self.logger.warning("upstreams failed", metadata: ["name": "\(forwarding.question.name)", "error": "\(error)"])
                answer(fallback)
            }
        }
        return promise.futureResult
    }

    /// Asks the upstreams for an expired answer without a client waiting: a success replaces
    /// it in the cache, a failure is noted (its stale answer keeps being given at once).
    private func refresh(_ question: DNSQuestion, key: ResponseCache.Key) {
        let eventLoop = forwarder.eventLoop
        forwarder.resolve(question, dnssecOK: key.dnssecOK, checkingDisabled: key.checkingDisabled, on: eventLoop).whenComplete { result in
            switch result {
            case .success(let upstream):
                self.health.succeeded()
                if let entries = self.cache.store(upstream, for: key) { self.metrics?.cacheSize(entries) }
            case .failure:
                self.health.failed()
                self.cache.refreshFailed(key)
            }
        }
    }

    /// The client's answer from an upstream (or cached) response: the client's ID and question
    /// spelling, the upstream's flags and records; blocked when a CNAME leads to a blocked name.
    private func respond(
        to query: DNSMessage, with upstream: DNSMessage, filter: DNSQueryFilter, client: DNSClient, limit: Int, outcome: QueryOutcome
    ) -> [UInt8] {
        if let blocked = filter.blockedNameInAnswers(of: upstream), !filter.isExplicitlyAllowed(query.questions[0].name) {
            logger.debug("CNAME to a blocked name", metadata: ["name": "\(query.questions[0].name)", "target": "\(blocked)"])
            let response = filter.blockedResponse(to: query)
            report(client, query, .blockedCNAME, response.responseCode)
            return response.encoded(maximumSize: limit)
        }
        var response = DNSMessage.response(to: query)
        response.header.flags.isAuthoritative = false
        // The upstream is always asked with AD set, so its answer says whether it validated the
        // data; the client hears it only when it asked with DO or AD (RFC 6840 §5.7, §5.8), so
        // one cached answer serves both kinds of client.
        let wantsAD = query.header.flags.authenticData || query.edns?.dnssecOK == true
        response.header.flags.authenticData = upstream.header.flags.authenticData && wantsAD
        response.header.flags.responseCode = DNSResponseCode(rawValue: upstream.responseCode.rawValue & 0xF)
        // Records owned by the question's name take the client's spelling (cached answers were
        // stored under another client's).
        let asked = query.questions[0].name
        response.answers = upstream.answers.map { record in
            guard record.name != asked, record.name.isEquivalent(to: asked) else { return record }
            var copy = record
            copy.name = asked
            return copy
        }
        response.authorities = upstream.authorities
        response.additionals = upstream.additionals
        report(client, query, outcome, response.responseCode)
        return response.encoded(maximumSize: limit)
    }

    /// The answer to a query of an opcode other than QUERY: NOTIMP (RFC 1035 §4.1.1). Only the
    /// ID, opcode, RD and CD come from the query (RFC 6895 §2 expects just RD and CD copied;
    /// RFC 4035 §3.2.2 requires CD), and DO with EDNS (RFC 3225 §3). RA stays clear: no
    /// recursion is offered for a kind of query this server does not implement (unbound
    /// answers so; dnsmasq sets RA).
    static func notImplemented(_ query: DNSMessage) -> DNSMessage {
        var response = DNSMessage.response(to: query, code: .notImplemented)
        response.header.flags.recursionAvailable = false
        return response
    }

    /// FORMERR for a query whose header can be read (and that is not a response), or NOTIMP
    /// when its opcode is not QUERY (this server cannot tell the format of a kind of query it
    /// does not implement); nothing otherwise.
    private func formatError(_ bytes: ByteBuffer) -> [UInt8]? {
        guard bytes.readableBytes >= DNSHeader.size, let id = bytes.getInteger(at: bytes.readerIndex, as: UInt16.self),
            let rawFlags = bytes.getInteger(at: bytes.readerIndex + 2, as: UInt16.self)
        else { return nil }
        let queryFlags = DNSFlags(rawValue: rawFlags)
        guard !queryFlags.isResponse else { return nil }
        var flags = DNSFlags(rawValue: 0)
        flags.isResponse = true
        flags.opcode = queryFlags.opcode
        flags.recursionDesired = queryFlags.recursionDesired
        flags.checkingDisabled = queryFlags.checkingDisabled
        flags.recursionAvailable = queryFlags.opcode == 0
        flags.responseCode = queryFlags.opcode == 0 ? .formatError : .notImplemented
        return DNSMessage(header: DNSHeader(id: id, flags: flags)).encoded()
    }

    /// The filter of `client`'s group (by device or address), or the default.
    func filter(for client: DNSClient) -> DNSQueryFilter {
        filters.filter(for: client.address, device: client.device)
    }

    private func report(_ client: DNSClient, _ query: DNSMessage, _ outcome: QueryOutcome, _ code: DNSResponseCode) {
        metrics?.answered(DNSServerMetrics.Outcome(outcome), transport: client.transport, device: client.device)
        guard let observer, let question = query.questions.first else { return }
        observer(
            QueryEvent(
                client: client.address, device: client.device, transport: client.transport, name: question.name.lowercasedHost,
                type: question.type, outcome: outcome, responseCode: code))
    }

    /// The IP address of a socket address (`::` for a Unix socket, which never happens here).
    static func address(of socketAddress: SocketAddress) -> IPAddress {
        switch socketAddress {
        case .v4(let address):
            return IPAddress(ipv4: UInt32(bigEndian: address.address.sin_addr.s_addr))
        case .v6(let address):
            var storage = address.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            return IPAddress(ipv6Bytes: bytes)
        default:
            return IPAddress(high: 0, low: 0)
        }
    }
}

/// Whether the upstreams answered lately: down when the last failure (an error, or no answer
/// within the client response timer) is newer than the last answer and less than the failure
/// recheck time old. While they are down, expired answers are given at once (and refreshed in
/// the background) instead of each client waiting for the timer; any answer ends it.
final class UpstreamHealth: Sendable {
    private let state = NIOLockedValueBox<(success: UInt64, failure: UInt64)>((0, 0))
    private let recheck: UInt64

    init(recheck: TimeAmount) {
        self.recheck = UInt64(max(0, recheck.nanoseconds))
    }

    func succeeded(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        state.withLockedValue { $0.success = now }
    }

    func failed(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        state.withLockedValue { $0.failure = now }
    }

    func upstreamsDown(now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Bool {
        let (success, failure) = state.withLockedValue { $0 }
        return failure > success && now &- failure < recheck
    }
}
