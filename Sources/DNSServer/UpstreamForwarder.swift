import DNSFilter
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Why an upstream gave no usable answer.
public enum UpstreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer within the timeout.
    case timeout(String)
    /// The connection failed or closed early (TCP).
    case connection(String, String)
    /// The answer could not be read, or does not answer the question asked.
    case badResponse(String)
    /// Every upstream failed.
    case allFailed
    /// A file of trusted certificates could not be read.
    case certificates(String, String)

    public var description: String {
        switch self {
        case .timeout(let upstream): return "\(upstream): no answer in time"
        case .connection(let upstream, let reason): return "\(upstream): \(reason)"
        case .badResponse(let upstream): return "\(upstream): malformed or mismatched answer"
        case .allFailed: return "every upstream failed"
        case .certificates(let path, let reason): return "\(path): cannot read the certificates: \(reason)"
        }
    }
}

/// One resolver queries are forwarded to.
enum Upstream: Sendable {
    /// Plain DNS: UDP from the socket pool, TCP when the answer is truncated.
    case plain(SocketAddress, label: String)
    /// DNS over TLS.
    case tls(TLSUpstream)
    /// DNS over HTTPS.
    case https(HTTPSUpstream)

    var label: String {
        switch self {
        case .plain(_, let label): return label
        case .tls(let upstream): return upstream.label
        case .https(let upstream): return upstream.label
        }
    }
}

/// Sends queries to the upstream resolvers: plain ones over UDP (over TCP when an answer comes
/// back truncated), encrypted ones over TLS or HTTPS. Defences against spoofed plain answers
/// (RFC 5452): each query leaves from one of a pool of sockets bound to kernel-chosen (random)
/// ports, with a random ID unused on that socket, and an answer is accepted only from the
/// upstream's address and port, with that ID and the same question.
final class UpstreamForwarder: Sendable {
    let upstreams: [Upstream]
    let timeout: TimeAmount
    let attempts: Int
    private let group: EventLoopGroup
    private let sockets: [UpstreamSocket]
    private let logger: Logger
    private let metrics: DNSServerMetrics?

    /// Sockets in the pool: 16 ports × 65,536 IDs for a spoofer to guess among.
    static let poolSize = 16

    private init(
        upstreams: [Upstream], timeout: TimeAmount, group: EventLoopGroup, sockets: [UpstreamSocket], logger: Logger,
        metrics: DNSServerMetrics?
    ) {
        self.metrics = metrics
        self.upstreams = upstreams
        self.timeout = timeout
        self.attempts = max(2, upstreams.count)
        self.group = group
        self.sockets = sockets
        self.logger = logger
    }

