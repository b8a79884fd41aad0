import Crypto
import DeviceSync
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sync's HTTPS client on Linux (and wherever SwiftNIO runs): HTTP/1.1 over TLS 1.2 or later to
/// one serving home, one request per connection (`Connection: close`; no keep-alive).
///
/// Foundation's `URLSession` is not used on Linux: swift-corelibs-foundation's trusts the system's
/// certificate authorities only, so it cannot reach a home whose certificate comes from the home's
/// own private CA. This client checks the server's certificate with a ``SyncServerTrust``:
///
/// - ``SyncServerTrust/system``: the system's authorities, with full verification (the chain's
///   signatures and dates, and the host name or IP address).
/// - ``SyncServerTrust/pinned(sha256:)``: the chain must verify, just as fully, with the pinned
///   certificate as its only trusted root. That the server sends the pinned certificate along
///   proves nothing (anyone can send a copy of a public certificate), so it is never enough. The
///   client knows only the certificate's SHA-256, so its first request makes a handshake that
///   only reads the certificates the server presents, takes the one whose DER has that SHA-256,
///   and then connects again trusting that certificate alone; the certificate is kept, so later
///   requests make one handshake. The serving home must therefore present the pinned certificate
///   in its chain (its private CA after its own certificate, or its self-signed certificate).
public final class NIOSyncHTTPClient: SyncHTTPClient {
    /// The default limit on an answer's body: 8 MiB, well above a page of sync records.
    public static let defaultMaximumResponseBytes = 8 << 20

    /// The serving home's address, `https://HOST[:PORT]`.
    public let server: URL
    /// Which certificates the client trusts for it.
    public let trust: SyncServerTrust
    /// The largest answer body taken; a larger one is ``SyncHTTPError/responseTooLarge(limit:)``.
    public let maximumResponseBytes: Int

    let address: SyncServerAddress
    let eventLoopGroup: any EventLoopGroup
    /// The TLS contexts made so far (a context loads its trusted roots once, not per request).
    private let contexts = NIOLockedValueBox(Contexts())

    private struct Contexts {
        /// The context that verifies against the system's roots or the pinned certificate.
        var verifying: NIOSSLContext?
        /// The context of the handshake that only reads the presented chain.
        var reading: NIOSSLContext?
        /// The certificate whose SHA-256 is the pin, once a server presented it.
        var pinnedCertificate: NIOSSLCertificate?
    }

    /// A client for the home at `server`.
    ///
    /// - Parameters:
    ///   - server: `https://HOST[:PORT]`, where HOST is a name or an IPv4 or IPv6 address.
    ///   - trust: the certificates to trust.
    ///   - maximumResponseBytes: the largest answer body taken (8 MiB by default).
    ///   - eventLoopGroup: the event loops the connections run on (NIO's shared ones by default).
    /// - Throws: ``SyncHTTPError/invalidServerURL(_:)`` unless `server` is `https://HOST[:PORT]`
    ///   with no path, query, user or fragment.
    public init(
        server: URL, trust: SyncServerTrust, maximumResponseBytes: Int = defaultMaximumResponseBytes,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(SyncHTTPError) {
        address = try SyncServerAddress(server)
        self.server = server
        self.trust = trust
        self.maximumResponseBytes = max(0, maximumResponseBytes)
        self.eventLoopGroup = eventLoopGroup
    }

    /// Sends `request` and returns the answer, whatever its status. The request's timeout covers
    /// everything: connecting, the handshakes, sending and reading the whole answer; when it
    /// passes, the connection is closed.
    ///
    /// - Throws: ``SyncHTTPError``: `cannotConnect` (with the system's reason),
    ///   `untrusted` (with what is wrong with the certificate), `timedOut`,
    ///   `responseTooLarge`, `invalidResponse`.
    public func send(_ request: SyncHTTPRequest) async throws(SyncHTTPError) -> SyncHTTPResponse {
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        let parts = try HTTPRequestParts(request, address: address)
        let context = try await verifyingContext(deadline: deadline)
        do {
            return try await exchange(parts, context: context, deadline: deadline)
        } catch let failure {
            throw await explained(failure, deadline: deadline)
        }
    }

    // MARK: Trust

    /// The context that verifies the server: the system's roots, or the pinned certificate as
    /// the only root (read from the server's chain on the first request).
    private func verifyingContext(deadline: NIODeadline) async throws(SyncHTTPError) -> NIOSSLContext {
        if let context = contexts.withLockedValue({ $0.verifying }) { return context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        // A closed exchange waits for the server's close_notify at most this long (NIOSSL's
        // default is 5 s): a held wait cancelled by a local edit must end at once, and a server
        // holding a request does not answer close_notify.
        configuration.shutdownTimeout = .milliseconds(100)
        switch trust {
        case .system:
            configuration.trustRoots = .default
        case .pinned(let pin):
            let chain: [NIOSSLCertificate]
            do {
                chain = try await presentedChain(deadline: deadline)
            } catch {
                throw error.syncError
            }
            guard let pinned = chain.first(where: { Self.sha256($0) == pin }) else {
                throw .untrusted(
                    address.authority,
                    reason:
                        "no certificate in its chain has the pinned SHA-256 \(Self.hex(pin)) (it presents \(Self.names(chain))); "
                        + "a serving home must present the pinned certificate: its private CA after its own certificate")
            }
            configuration.trustRoots = .certificates([pinned])
            contexts.withLockedValue { $0.pinnedCertificate = pinned }
        }
        do {
            let context = try NIOSSLContext(configuration: configuration)
            contexts.withLockedValue { $0.verifying = context }
            return context
        } catch {
            throw .untrusted(address.authority, reason: "cannot set up TLS: \(error)")
        }
    }

    /// The certificates the server presents, read by a handshake that verifies nothing and
    /// sends nothing after it: only to find the pinned certificate, or to explain a refusal.
    private func presentedChain(deadline: NIODeadline) async throws(ConnectionFailure) -> [NIOSSLCertificate] {
        let context: NIOSSLContext
        if let made = contexts.withLockedValue({ $0.reading }) {
            context = made
        } else {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            // The callback below replaces verification; `.noHostnameVerification` makes
            // BoringSSL ask for the certificates and call it.
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([])
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw ConnectionFailure(error: error, address: address)
            }
            contexts.withLockedValue { $0.reading = context }
        }
        let serverName = address.serverName
        let channel = try await connect(deadline: deadline)
        let chain = channel.eventLoop.flatSubmit { () -> EventLoopFuture<[NIOSSLCertificate]> in
            let promise = channel.eventLoop.makePromise(of: [NIOSSLCertificate].self)
            let collector = PresentedChainCollector(deadline: deadline, promise: promise)
            do {
                let tls = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, verified in
                    collector.presented(certificates)
                    verified.succeed(.certificateVerified)
                }
                try channel.pipeline.syncOperations.addHandlers([tls, collector])
                try channel.syncOptions?.setOption(.autoRead, value: true)
            } catch {
                promise.fail(error)
                channel.close(promise: nil)
            }
            return promise.futureResult
        }
        do {
            return try await Self.value(of: chain, channel: channel)
        } catch {
            throw ConnectionFailure(error: error, address: address)
        }
    }

