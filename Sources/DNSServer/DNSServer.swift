import DNSFilter
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// How a ``DNSServer`` runs.
public struct DNSServerConfiguration: Sendable {
    /// Where to answer, UDP and TCP (port 0: any free port, for tests).
    public var listen: ListenAddress
    /// The resolvers to forward to.
    public var upstreams: [UpstreamAddress]
    /// Clients allowed besides loopback.
    public var access: ClientAccess
    /// How long to wait for one upstream before trying the next.
    public var upstreamTimeout: TimeAmount
    /// The most answers cached (0: no cache).
    public var cacheCapacity: Int
    /// Event-loop threads; each gets its own UDP socket on the port (SO_REUSEPORT).
    public var threads: Int
    /// PEM files of certificate authorities trusted for DNS-over-TLS and DNS-over-HTTPS
    /// upstreams, besides the system's.
    public var trustedCertificates: [String]
    /// Serve-stale (RFC 8767) and the client response timer: how long a client waits for the
    /// upstreams before it gets an expired answer or SERVFAIL.
    public var serveStale: ServeStale
    /// DNS over TLS and HTTPS (`nil`: plain DNS only).
    public var encrypted: EncryptedListenersConfiguration?
    /// Which named devices are answered over DNS over TLS and HTTPS.
    public var devices: DeviceAccess
    /// Queries per second per client (`nil`: no limit).
    public var rateLimit: DNSRateLimit?
    /// Open TCP, DNS-over-TLS and DNS-over-HTTPS connections per client address (0: no limit).
    public var connectionsPerClient: Int
    /// How long a stream connection may stay without a query before it is closed.
    public var idleTimeout: TimeAmount

    /// A configuration with the defaults of `pepper dns serve`.
    public init(
        listen: ListenAddress, upstreams: [UpstreamAddress], access: ClientAccess = ClientAccess(),
        upstreamTimeout: TimeAmount = .milliseconds(1500), cacheCapacity: Int = 10_000, threads: Int = System.coreCount,
        trustedCertificates: [String] = [], serveStale: ServeStale = ServeStale(), encrypted: EncryptedListenersConfiguration? = nil,
        devices: DeviceAccess = DeviceAccess(), rateLimit: DNSRateLimit? = nil, connectionsPerClient: Int = 100,
        idleTimeout: TimeAmount = .seconds(30)
    ) {
        self.encrypted = encrypted
        self.devices = devices
        self.rateLimit = rateLimit
        self.connectionsPerClient = connectionsPerClient
        self.idleTimeout = idleTimeout
        self.trustedCertificates = trustedCertificates
        self.serveStale = serveStale
        self.listen = listen
        self.upstreams = upstreams
        self.access = access
        self.upstreamTimeout = upstreamTimeout
        self.cacheCapacity = cacheCapacity
        self.threads = max(1, threads)
    }
}

/// Queries per second each client may send (see ``ClientRateLimiter``).
public struct DNSRateLimit: Sendable, Hashable {
    /// Queries per second in the long run.
    public var queriesPerSecond: Double
    /// Queries at once after an idle time.
    public var burst: Double
    /// What queries over the limit get.
    public var action: ClientRateLimiter.Action

    /// A limit of `queriesPerSecond`, `burst` at once (twice the rate by default).
    public init(queriesPerSecond: Double, burst: Double? = nil, action: ClientRateLimiter.Action = .refuse) {
        self.queriesPerSecond = queriesPerSecond
        self.burst = burst ?? queriesPerSecond * 2
        self.action = action
    }
}

/// Why the server could not start.
public enum DNSServerError: Error, Sendable, CustomStringConvertible {
    /// No upstream was given.
    case noUpstream
    /// The address is taken, or not ours.
    case cannotListen(String, String)
    /// The TLS certificate or key file (named) cannot be used, and why.
    case badCertificate(String, String)

    public var description: String {
        switch self {
        case .noUpstream: return "no upstream: give --upstream IP[:PORT], tls://HOST or https://HOST/dns-query"
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        case .badCertificate(let file, let reason): return "\(file): \(reason)"
        }
    }
}

/// A filtering DNS forwarder on SwiftNIO: UDP and TCP on one address, blocked names answered
/// by the ``DNSQueryFilter``, everything else forwarded to the upstreams through a cache.
///
/// ``start(configuration:filters:logger:observer:picket:metrics:)`` binds and starts
/// answering; as a `Service` (in a `ServiceGroup`), it answers until graceful shutdown, then
/// stops as ``shutdown()`` does: no new queries, the ones in flight answered.
public final class DNSServer: Service {
    /// The configuration it was started with.
    public let configuration: DNSServerConfiguration
    /// The UDP address actually bound (the port is chosen when the configuration says 0).
    public let localAddress: ListenAddress
    /// The DNS-over-TLS address bound, when served.
    public let tlsAddress: ListenAddress?
    /// The DNS-over-HTTPS address bound, when served.
    public let httpsAddress: ListenAddress?
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    let resolver: QueryResolver
    let connections: ConnectionLimiter
    private let certificateCheck: RepeatedTask?
    private let logger: Logger
    private let stopped = NIOLockedValueBox(false)

