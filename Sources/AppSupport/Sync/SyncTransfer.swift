import Crypto
import DeviceSync
import Foundation

/// What the app's `URLSession` client decides about one sync request, kept here so that Linux
/// tests it: the request's address, which certificate a pin names, how a `URLError` reads as a
/// ``SyncHTTPError``, and one answer arriving in pieces under a size limit, a deadline and the
/// caller's cancellation, ending exactly once (`Apple/App/Sync/URLSessionSyncHTTPClient.swift`
/// only moves Apple's types in and out).
public final class SyncTransfer: @unchecked Sendable {
    /// The largest answer the app takes: a full page of the exchange (1,000 records of at most
    /// 16 KiB, `SyncLimits`) in JSON, with room to spare.
    public static let defaultLimit = 32 << 20

    /// The serving home's host, for the errors.
    public let host: String
    /// The largest body taken, in bytes.
    public let limit: Int

    /// Why the transfer ended before URL loading said so: the app cancels the task, and the
    /// error the cancellation brings back is read as this.
    public enum Interruption: Sendable, Hashable {
        /// The request's timeout passed.
        case deadline
        /// The server's certificate was refused, for this reason.
        case untrusted(String)
        /// The body grew past ``SyncTransfer/limit``.
        case tooLarge
        /// The caller's task was cancelled.
        case cancelled
        /// What came is not an HTTP answer (the reason).
        case notHTTP(String)
    }

    private struct State {
        var status: Int?
        var headers: [String: String] = [:]
        var body = Data()
        var interruption: Interruption?
        var finish: (@Sendable (Result<SyncHTTPResponse, SyncHTTPError>) -> Void)?
        var result: Result<SyncHTTPResponse, SyncHTTPError>?
    }

    private let lock = NSLock()
    private var state = State()

    /// A transfer from `host` taking at most `limit` bytes of body.
    public init(host: String, limit: Int = SyncTransfer.defaultLimit) {
        self.host = host
        self.limit = limit
    }

    /// Hands the outcome to `finish`, once: at once if the transfer already ended (a deadline
    /// or cancellation before the task started), else when it ends.
    public func onFinish(_ finish: @escaping @Sendable (Result<SyncHTTPResponse, SyncHTTPError>) -> Void) {
        let ended = lock.withLock { () -> Result<SyncHTTPResponse, SyncHTTPError>? in
            if let result = state.result { return result }
            state.finish = finish
            return nil
        }
        if let ended { finish(ended) }
    }

