import DeviceSync
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOTLS

/// Why an exchange stopped, before it is put in the words of a ``SyncHTTPError``.
enum ExchangeFailure: Error {
    /// The deadline passed.
    case timedOut
    /// The body (or its announced length) is over the limit.
    case tooLarge
    /// The connection closed before the whole answer came.
    case closedEarly
    /// The connection closed before the TLS handshake was done.
    case closedDuringHandshake
}

/// The last handler of an exchange: writes the request once it is added (the TLS handler ahead
/// of it holds the bytes until its handshake is done), gathers one answer within the body limit,
/// then closes the connection. Whatever ends the exchange first (the answer, an error, the
/// connection closing, the deadline) completes the promise; the rest is ignored.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestParts
    private let limit: Int
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<SyncHTTPResponse>
    private var status: Int?
    private var headers: [String: String] = [:]
    private var body = ByteBuffer()
    private var finished = false
    private var handshakeDone = false
    private var timeout: Scheduled<Void>?

    /// A collector that sends `request` and completes `promise`.
    init(request: HTTPRequestParts, limit: Int, deadline: NIODeadline, promise: EventLoopPromise<SyncHTTPResponse>) {
        self.request = request
        self.limit = limit
        self.deadline = deadline
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            finish(context: context, .failure(ExchangeFailure.timedOut))
        }
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            for (name, value) in head.headers {
                let key = name.lowercased()
                headers[key] = headers[key].map { "\($0), \(value)" } ?? value
            }
            // Refused on its announced length, before reading megabytes only to drop them.
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limit {
                finish(context: context, .failure(ExchangeFailure.tooLarge))
            }
        case .body(var part):
            guard body.readableBytes + part.readableBytes <= limit else {
                finish(context: context, .failure(ExchangeFailure.tooLarge))
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard let status else {
                finish(context: context, .failure(ExchangeFailure.closedEarly))
                return
            }
            finish(context: context, .success(SyncHTTPResponse(status: status, headers: headers, body: Data(body.readableBytesView))))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { handshakeDone = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context: context, .failure(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context, .failure(handshakeDone ? ExchangeFailure.closedEarly : ExchangeFailure.closedDuringHandshake))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context: context, .failure(ExchangeFailure.closedEarly))
    }

    private func finish(context: ChannelHandlerContext, _ result: Result<SyncHTTPResponse, any Error>) {
        guard !finished else { return }
        finished = true
        timeout?.cancel()
        promise.completeWith(result)
        context.close(promise: nil)
    }
}

/// The handler of the handshake that only reads which certificates the server presents (for a
/// pin): the TLS handler's verification callback hands it the chain, and once the handshake is
/// done it completes the promise with that chain and closes, sending nothing else.
final class PresentedChainCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let deadline: NIODeadline
    private let promise: EventLoopPromise<[NIOSSLCertificate]>
    private var chain: [NIOSSLCertificate] = []
    private var finished = false
    private var timeout: Scheduled<Void>?

    /// A collector that completes `promise`.
    init(deadline: NIODeadline, promise: EventLoopPromise<[NIOSSLCertificate]>) {
        self.deadline = deadline
        self.promise = promise
    }

    /// Keeps the certificates the server presented (called by the TLS handler's callback, on
    /// the event loop, before the handshake completes).
    func presented(_ certificates: [NIOSSLCertificate]) {
        chain = certificates
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            finish(context: context, .failure(ExchangeFailure.timedOut))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            finish(context: context, chain.isEmpty ? .failure(ExchangeFailure.closedEarly) : .success(chain))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context: context, .failure(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context, .failure(ExchangeFailure.closedDuringHandshake))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context: context, .failure(ExchangeFailure.closedDuringHandshake))
    }

    private func finish(context: ChannelHandlerContext, _ result: Result<[NIOSSLCertificate], any Error>) {
        guard !finished else { return }
        finished = true
        timeout?.cancel()
        promise.completeWith(result)
        context.close(promise: nil)
    }
}