    /// Opens the socket pool (when a plain upstream needs it) and prepares the encrypted
    /// upstreams, which connect at their first query. `trustedCertificates`: PEM files of CAs
    /// trusted besides the system's, for upstreams with certificates of a private CA.
    static func make(
        upstreams: [UpstreamAddress], timeout: TimeAmount, trustedCertificates: [String] = [], group: EventLoopGroup, logger: Logger,
        metrics: DNSServerMetrics? = nil
    ) async throws -> UpstreamForwarder {
        var prepared: [Upstream] = []
        // Everything that can fail comes first; the HTTP clients, which must be shut down once
        // made, are made last.
        var plain: [SocketAddress] = []
        for upstream in upstreams {
            if case .udp(let host, let port) = upstream { plain.append(try SocketAddress(ipAddress: host.description, port: port)) }
        }
        let encrypted = upstreams.contains { if case .udp = $0 { return false } else { return true } }
        let tls = encrypted ? try tlsSetup(trusting: trustedCertificates) : nil
        var sockets: [UpstreamSocket] = []
        if !plain.isEmpty {
            let needsIPv6 = plain.contains { $0.protocol == .inet6 }
            let needsIPv4 = plain.contains { $0.protocol == .inet }
            do {
                for _ in 0..<poolSize {
                    let socket = UpstreamSocket()
                    sockets.append(socket)
                    let bootstrap = DatagramBootstrap(group: group).channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(UpstreamSocket.Handler(socket: socket))
                        }
                    }
                    if needsIPv4 { socket.channel4 = try await bootstrap.bind(host: "0.0.0.0", port: 0).get() }
                    if needsIPv6 { socket.channel6 = try await bootstrap.bind(host: "::", port: 0).get() }
                }
            } catch {
                for socket in sockets {
                    try? await socket.channel4?.close()
                    try? await socket.channel6?.close()
                }
                throw error
            }
        }
        var plainAddresses = plain.makeIterator()
        for upstream in upstreams {
            switch upstream {
            case .udp:
                prepared.append(.plain(plainAddresses.next()!, label: upstream.description))
            case .tls(let host, let port, let serverName):
                prepared.append(
                    .tls(
                        TLSUpstream(
                            host: host, port: port, serverName: serverName, label: upstream.description, context: tls!.context,
                            group: group, timeout: timeout)))
            case .https(let url, _, _, _):
                prepared.append(.https(HTTPSUpstream(url: url, tls: tls!.configuration, group: group, timeout: timeout)))
            }
        }
        return UpstreamForwarder(upstreams: prepared, timeout: timeout, group: group, sockets: sockets, logger: logger, metrics: metrics)
    }

    /// The TLS settings of the encrypted upstreams: TLS 1.2 or later, the system's CAs and those
    /// of `trustedCertificates`.
    static func tlsSetup(trusting trustedCertificates: [String]) throws -> (configuration: TLSConfiguration, context: NIOSSLContext) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // On close, wait this long (not NIO's 5 s) for the upstream's close_notify: some DoH
        // servers never send one, and stopping the server would hang that long.
        configuration.shutdownTimeout = .milliseconds(300)
        for path in trustedCertificates {
            do {
                _ = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw UpstreamError.certificates(path, "\(error)")
            }
        }
        configuration.additionalTrustRoots = trustedCertificates.map { .file($0) }
        return (configuration, try NIOSSLContext(configuration: configuration))
    }

    /// An event loop for work no client waits on (background refreshes).
    var eventLoop: EventLoop { group.next() }

    /// Closes the pool and the encrypted upstreams' connections.
    func close() async {
        for socket in sockets {
            try? await socket.channel4?.close()
            try? await socket.channel6?.close()
        }
        for upstream in upstreams {
            switch upstream {
            case .plain: break
            case .tls(let upstream): await upstream.close()
            case .https(let upstream): await upstream.close()
            }
        }
    }

    /// Asks the upstreams `question`, each in turn (then again from the first) until one answers.
    func resolve(_ question: DNSQuestion, dnssecOK: Bool, checkingDisabled: Bool, on eventLoop: EventLoop) -> EventLoopFuture<DNSMessage> {
        let start = Int.random(in: 0..<upstreams.count)
        let upstreams = self.upstreams
        let attempts = self.attempts
        @Sendable func attempt(_ number: Int) -> EventLoopFuture<DNSMessage> {
            guard number < attempts else { return eventLoop.makeFailedFuture(UpstreamError.allFailed) }
            let index = (start + number) % upstreams.count
            let upstream = upstreams[index]
            let query = Self.query(question, id: 0, dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
            let answer: EventLoopFuture<DNSMessage>
            switch upstream {
            case .plain(let address, let label):
                answer = self.plainQuery(
                    question, dnssecOK: dnssecOK, checkingDisabled: checkingDisabled, upstream: (address, label), on: eventLoop)
            case .tls(let tls):
                answer = tls.send(query, on: eventLoop).hop(to: eventLoop)
            case .https(let https):
                answer = https.send(query, on: eventLoop).hop(to: eventLoop)
            }
            return answer.flatMapError { error in
                self.logger.debug("upstream failed", metadata: ["upstream": "\(upstream.label)", "error": "\(error)"])
                self.metrics?.upstreamFailed(index)
                return attempt(number + 1)
            }
        }
        return attempt(0)
    }

    /// One plain query over UDP, and over TCP when the answer is truncated.
    private func plainQuery(
        _ question: DNSQuestion, dnssecOK: Bool, checkingDisabled: Bool, upstream: (address: SocketAddress, label: String),
        on eventLoop: EventLoop
    ) -> EventLoopFuture<DNSMessage> {
        let socket = sockets[Int.random(in: 0..<sockets.count)]
        guard let channel = upstream.address.protocol == .inet6 ? socket.channel6 : socket.channel4 else {
            return eventLoop.makeFailedFuture(UpstreamError.connection(upstream.label, "no socket for its address family"))
        }
        let promise = eventLoop.makePromise(of: DNSMessage.self)
        guard let id = socket.register(promise: promise, upstream: upstream.address, question: question) else {
            return eventLoop.makeFailedFuture(UpstreamError.connection(upstream.label, "too many queries in flight"))
        }
        let message = Self.query(question, id: id, dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
        let timeoutTask = eventLoop.scheduleTask(in: timeout) {
            socket.fail(id: id, UpstreamError.timeout(upstream.label))
        }
        var buffer = channel.allocator.buffer(capacity: 512)
        buffer.writeBytes(message.encoded())
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: upstream.address, data: buffer)).whenFailure { error in
            socket.fail(id: id, UpstreamError.connection(upstream.label, "\(error)"))
        }
        return promise.futureResult.always { _ in timeoutTask.cancel() }
            .flatMap { response in
                guard response.header.flags.isTruncated else { return eventLoop.makeSucceededFuture(response) }
                // Too large for UDP: ask the same upstream over TCP (RFC 7766).
                return TCPUpstreamQuery.send(
                    Self.query(question, id: UInt16.random(in: 0...UInt16.max), dnssecOK: dnssecOK, checkingDisabled: checkingDisabled),
                    to: upstream, timeout: self.timeout, group: self.group
                ).hop(to: eventLoop)
            }
    }

    /// The query sent upstream: recursion desired, EDNS with our payload size and the client's
    /// DO bit, the client's CD bit, and AD set so that a validating upstream says whether it
    /// validated the answer even without DO (RFC 6840 §5.7); the resolver passes that on only
    /// to clients that asked with DO or AD.
    static func query(_ question: DNSQuestion, id: UInt16, dnssecOK: Bool, checkingDisabled: Bool) -> DNSMessage {
        var flags = DNSFlags(rawValue: 0)
        flags.recursionDesired = true
        flags.authenticData = true
        flags.checkingDisabled = checkingDisabled
        return DNSMessage(
            header: DNSHeader(id: id, flags: flags), questions: [question],
            edns: EDNS(udpPayloadSize: DNSMessage.advertisedPayloadSize, dnssecOK: dnssecOK))
    }

    /// Whether `response` answers `query`: same ID (checked by the caller), a response, the same
    /// question (names compared case-insensitively).
    static func answers(_ response: DNSMessage, _ question: DNSQuestion) -> Bool {
        guard response.header.flags.isResponse, let echoed = response.questions.first, response.questions.count == 1 else {
            return false
        }
        return echoed.type == question.type && echoed.recordClass == question.recordClass && echoed.name.isEquivalent(to: question.name)
    }
}

