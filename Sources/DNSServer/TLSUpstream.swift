import DNSFilter
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A DNS-over-TLS upstream (RFC 7858): one long-lived TLS connection, opened at the first
/// query and again after the upstream closes it, carrying any number of queries at once, each
/// with its own ID, whose answers may come back in any order (RFC 7766 §6.2.1.1). Reusing the
/// connection matters: a TLS handshake costs a round trip or two and the upstream's CPU.
final class TLSUpstream: Sendable {
    /// How the upstream is shown in logs and errors (`tls://9.9.9.9:853#dns.quad9.net`).
    let label: String
    private let host: String
    private let port: Int
    /// The name the certificate must carry; `nil`: it must carry the IP address connected to.
    private let serverName: String?
    private let context: NIOSSLContext
    private let group: EventLoopGroup
    private let timeout: TimeAmount
    private let current = NIOLockedValueBox<Connection?>(nil)
    private let opened = NIOLockedValueBox(0)

    /// How long a connection with nothing to read stays open.
    static let idleTimeout = TimeAmount.seconds(30)

    /// Queries waiting on one connection, by ID.
    private typealias Waiting = [UInt16: (promise: EventLoopPromise<DNSMessage>, question: DNSQuestion)]

    init(host: String, port: Int, serverName: String?, label: String, context: NIOSSLContext, group: EventLoopGroup, timeout: TimeAmount) {
        self.host = host
        self.port = port
        self.serverName = serverName ?? (IPAddress(host) == nil ? host : nil)
        self.label = label
        self.context = context
        self.group = group
        self.timeout = timeout
    }

    /// Sends `query` (its ID is replaced) and returns the upstream's answer to its question.
    func send(_ query: DNSMessage, on eventLoop: EventLoop) -> EventLoopFuture<DNSMessage> {
        let connection = current.withLockedValue { current in
            if let current, current.isUsable { return current }
            let fresh = Connection(upstream: self)
            current = fresh
            opened.withLockedValue { $0 += 1 }
            return fresh
        }
        return connection.send(query, on: eventLoop)
    }

    /// Connections opened so far (one, while the upstream keeps it open).
    var connectionsOpened: Int { opened.withLockedValue { $0 } }

    /// Closes the connection, failing the queries still waiting on it.
    func close() async {
        let connection = current.withLockedValue { current in
            defer { current = nil }
            return current
        }
        if let channel = try? await connection?.channel.get() { try? await channel.close() }
    }

