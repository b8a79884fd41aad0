import Foundation

/// One HTTP request as sync sends it: a method, a path on the serving home, headers and a body.
public struct SyncHTTPRequest: Sendable, Hashable {
    /// `GET` or `POST`.
    public var method: String
    /// The path and query on the serving home, such as `/sync/v1/exchange`.
    public var path: String
    /// Header names and values (the client adds `Host`, `Content-Length` and `Connection`).
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?
    /// How long to wait for the whole answer.
    public var timeout: Duration

    /// A request with these parts.
    public init(method: String, path: String, headers: [String: String] = [:], body: Data? = nil, timeout: Duration = .seconds(30)) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The serving home's answer.
public struct SyncHTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header names (lower-case) and values.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// An answer with these parts.
    public init(status: Int, headers: [String: String] = [:], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Which certificates a following home trusts when it reaches the serving one.
public enum SyncServerTrust: Sendable, Hashable {
    /// The system's certificate authorities (a serving home with a public certificate).
    case system
    /// The certificate whose DER has this SHA-256 (32 bytes) — the serving home's private
    /// certificate authority, or its own certificate — as the only trust root: the server's chain
    /// must verify to it (signatures, dates, the host name or IP address). That the chain merely
    /// holds the certificate is not enough: anyone can send a public CA's certificate along.
    case pinned(sha256: Data)
}

/// Why an HTTP exchange with the serving home failed before an answer came.
public enum SyncHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address is not `https://host[:port]` (sync crosses the network only over TLS).
    case invalidServerURL(String)
    /// No connection could be made (the host and the reason).
    case cannotConnect(String, reason: String)
    /// The TLS handshake failed or the certificate was not trusted (the reason says which).
    case untrusted(String, reason: String)
    /// No whole answer within the request's timeout.
    case timedOut(String)
    /// The answer's body is larger than the client takes.
    case responseTooLarge(limit: Int)
    /// The answer is not HTTP the client can read.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .invalidServerURL(let text):
            "\(text) is not an https:// address of a Pepper home (sync crosses the network only over TLS)"
        case .cannotConnect(let host, let reason): "cannot connect to \(host): \(reason)"
        case .untrusted(let host, let reason): "\(host)'s certificate is not trusted: \(reason)"
        case .timedOut(let host): "\(host) did not answer in time"
        case .responseTooLarge(let limit): "the answer is larger than the \(limit) bytes taken"
        case .invalidResponse(let why): "the answer is not one a Pepper home gives: \(why)"
        }
    }
}

/// Sends sync's HTTP requests to one serving home over TLS. Linux uses one built on SwiftNIO
/// (`SyncHTTP`); the Apple app one built on `URLSession`. Both check the server's certificate
/// with a ``SyncServerTrust``.
public protocol SyncHTTPClient: Sendable {
    /// Sends `request` and returns the answer, whatever its status.
    ///
    /// - Throws: ``SyncHTTPError`` when no answer came.
    func send(_ request: SyncHTTPRequest) async throws(SyncHTTPError) -> SyncHTTPResponse
}