    private init(
        configuration: DNSServerConfiguration, localAddress: ListenAddress, tlsAddress: ListenAddress?, httpsAddress: ListenAddress?,
        group: MultiThreadedEventLoopGroup, channels: [Channel], resolver: QueryResolver, connections: ConnectionLimiter,
        certificateCheck: RepeatedTask?, logger: Logger
    ) {
        self.configuration = configuration
        self.localAddress = localAddress
        self.tlsAddress = tlsAddress
        self.httpsAddress = httpsAddress
        self.group = group
        self.channels = channels
        self.resolver = resolver
        self.connections = connections
        self.certificateCheck = certificateCheck
        self.logger = logger
    }

    /// What devices are given to reach this server's DNS over TLS and HTTPS (with the ports
    /// bound), or `nil` when it serves neither.
    public var encryptedEndpoint: EncryptedDNSEndpoint? {
        guard let encrypted = configuration.encrypted else { return nil }
        return EncryptedDNSEndpoint(serverName: encrypted.serverName, httpsPort: httpsAddress?.port, tlsPort: tlsAddress?.port)
    }

    /// How often the certificate files are checked for a renewal.
    static let certificateCheckInterval = TimeAmount.seconds(2)

    /// Datagrams read per system call.
    static let datagramsPerRead = 32

    /// Binds the sockets and starts answering. `picket` sends struck employers' names to the
    /// block page (give it only when one runs, see ``startBlockPage(at:)``).
    public static func start(
        configuration: DNSServerConfiguration, filter: DNSQueryFilter, logger: Logger = Logger(label: "pepper.dns"),
        observer: (@Sendable (QueryEvent) -> Void)? = nil, picket: PicketGate? = nil, metrics: DNSServerMetrics? = nil
    ) async throws -> DNSServer {
        try await start(
            configuration: configuration, filters: DNSFilterSet(defaultFilter: filter), logger: logger, observer: observer, picket: picket,
            metrics: metrics)
    }