/// One socket of the pool and its queries in flight, keyed by ID.
final class UpstreamSocket: @unchecked Sendable {
    // Written once while the pool opens, before any query: read-only afterwards.
    var channel4: Channel?
    var channel6: Channel?

    private struct Pending {
        var promise: EventLoopPromise<DNSMessage>
        var upstream: SocketAddress
        var question: DNSQuestion
    }

    private let pending = NIOLockedValueBox<[UInt16: Pending]>([:])

    /// Picks a random free ID for a query and remembers it; `nil` when (improbably) none is found.
    func register(promise: EventLoopPromise<DNSMessage>, upstream: SocketAddress, question: DNSQuestion) -> UInt16? {
        pending.withLockedValue { pending in
            for _ in 0..<16 {
                let id = UInt16.random(in: 0...UInt16.max)
                if pending[id] == nil {
                    pending[id] = Pending(promise: promise, upstream: upstream, question: question)
                    return id
                }
            }
            return nil
        }
    }

    func fail(id: UInt16, _ error: Error) {
        let entry = pending.withLockedValue { $0.removeValue(forKey: id) }
        entry?.promise.fail(error)
    }

    /// An answer arrived: accepted only when it matches a query in flight from that upstream.
    func received(_ bytes: ByteBuffer, from address: SocketAddress) {
        guard bytes.readableBytes >= DNSHeader.size, let id = bytes.getInteger(at: bytes.readerIndex, as: UInt16.self) else { return }
        let entry: Pending? = pending.withLockedValue { pending in
            guard let entry = pending[id], entry.upstream == address else { return nil }
            return entry
        }
        guard let entry else { return }
        guard let message = try? bytes.withUnsafeReadableBytes({ raw in try DNSMessage(decoding: raw) }),
            UpstreamForwarder.answers(message, entry.question)
        else {
            // A mismatched answer is ignored, not fatal: the real one may still come.
            return
        }
        let claimed = pending.withLockedValue { $0.removeValue(forKey: id) }
        claimed?.promise.succeed(message)
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let socket: UpstreamSocket

        init(socket: UpstreamSocket) {
            self.socket = socket
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            socket.received(envelope.data, from: envelope.remoteAddress)
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            // ICMP errors and the like: the query times out and the next upstream is tried.
        }
    }
}

