import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// A request as the test server read it.
struct ReceivedRequest: Sendable {
    var method: String
    var uri: String
    /// The header names (as sent) and values, in order.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The value of `name` (any case), if sent.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the test server does once it has read a request.
enum TestAnswer: Sendable {
    /// Writes these bytes (whatever they are, HTTP or not), then closes.
    case bytes([UInt8])
    /// Never answers; the connection stays open until the client closes it.
    case silence
}

/// A real server on a loopback port: TLS with the given certificate chain (NIOSSL, as the
/// console's Hummingbird server uses), reading HTTP/1.1 requests with NIO's decoder and writing
/// raw answers, so tests can send well-formed, chunked, oversized or broken ones. It counts the
/// connections it accepted and those still open, and records each request and each TLS
/// client's SNI name.
final class TLSTestServer: Sendable {
    /// Where it listens.
    let host: String
    let port: Int
    private let channel: any Channel
    private let state: NIOLockedValueBox<State>

    private struct State {
        var requests: [ReceivedRequest] = []
        var connections = 0
        var open = 0
        var serverNames: [String?] = []
    }

    /// How the server speaks on its connections.
    enum Mode: Sendable {
        /// TLS (any version up to `maximumVersion`) with this chain (leaf first) and key, then HTTP.
        case tls(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, maximumVersion: TLSVersion = .tlsv13)
        /// Plain TCP: these bytes once the client has sent something, then close, as an HTTP
        /// server answers a TLS client hello (an empty array: nothing, ever).
        case plain([UInt8])
    }

    private init(host: String, port: Int, channel: any Channel, state: NIOLockedValueBox<State>) {
        self.host = host
        self.port = port
        self.channel = channel
        self.state = state
    }

    /// Starts a server on `host` and a free port; `answer` decides each request's answer.
    static func start(
        _ mode: Mode, host: String = "127.0.0.1", answer: @escaping @Sendable (ReceivedRequest) -> TestAnswer = { _ in .silence }
    ) async throws -> TLSTestServer {
        let state = NIOLockedValueBox(State())
        var context: NIOSSLContext?
        if case .tls(let chain, let key, let maximumVersion) = mode {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv1
            configuration.maximumTLSVersion = maximumVersion
            context = try NIOSSLContext(configuration: configuration)
        }
        let tlsContext = context
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ConnectionCounter(state: state))
                    switch mode {
                    case .plain(let answer):
                        try operations.addHandler(PlainAnswer(answer: answer))
                    case .tls:
                        let sni = ByteToMessageHandler(
                            SNIHandler { result in
                                state.withLockedValue {
                                    if case .hostname(let name) = result { $0.serverNames.append(name) } else { $0.serverNames.append(nil) }
                                }
                                return channel.eventLoop.makeSucceededVoidFuture()
                            })
                        try operations.addHandler(sni)
                        try operations.addHandler(NIOSSLServerHandler(context: tlsContext!))
                        try operations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
                        try operations.addHandler(RequestReader(state: state, answer: answer))
                    }
                }
            }
            .bind(host: host, port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestServerError.noPort }
        return TLSTestServer(host: host, port: port, channel: channel, state: state)
    }

    /// `https://HOST:PORT` (or the given host name instead of the address).
    func url(host name: String? = nil) -> URL {
        let shown = name ?? (host.contains(":") ? "[\(host)]" : host)
        return URL(string: "https://\(shown):\(port)")!
    }

    /// The requests read so far.
    var requests: [ReceivedRequest] { state.withLockedValue { $0.requests } }
    /// How many connections it accepted.
    var connections: Int { state.withLockedValue { $0.connections } }
    /// How many of them are still open.
    var openConnections: Int { state.withLockedValue { $0.open } }
    /// Each TLS client's SNI name (`nil`: it sent none), in order.
    var serverNames: [String?] { state.withLockedValue { $0.serverNames } }

    /// Stops listening (connections still open are the clients' to close).
    func stop() async throws {
        try await channel.close()
    }

    /// Counts connections as they open and close.
    private final class ConnectionCounter: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let state: NIOLockedValueBox<State>
        init(state: NIOLockedValueBox<State>) { self.state = state }

        func handlerAdded(context: ChannelHandlerContext) {
            state.withLockedValue {
                $0.connections += 1
                $0.open += 1
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLockedValue { $0.open -= 1 }
            context.fireChannelInactive()
        }
    }

    /// Answers the first bytes a client sends with fixed bytes, then closes.
    private final class PlainAnswer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answer: [UInt8]
        var answered = false
        init(answer: [UInt8]) { self.answer = answer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answer.isEmpty, !answered else { return }
            answered = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    /// Reads one request, records it and writes the answer `answer` gives.
    private final class RequestReader: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = ByteBuffer
        let state: NIOLockedValueBox<State>
        let answer: @Sendable (ReceivedRequest) -> TestAnswer
        var request: ReceivedRequest?

        init(state: NIOLockedValueBox<State>, answer: @escaping @Sendable (ReceivedRequest) -> TestAnswer) {
            self.state = state
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                request = ReceivedRequest(
                    method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: [])
            case .body(let part):
                request?.body += Array(part.readableBytesView)
            case .end:
                guard let request else { return }
                state.withLockedValue { $0.requests.append(request) }
                switch answer(request) {
                case .silence:
                    break
                case .bytes(let bytes):
                    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
                        context.close(promise: nil)
                    }
                }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// Why a test server did not start.
enum TestServerError: Error {
    /// The bound socket has no port.
    case noPort
}

/// Answers as the tests write them.
enum Answers {
    /// An HTTP/1.1 answer with a Content-Length.
    static func plain(status: String = "200 OK", headers: [(String, String)] = [], body: [UInt8]) -> [UInt8] {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return Array(text.utf8) + body
    }

    /// An HTTP/1.1 answer in chunks of `chunkSize` bytes.
    static func chunked(status: String = "200 OK", headers: [(String, String)] = [], body: [UInt8], chunkSize: Int) -> [UInt8] {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Transfer-Encoding: chunked\r\n\r\n"
        var bytes = Array(text.utf8)
        var start = 0
        while start < body.count {
            let chunk = body[start..<min(start + chunkSize, body.count)]
            bytes += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
            start += chunkSize
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }
}