    /// The answer's status line and headers arrived. Returns `false` when the task must be
    /// cancelled: it announces a body larger than the limit.
    public func receivedHead(status: Int, headers: [String: String], expectedLength: Int64) -> Bool {
        lock.withLock {
            state.status = status
            state.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        if expectedLength > Int64(limit) {
            _ = interrupt(.tooLarge)
            return false
        }
        return true
    }

    /// A piece of the body arrived. Returns `false` when the task must be cancelled: the body is
    /// now over the limit (what came is dropped).
    public func received(_ data: Data) -> Bool {
        enum Taken { case taken, ended, over }
        let taken = lock.withLock { () -> Taken in
            guard state.result == nil, state.interruption == nil else { return .ended }
            if state.body.count + data.count > limit { return .over }
            state.body.append(data)
            return .taken
        }
        switch taken {
        case .taken: return true
        case .ended: return false
        case .over:
            _ = interrupt(.tooLarge)
            return false
        }
    }

    /// Ends the transfer for `reason` unless it already ended. Returns whether it did, so the
    /// caller cancels the task.
    public func interrupt(_ reason: Interruption) -> Bool {
        let error: SyncHTTPError =
            switch reason {
            case .deadline: .timedOut(host)
            case .untrusted(let why): .untrusted(host, reason: why)
            case .tooLarge: .responseTooLarge(limit: limit)
            case .cancelled: .cannotConnect(host, reason: "the request was cancelled")
            case .notHTTP(let why): .invalidResponse(why)
            }
        let ended = lock.withLock {
            guard state.result == nil, state.interruption == nil else { return false }
            state.interruption = reason
            return true
        }
        if ended { end(.failure(error)) }
        return ended
    }

    /// URL loading ended the task: with no error (the answer is complete), or with `error`'s
    /// code and text. An error after ``interrupt(_:)`` is the cancellation it caused and changes
    /// nothing.
    public func completed(error: (code: URLError.Code, description: String)?) {
        let outcome = lock.withLock { () -> Result<SyncHTTPResponse, SyncHTTPError>? in
            guard state.result == nil, state.interruption == nil else { return nil }
            if let error { return .failure(Self.error(code: error.code, description: error.description, host: host, limit: limit)) }
            guard let status = state.status else { return .failure(.invalidResponse("no HTTP status came")) }
            return .success(SyncHTTPResponse(status: status, headers: state.headers, body: state.body))
        }
        if let outcome { end(outcome) }
    }

    /// The outcome, once the transfer ended.
    public var outcome: Result<SyncHTTPResponse, SyncHTTPError>? { lock.withLock { state.result } }

    private func end(_ result: Result<SyncHTTPResponse, SyncHTTPError>) {
        let finish = lock.withLock { () -> (@Sendable (Result<SyncHTTPResponse, SyncHTTPError>) -> Void)? in
            state.result = result
            state.body = Data()
            defer { state.finish = nil }
            return state.finish
        }
        finish?(result)
    }

    /// How URL loading's error `code` reads as a sync error. Cancellation is not among them:
    /// the app cancels only through ``interrupt(_:)``, which says why.
    public static func error(code: URLError.Code, description: String, host: String, limit: Int) -> SyncHTTPError {
        switch code {
        case .timedOut:
            .timedOut(host)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
            .appTransportSecurityRequiresSecureConnection:
            .untrusted(host, reason: description)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .zeroByteResource,
            .httpTooManyRedirects, .redirectToNonExistentLocation:
            .invalidResponse(description)
        case .dataLengthExceedsMaximum:
            .responseTooLarge(limit: limit)
        case .badURL, .unsupportedURL:
            .invalidServerURL(host)
        default:
            // No host, no route, no network, the connection lost, cancelled by the system.
            .cannotConnect(host, reason: description)
        }
    }
}

/// The address of one sync request: the serving home's `https://HOST[:PORT]` and the
/// request's path, which may not lead anywhere else.
public enum SyncRequestAddress {
    /// `path` (`/sync/v1/exchange`, `/sync/v1/wait?after=12`) on `server`.
    ///
    /// - Throws: ``SyncHTTPError/invalidServerURL(_:)`` when `server` is not `https://HOST[:PORT]`
    ///   or `path` is not a path on it (no `//`, no scheme, nothing that changes the host).
    public static func url(server: URL, path: String) throws(SyncHTTPError) -> URL {
        guard server.scheme?.lowercased() == "https", let host = server.host, !host.isEmpty, server.user == nil,
            server.query == nil, server.path.isEmpty || server.path == "/"
        else { throw .invalidServerURL(server.absoluteString) }
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains(where: { $0.isWhitespace || $0 == "#" || $0 == "\\" }),
            let url = URL(string: path, relativeTo: server)?.absoluteURL, url.scheme == "https", url.host == host,
            url.port == server.port
        else { throw .invalidServerURL(server.absoluteString + path) }
        return url
    }
}

/// What a sync request does about the server's certificate, from the home's
/// ``SyncServerTrust`` and the certificates the server presented (DER, leaf first).
public enum SyncTrustStep: Sendable, Hashable {
    /// The system's certificate authorities decide, as for any site.
    case systemDefault
    /// The chain must verify with the certificate at this index of the presented chain as its
    /// only trust root (signatures, dates, the host name or address): the pinned certificate.
    case verify(anchorIndex: Int)
    /// Refused before any check: no presented certificate is the pinned one.
    case refuse(String)

    /// The step for `trust` and the presented `chain`.
    public init(trust: SyncServerTrust, chain: [Data]) {
        switch trust {
        case .system:
            self = .systemDefault
        case .pinned(let pin):
            if let index = chain.firstIndex(where: { Self.sha256($0) == pin }) {
                self = .verify(anchorIndex: index)
            } else {
                self = .refuse(
                    "none of the \(chain.count) certificates it presented is the one the invitation pinned"
                        + " (SHA-256 \(SyncTrustStep.hex(pin)))")
            }
        }
    }

    /// The SHA-256 of a certificate's DER: its pin.
    public static func sha256(_ der: Data) -> Data { Data(SHA256.hash(data: der)) }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}

/// A request's timeout as URL loading counts it.
extension Duration {
    /// This duration in seconds, for `URLRequest.timeoutInterval`.
    public var syncSeconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
