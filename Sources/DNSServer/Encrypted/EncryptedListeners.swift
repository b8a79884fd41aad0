import DNSFilter
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Where a ``DNSServer`` answers DNS over TLS (RFC 7858) and DNS over HTTPS (RFC 8484), with
/// which certificate, and under which server name devices are named (``EncryptedDNSEndpoint``).
public struct EncryptedListenersConfiguration: Sendable, Hashable {
    /// The server's host name as its certificate names it; a device is the first label of a
    /// DNS-over-TLS server name under it (`phone.SERVER`).
    public var serverName: String
    /// Where to answer DNS over TLS (`nil`: not served).
    public var tlsListen: ListenAddress?
    /// Where to answer DNS over HTTPS (`nil`: not served).
    public var httpsListen: ListenAddress?
    /// The PEM certificate chain (the server's own first).
    public var certificateFile: String
    /// The PEM private key.
    public var keyFile: String

    /// A configuration with the given fields.
    public init(serverName: String, tlsListen: ListenAddress?, httpsListen: ListenAddress?, certificateFile: String, keyFile: String) {
        self.serverName = serverName.lowercased()
        self.tlsListen = tlsListen
        self.httpsListen = httpsListen
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// The stream listeners' shared parts: one per server.
struct StreamListenerParts: Sendable {
    var resolver: QueryResolver
    var limiter: ConnectionLimiter
    var idleTimeout: TimeAmount

    /// The first handlers of every stream connection: the idle timer, then the connection
    /// guard (which closes at the timer's event, or at once when the client has too many open).
    func guardHandlers() -> [ChannelHandler] {
        let metrics = resolver.metrics
        return [
            IdleStateHandler(readTimeout: idleTimeout),
            ConnectionGuard(limiter: limiter, onRefused: { metrics?.connectionRefused() }),
        ]
    }

    /// Binds a stream listener on `address` whose connections are set up by `initializer`
    /// (after the guard handlers).
    func bind(
        _ address: ListenAddress, group: EventLoopGroup, initializer: @escaping @Sendable (Channel) -> EventLoopFuture<Void>
    ) async throws -> Channel {
        let parts = self
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(parts.guardHandlers())
                }.flatMap { initializer(channel) }
            }
            .bind(host: address.host.description, port: address.port).get()
    }

    /// DNS over TLS: the server name is read from the ClientHello first (it names the device),
    /// then TLS with the certificate in use at that moment, then length-prefixed DNS messages
    /// as over TCP.
    func dnsOverTLS(certificate: ServerCertificate, endpoint: EncryptedDNSEndpoint) -> @Sendable (Channel) -> EventLoopFuture<Void> {
        let resolver = self.resolver
        return { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(
                        SNIHandler { result in
                            var device: DNSDeviceName?
                            if case .hostname(let name) = result { device = endpoint.device(fromTLSServerName: name) }
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandlers([
                                    NIOSSLServerHandler(context: certificate.tlsContext),
                                    ByteToMessageHandler(DNSLengthPrefixedFrameDecoder()),
                                    TCPQueryHandler(resolver: resolver, transport: .tls, device: device),
                                ])
                            }
                        }))
            }
        }
    }

    /// DNS over HTTPS: TLS offering HTTP/2 and HTTP/1.1 (ALPN), a ``DNSOverHTTPSHandler`` per
    /// HTTP/2 stream or HTTP/1.1 connection.
    func dnsOverHTTPS(certificate: ServerCertificate) -> @Sendable (Channel) -> EventLoopFuture<Void> {
        let resolver = self.resolver
        return { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificate.httpsContext))
            }.flatMap {
                channel.configureCommonHTTPServerPipeline { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(DNSOverHTTPSHandler(resolver: resolver))
                    }
                }
            }
        }
    }
}