    /// Binds the sockets and starts answering, each client with the filter of its group (see
    /// ``DNSFilterSet``). Clients in a group are answered even outside ``ClientAccess``.
    /// `metrics` counts queries, latencies, cache use and upstream errors (its upstream labels
    /// in the order of `configuration.upstreams`).
    public static func start(
        configuration: DNSServerConfiguration, filters: DNSFilterSet, logger: Logger = Logger(label: "pepper.dns"),
        observer: (@Sendable (QueryEvent) -> Void)? = nil, picket: PicketGate? = nil, metrics: DNSServerMetrics? = nil
    ) async throws -> DNSServer {
        guard !configuration.upstreams.isEmpty else { throw DNSServerError.noUpstream }
        // A certificate that cannot be used stops the start before any socket is bound.
        let certificate = try configuration.encrypted.map { encrypted throws(DNSServerError) in
            try ServerCertificate(certificateFile: encrypted.certificateFile, keyFile: encrypted.keyFile)
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        do {
            let forwarder = try await UpstreamForwarder.make(
                upstreams: configuration.upstreams, timeout: configuration.upstreamTimeout,
                trustedCertificates: configuration.trustedCertificates, group: group, logger: logger, metrics: metrics)
            let resolver = QueryResolver(
                filters: filters, cache: ResponseCache(capacity: configuration.cacheCapacity, serveStale: configuration.serveStale),
                forwarder: forwarder,
                access: configuration.access, devices: configuration.devices,
                rateLimiter: configuration.rateLimit.map {
                    ClientRateLimiter(queriesPerSecond: $0.queriesPerSecond, burst: $0.burst, action: $0.action)
                }, logger: logger, observer: observer, picket: picket, metrics: metrics)
            let connections = ConnectionLimiter(perClient: configuration.connectionsPerClient)
            let streams = StreamListenerParts(resolver: resolver, limiter: connections, idleTimeout: configuration.idleTimeout)
            let host = configuration.listen.host.description
            var channels: [Channel] = []
            var port = configuration.listen.port
            // With port 0 the kernel picks a UDP port, which may be taken for TCP: pick again.
            var attempts = configuration.listen.port == 0 ? 8 : 1
            while true {
                port = configuration.listen.port
                do {
                    channels = []
                    // One UDP socket per thread on the same port: the kernel spreads clients over them.
                    for _ in 0..<configuration.threads {
                        let channel = try await DatagramBootstrap(group: group)
                            .channelOption(.socketOption(.so_reuseaddr), value: 1)
                            .channelOption(ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_REUSEPORT)), value: 1)
                            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                            // Up to 32 datagrams per read (recvmmsg). NIO splits one receive buffer
                            // evenly between them: 2 kB each, or longer queries would be cut short.
                            .channelOption(.datagramVectorReadMessageCount, value: Self.datagramsPerRead)
                            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.datagramsPerRead * 2048))
                            .channelInitializer { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(UDPQueryHandler(resolver: resolver))
                                }
                            }
                            .bind(host: host, port: port).get()
                        if port == 0 { port = channel.localAddress?.port ?? 0 }
                        channels.append(channel)
                    }
                    let tcp = try await streams.bind(ListenAddress(host: configuration.listen.host, port: port), group: group) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandlers([
                                ByteToMessageHandler(DNSLengthPrefixedFrameDecoder()), TCPQueryHandler(resolver: resolver),
                            ])
                        }
                    }
                    channels.append(tcp)
                    break
                } catch {
                    for channel in channels { try? await channel.close() }
                    attempts -= 1
                    guard attempts > 0 else {
                        await forwarder.close()
                        throw DNSServerError.cannotListen(
                            ListenAddress(host: configuration.listen.host, port: port).description, Self.reason(error))
                    }
                }
            }
            let local = ListenAddress(host: configuration.listen.host, port: port)
            var tlsAddress: ListenAddress?
            var httpsAddress: ListenAddress?
            if let encrypted = configuration.encrypted, let certificate {
                let endpoint = EncryptedDNSEndpoint(serverName: encrypted.serverName)
                do {
                    if let address = encrypted.tlsListen {
                        let channel = try await bindStream(address, "DNS over TLS") {
                            try await streams.bind(
                                address, group: group, initializer: streams.dnsOverTLS(certificate: certificate, endpoint: endpoint))
                        }
                        channels.append(channel)
                        tlsAddress = ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
                    }
                    if let address = encrypted.httpsListen {
                        let channel = try await bindStream(address, "DNS over HTTPS") {
                            try await streams.bind(address, group: group, initializer: streams.dnsOverHTTPS(certificate: certificate))
                        }
                        channels.append(channel)
                        httpsAddress = ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
                    }
                } catch {
                    for channel in channels { try? await channel.close() }
                    await forwarder.close()
                    throw error
                }
            }
            // A renewed certificate (e.g. by certbot) is used by the next connection.
            let certificateCheck = certificate.map { certificate in
                group.next().scheduleRepeatedTask(initialDelay: certificateCheckInterval, delay: certificateCheckInterval) { _ in
                    do {
                        if try certificate.reloadIfChanged() {
                            logger.info("certificate reloaded", metadata: ["file": "\(certificate.certificateFile)"])
                        }
                    } catch {
                        logger.error("renewed certificate cannot be used, keeping the one in use", metadata: ["error": "\(error)"])
                    }
                }
            }
            logger.info("listening", metadata: ["address": "\(local)", "upstreams": "\(configuration.upstreams.map(\.description))"])
            return DNSServer(
                configuration: configuration, localAddress: local, tlsAddress: tlsAddress, httpsAddress: httpsAddress, group: group,
                channels: channels, resolver: resolver, connections: connections, certificateCheck: certificateCheck, logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Binds one stream listener, its failure said as ``DNSServerError/cannotListen(_:_:)``.
    private static func bindStream(
        _ address: ListenAddress, _ what: String, _ bind: () async throws -> Channel
    ) async throws(DNSServerError) -> Channel {
        do {
            return try await bind()
        } catch {
            throw .cannotListen("\(address) (\(what))", reason(error))
        }
    }

    /// Puts a new default filter in place without dropping queries (client groups keep theirs).
    public func replaceFilter(_ filter: DNSQueryFilter) {
        var filters = resolver.filters
        filters.defaultFilter = filter
        resolver.replaceFilters(filters)
    }

    /// Puts new filters in place, client groups included, without dropping queries.
    public func replaceFilters(_ filters: DNSFilterSet) {
        resolver.replaceFilters(filters)
    }

    /// The default filter in use (clients in no group).
    public var filter: DNSQueryFilter { resolver.filters.defaultFilter }

    /// The filters in use, client groups included.
    public var filters: DNSFilterSet { resolver.filters }

    /// Starts the block page on `address`, on this server's threads, explaining names with the
    /// filter in use at each request.
    public func startBlockPage(at address: ListenAddress) async throws -> BlockPageServer {
        let resolver = self.resolver
        return try await BlockPageServer.start(address: address, group: group, picket: resolver.picket) { client in
            resolver.filters.filter(for: client)
        }
    }

    /// Answers cached right now.
    public var cachedAnswers: Int { resolver.cache.count }

    /// Answers until graceful shutdown (or cancellation), then shuts down.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Stops reading queries, answers the ones in flight (waiting at most as long as every
    /// upstream attempt could take), then closes the sockets and ends the threads. Calling it
    /// again does nothing.
    public func shutdown() async {
        let first = stopped.withLockedValue { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // The sockets stay open (answers go out through them) but read nothing more.
        certificateCheck?.cancel()
        for channel in channels { try? await channel.setOption(.autoRead, value: false).get() }
        let attempts = max(2, configuration.upstreams.count)
        let left = await resolver.drain(until: .now() + configuration.upstreamTimeout * Int64(attempts) + .milliseconds(200))
        if left > 0 { logger.warning("stopping with queries unanswered", metadata: ["queries": "\(left)"]) }
        for channel in channels { try? await channel.close() }
        await resolver.forwarder.close()
        try? await group.shutdownGracefully()
        logger.info("stopped")
    }

    /// A short reason for a bind error (`address already in use`).
    static func reason(_ error: Error) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE: return "address already in use"
            case EACCES: return "permission denied (ports below 1024 need privileges)"
            case EADDRNOTAVAIL: return "no such local address"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

/// Answers UDP queries. Answers decided at once (blocked, cached, refused) are written as the
/// datagrams of one read burst arrive and flushed together at the end of the burst (NIO sends
/// them with one `sendmmsg`); forwarded answers are flushed when they come.
final class UDPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>
    let resolver: QueryResolver
    private var pendingFlush = false

    init(resolver: QueryResolver) {
        self.resolver = resolver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let remote = envelope.remoteAddress
        let metrics = resolver.metrics
        let start = metrics == nil ? nil : NIODeadline.now()
        let client = DNSClient(address: QueryResolver.address(of: remote), transport: .udp)
        switch resolver.step(envelope.data, from: client) {
        case .drop:
            return
        case .reply(let bytes):
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: remote, data: buffer)), promise: nil)
            pendingFlush = true
            if let start { metrics?.answerTook(since: start, transport: .udp) }
        case .forward(let forwarding):
            let channel = context.channel
            let resolver = self.resolver
            resolver.started()
            resolver.forward(forwarding, on: context.eventLoop).whenComplete { result in
                defer { resolver.finished() }
                guard case .success(let bytes) = result else { return }
                var buffer = channel.allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: nil)
                if let start { metrics?.answerTook(since: start, transport: .udp) }
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pendingFlush {
            pendingFlush = false
            context.flush()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A failed send to one client (e.g. ICMP unreachable) must not close the server socket.
    }
}

