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

    /// A configuration with the defaults of `pepper dns serve`.
    public init(
        listen: ListenAddress, upstreams: [UpstreamAddress], access: ClientAccess = ClientAccess(),
        upstreamTimeout: TimeAmount = .milliseconds(1500), cacheCapacity: Int = 10_000, threads: Int = System.coreCount,
        trustedCertificates: [String] = [], serveStale: ServeStale = ServeStale()
    ) {
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

/// Why the server could not start.
public enum DNSServerError: Error, Sendable, CustomStringConvertible {
    /// No upstream was given.
    case noUpstream
    /// The address is taken, or not ours.
    case cannotListen(String, String)

    public var description: String {
        switch self {
        case .noUpstream: return "no upstream: give --upstream IP[:PORT], tls://HOST or https://HOST/dns-query"
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
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
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    let resolver: QueryResolver
    private let logger: Logger
    private let stopped = NIOLockedValueBox(false)

    private init(
        configuration: DNSServerConfiguration, localAddress: ListenAddress, group: MultiThreadedEventLoopGroup, channels: [Channel],
        resolver: QueryResolver, logger: Logger
    ) {
        self.configuration = configuration
        self.localAddress = localAddress
        self.group = group
        self.channels = channels
        self.resolver = resolver
        self.logger = logger
    }

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
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        do {
            let forwarder = try await UpstreamForwarder.make(
                upstreams: configuration.upstreams, timeout: configuration.upstreamTimeout,
                trustedCertificates: configuration.trustedCertificates, group: group, logger: logger, metrics: metrics)
            let resolver = QueryResolver(
                filters: filters, cache: ResponseCache(capacity: configuration.cacheCapacity, serveStale: configuration.serveStale),
                forwarder: forwarder,
                access: configuration.access, logger: logger, observer: observer, picket: picket, metrics: metrics)
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
                    let tcp = try await ServerBootstrap(group: group)
                        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                        .childChannelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandlers([
                                    IdleStateHandler(readTimeout: .seconds(10)),
                                    ByteToMessageHandler(DNSLengthPrefixedFrameDecoder()),
                                    TCPQueryHandler(resolver: resolver),
                                ])
                            }
                        }
                        .bind(host: host, port: port).get()
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
            logger.info("listening", metadata: ["address": "\(local)", "upstreams": "\(configuration.upstreams.map(\.description))"])
            return DNSServer(
                configuration: configuration, localAddress: local, group: group, channels: channels, resolver: resolver, logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            throw error
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
        switch resolver.step(envelope.data, from: remote, overTCP: false) {
        case .drop:
            return
        case .reply(let bytes):
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: remote, data: buffer)), promise: nil)
            pendingFlush = true
            if let start { metrics?.answerTook(since: start, overTCP: false) }
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
                if let start { metrics?.answerTook(since: start, overTCP: false) }
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

/// Answers queries on one TCP connection (several may be in flight; answers go back as they
/// are ready, RFC 7766 §6.2.1.1).
final class TCPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let resolver: QueryResolver

    init(resolver: QueryResolver) {
        self.resolver = resolver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let channel = context.channel
        guard let remote = channel.remoteAddress else { return }
        let metrics = resolver.metrics
        let start = metrics == nil ? nil : NIODeadline.now()
        let resolver = self.resolver
        resolver.started()
        resolver.answer(frame, from: remote, overTCP: true, on: context.eventLoop).whenComplete { result in
            defer { resolver.finished() }
            guard case .success(let answer) = result, let bytes = answer else {
                channel.close(promise: nil)
                return
            }
            var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
            buffer.writeInteger(UInt16(bytes.count))
            buffer.writeBytes(bytes)
            channel.writeAndFlush(buffer, promise: nil)
            if let start { metrics?.answerTook(since: start, overTCP: true) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
