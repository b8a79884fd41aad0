import DNSFilter
import NIOConcurrencyHelpers
import NIOCore

/// Open connections per client address over TCP, DNS over TLS and DNS over HTTPS: a client at
/// its limit has its next connection closed at once (before any TLS handshake), so one host
/// cannot hold every socket the server has.
final class ConnectionLimiter: Sendable {
    /// Connections allowed per address (0: no limit).
    let perClient: Int
    private let open = NIOLockedValueBox<[IPAddress: Int]>([:])

    init(perClient: Int) {
        self.perClient = perClient
    }

    /// Takes a slot for `address`, or says there is none.
    func acquire(_ address: IPAddress) -> Bool {
        guard perClient > 0 else { return true }
        return open.withLockedValue { open in
            let count = open[address, default: 0]
            guard count < perClient else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Gives `address`'s slot back.
    func release(_ address: IPAddress) {
        guard perClient > 0 else { return }
        open.withLockedValue { open in
            let count = open[address, default: 0] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Connections open now (for tests and metrics).
    var openConnections: Int { open.withLockedValue { $0.values.reduce(0, +) } }
}

/// The first handler of every stream connection: takes a slot from the ``ConnectionLimiter``
/// or closes the connection, and closes it when it has been idle (no bytes read or written) for
/// the idle timeout.
final class ConnectionGuard: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    private let limiter: ConnectionLimiter
    private let onRefused: @Sendable () -> Void
    private var address: IPAddress?

    init(limiter: ConnectionLimiter, onRefused: @escaping @Sendable () -> Void) {
        self.limiter = limiter
        self.onRefused = onRefused
    }

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.channel.remoteAddress {
            let address = QueryResolver.address(of: remote)
            guard limiter.acquire(address) else {
                onRefused()
                context.close(promise: nil)
                return
            }
            self.address = address
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let address {
            limiter.release(address)
            self.address = nil
        }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