    /// The TLS client handler for a new connection: SNI and certificate name from
    /// ``serverName``; without one, the certificate must name the IP address.
    private func makeTLSHandler() throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: serverName)
    }

    /// One TLS connection and the queries waiting on it.
    final class Connection: Sendable {
        let channel: EventLoopFuture<Channel>
        let waiting: WaitingQueries

        init(upstream: TLSUpstream) {
            let waiting = WaitingQueries(label: upstream.label, timeout: upstream.timeout)
            self.waiting = waiting
            channel = ClientBootstrap(group: upstream.group.next())
                .connectTimeout(upstream.timeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            try upstream.makeTLSHandler(),
                            // RFC 7858 §3.4: idle connections are the client's to close.
                            IdleStateHandler(readTimeout: TLSUpstream.idleTimeout),
                            ByteToMessageHandler(DNSLengthPrefixedFrameDecoder()),
                            AnswerHandler(waiting: waiting),
                        ])
                    }
                }
                .connect(host: upstream.host, port: upstream.port)
            channel.whenFailure { error in
                waiting.failAll(UpstreamError.connection(upstream.label, "cannot connect: \(error)"))
            }
        }

        /// Whether new queries may still go on this connection.
        var isUsable: Bool { !waiting.isClosed }

        func send(_ query: DNSMessage, on eventLoop: EventLoop) -> EventLoopFuture<DNSMessage> {
            let promise = eventLoop.makePromise(of: DNSMessage.self)
            guard let id = waiting.register(promise, question: query.questions[0]) else {
                promise.fail(UpstreamError.connection(waiting.label, "connection closing or too many queries in flight"))
                return promise.futureResult
            }
            var message = query
            message.header.id = id
            let bytes = message.encoded()
            let waiting = self.waiting
            let channel = self.channel
            let timeoutTask = eventLoop.scheduleTask(in: waiting.timeout) {
                // A connection that stopped answering (a NAT that forgot it, say) is dropped, so
                // that the next query opens a new one instead of waiting here too.
                waiting.failAll(UpstreamError.timeout(waiting.label))
                channel.whenSuccess { $0.close(promise: nil) }
            }
            channel.whenSuccess { channel in
                var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
                buffer.writeInteger(UInt16(bytes.count))
                buffer.writeBytes(bytes)
                channel.writeAndFlush(buffer).whenFailure { error in
                    waiting.fail(id: id, UpstreamError.connection(waiting.label, "TLS: \(error)"))
                }
            }
            return promise.futureResult.always { _ in timeoutTask.cancel() }
        }
    }

    /// The queries sent on one connection and not yet answered, by ID.
    final class WaitingQueries: Sendable {
        let label: String
        let timeout: TimeAmount
        private let state = NIOLockedValueBox<(queries: Waiting, closed: Bool)>(([:], false))

        init(label: String, timeout: TimeAmount) {
            self.label = label
            self.timeout = timeout
        }

        var isClosed: Bool { state.withLockedValue { $0.closed } }

        /// A random ID not in use on this connection, now reserved for `question`; `nil` once
        /// the connection is closed (or, improbably, when no free ID turns up).
        func register(_ promise: EventLoopPromise<DNSMessage>, question: DNSQuestion) -> UInt16? {
            state.withLockedValue { state in
                guard !state.closed else { return nil }
                for _ in 0..<16 {
                    let id = UInt16.random(in: 0...UInt16.max)
                    if state.queries[id] == nil {
                        state.queries[id] = (promise, question)
                        return id
                    }
                }
                return nil
            }
        }

        /// An answer arrived: it settles the query with its ID when it answers that question.
        /// Returns `false` when the frame is unreadable (the stream can no longer be trusted).
        func received(_ frame: ByteBuffer) -> Bool {
            guard let message = try? frame.withUnsafeReadableBytes({ raw in try DNSMessage(decoding: raw) }) else { return false }
            let entry = state.withLockedValue { state -> (promise: EventLoopPromise<DNSMessage>, question: DNSQuestion)? in
                guard let entry = state.queries[message.header.id], UpstreamForwarder.answers(message, entry.question) else {
                    return nil
                }
                state.queries[message.header.id] = nil
                return entry
            }
            entry?.promise.succeed(message)
            return true
        }

        func fail(id: UInt16, _ error: Error) {
            let entry = state.withLockedValue { $0.queries.removeValue(forKey: id) }
            entry?.promise.fail(error)
        }

        /// No more queries on this connection; those waiting fail (the forwarder tries again,
        /// on a new connection).
        func failAll(_ error: Error) {
            let queries = state.withLockedValue { state -> Waiting in
                state.closed = true
                defer { state.queries = [:] }
                return state.queries
            }
            for entry in queries.values { entry.promise.fail(error) }
        }
    }

    /// Hands answers to the waiting queries; the connection ends with the channel.
    final class AnswerHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let waiting: WaitingQueries

        init(waiting: WaitingQueries) {
            self.waiting = waiting
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !waiting.received(unwrapInboundIn(data)) {
                waiting.failAll(UpstreamError.badResponse(waiting.label))
                context.close(promise: nil)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is IdleStateHandler.IdleStateEvent {
                waiting.failAll(UpstreamError.connection(waiting.label, "idle connection closed"))
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            waiting.failAll(UpstreamError.connection(waiting.label, "the upstream closed the connection"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            waiting.failAll(UpstreamError.connection(waiting.label, "TLS: \(error)"))
            context.close(promise: nil)
        }
    }
}