/// One query over TCP (two-byte length prefix, RFC 1035 §4.2.2): connect, send, read one
/// answer, close.
enum TCPUpstreamQuery {
    static func send(
        _ query: DNSMessage, to upstream: (address: SocketAddress, label: String), timeout: TimeAmount, group: EventLoopGroup
    ) -> EventLoopFuture<DNSMessage> {
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: DNSMessage.self)
        let question = query.questions[0]
        let id = query.header.id
        let label = upstream.label
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(DNSLengthPrefixedFrameDecoder()),
                        ResponseHandler(promise: promise, id: id, question: question, label: label),
                    ])
                }
            }
        let timeoutTask = eventLoop.scheduleTask(in: timeout) { promise.fail(UpstreamError.timeout(label)) }
        bootstrap.connect(to: upstream.address).whenComplete { result in
            switch result {
            case .failure(let error):
                promise.fail(UpstreamError.connection(label, "TCP: \(error)"))
            case .success(let channel):
                let bytes = query.encoded()
                var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
                buffer.writeInteger(UInt16(bytes.count))
                buffer.writeBytes(bytes)
                channel.writeAndFlush(buffer).whenFailure { promise.fail(UpstreamError.connection(label, "TCP: \($0)")) }
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            }
        }
        return promise.futureResult.always { _ in timeoutTask.cancel() }
    }

    final class ResponseHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<DNSMessage>
        let id: UInt16
        let question: DNSQuestion
        let label: String

        init(promise: EventLoopPromise<DNSMessage>, id: UInt16, question: DNSQuestion, label: String) {
            self.promise = promise
            self.id = id
            self.question = question
            self.label = label
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            guard let message = try? frame.withUnsafeReadableBytes({ raw in try DNSMessage(decoding: raw) }), message.header.id == id,
                UpstreamForwarder.answers(message, question)
            else {
                promise.fail(UpstreamError.badResponse(label))
                return
            }
            promise.succeed(message)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(UpstreamError.connection(label, "TCP connection closed before an answer"))
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            promise.fail(UpstreamError.connection(label, "TCP: \(error)"))
            context.close(promise: nil)
        }
    }
}

/// Splits a TCP stream into DNS messages by their two-byte length prefix.
struct DNSLengthPrefixedFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self),
            buffer.readableBytes >= 2 + Int(length)
        else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 2)
        let frame = buffer.readSlice(length: Int(length))!
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }
}