    /// `failure` in the words of a ``SyncHTTPError``; a certificate the handshake refused is
    /// explained from the chain the server presents (the refusal is BoringSSL's, the words are
    /// this client's: BoringSSL says only that verification failed).
    private func explained(_ failure: ConnectionFailure, deadline: NIODeadline) async -> SyncHTTPError {
        guard let refusal = failure.certificateRefusal else { return failure.syncError }
        let chain = try? await presentedChain(deadline: deadline)
        var reasons: [String] = []
        if refusal == .hostName {
            let names = chain?.first.map(CertificateProblems.names(of:)) ?? []
            reasons.append(
                "the certificate is not for \(address.host)" + (names.isEmpty ? "" : " (it is for \(names.joined(separator: ", ")))"))
        } else {
            switch trust {
            case .system: reasons.append("its chain does not lead to one of the system's certificate authorities")
            case .pinned: reasons.append("its chain does not verify with the pinned certificate as the only trusted root")
            }
        }
        if let chain {
            let pinned = contexts.withLockedValue { $0.pinnedCertificate }
            reasons += CertificateProblems.find(in: chain, pinned: pinned, now: Date())
        }
        return .untrusted(address.authority, reason: reasons.joined(separator: "; "))
    }

    // MARK: The exchange

    /// Connects, handshakes with `context`, sends `parts` and reads the answer.
    private func exchange(
        _ parts: HTTPRequestParts, context: NIOSSLContext, deadline: NIODeadline
    ) async throws(ConnectionFailure) -> SyncHTTPResponse {
        let serverName = address.serverName
        let limit = maximumResponseBytes
        let channel = try await connect(deadline: deadline)
        let answer = channel.eventLoop.flatSubmit { () -> EventLoopFuture<SyncHTTPResponse> in
            let promise = channel.eventLoop.makePromise(of: SyncHTTPResponse.self)
            do {
                let operations = channel.pipeline.syncOperations
                try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                try operations.addHandler(HTTPRequestEncoder())
                // Bytes after the answer are dropped: the connection closes after one answer.
                try operations.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
                try operations.addHandler(ResponseCollector(request: parts, limit: limit, deadline: deadline, promise: promise))
                try channel.syncOptions?.setOption(.autoRead, value: true)
            } catch {
                promise.fail(error)
                channel.close(promise: nil)
            }
            return promise.futureResult
        }
        do {
            return try await Self.value(of: answer, channel: channel)
        } catch {
            throw ConnectionFailure(error: error, address: address, limit: limit)
        }
    }

    /// A TCP connection to the server, not reading yet (the handlers are added first), within
    /// what is left of the deadline.
    private func connect(deadline: NIODeadline) async throws(ConnectionFailure) -> any Channel {
        let left = deadline - .now()
        guard left > .zero else { throw ConnectionFailure(error: ExchangeFailure.timedOut, address: address) }
        let bootstrap = ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(left)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
        do {
            if let ipAddress = address.ipAddress {
                return try await bootstrap.connect(to: ipAddress).get()
            }
            return try await bootstrap.connect(host: address.host, port: address.port).get()
        } catch {
            throw ConnectionFailure(error: error, address: address)
        }
    }

    /// Waits for `future`; when the task waiting is cancelled, closes `channel`, which ends the
    /// exchange at once.
    private static func value<T: Sendable>(of future: EventLoopFuture<T>, channel: any Channel) async throws -> T {
        try await withTaskCancellationHandler {
            try await future.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    // MARK: Certificates

    /// The SHA-256 of `certificate`'s DER: what a pin is.
    static func sha256(_ certificate: NIOSSLCertificate) -> Data? {
        guard let der = try? certificate.toDERBytes() else { return nil }
        return Data(SHA256.hash(data: der))
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    /// The certificates' common names, quoted, as a refusal lists them.
    static func names(_ chain: [NIOSSLCertificate]) -> String {
        chain.isEmpty ? "no certificate" : chain.map { CertificateProblems.name($0) }.joined(separator: ", ")
    }
}