/// Answers queries on one TCP or DNS-over-TLS connection (several may be in flight; answers go
/// back as they are ready, RFC 7766 §6.2.1.1, RFC 7858 §3.3). Answers decided at once (blocked,
/// cached) while a read burst is handled are flushed together at its end: over TLS one record
/// and one system call for many answers, instead of one each (nearly half the CPU under load,
/// bench/encrypted-dns.sh).
final class TCPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let resolver: QueryResolver
    let transport: DNSTransport
    /// The device named by the TLS server name, if any.
    let device: DNSDeviceName?
    /// Whether a read burst is being handled (answers are then flushed at its end).
    private var reading = false
    private var pendingFlush = false

    init(resolver: QueryResolver, transport: DNSTransport = .tcp, device: DNSDeviceName? = nil) {
        self.resolver = resolver
        self.transport = transport
        self.device = device
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let channel = context.channel
        guard let remote = channel.remoteAddress else { return }
        let metrics = resolver.metrics
        let start = metrics == nil ? nil : NIODeadline.now()
        let resolver = self.resolver
        let client = DNSClient(address: QueryResolver.address(of: remote), transport: transport, device: device)
        reading = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        resolver.started()
        // An answer decided at once completes this future before `answer` returns, inside this
        // read: it is written now and flushed with the burst; a forwarded one is flushed alone.
        resolver.answer(frame, from: client, on: context.eventLoop).whenComplete { result in
            defer { resolver.finished() }
            guard case .success(let answer) = result, let bytes = answer else {
                channel.close(promise: nil)
                return
            }
            var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
            buffer.writeInteger(UInt16(bytes.count))
            buffer.writeBytes(bytes)
            let handler = loopBound.value
            if handler.reading {
                channel.write(buffer, promise: nil)
                handler.pendingFlush = true
            } else {
                channel.writeAndFlush(buffer, promise: nil)
            }
            if let start { metrics?.answerTook(since: start, transport: client.transport) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        if pendingFlush {
            pendingFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
