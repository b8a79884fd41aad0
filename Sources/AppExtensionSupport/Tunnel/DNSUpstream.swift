import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the packet tunnel sends the queries it does not answer itself.
public protocol DNSUpstream: Sendable {
    /// The response to `query` (a DNS message, as received from the device).
    func resolve(_ query: [UInt8]) async throws -> [UInt8]
}

/// DNS over HTTPS (RFC 8484): a query is POSTed as `application/dns-message`. Through URLSession,
/// so it works in an iOS network extension as on Linux; a provider's own connections leave by
/// the normal route, not through its tunnel, and an address given as an IP literal needs no
/// DNS lookup of its own.
public struct DNSOverHTTPSUpstream: DNSUpstream {
    /// The server's query URL.
    public let url: URL
    /// The longest a query may take.
    public let timeout: TimeInterval
    private let session: URLSession

    /// The default resolver: Cloudflare's, by IP address (its certificate names the address).
    public static let defaultURL = URL(string: "https://1.1.1.1/dns-query")!
    /// The media type of DNS messages.
    public static let mediaType = "application/dns-message"
    /// The largest response accepted.
    public static let maximumResponseBytes = 65_535

    /// An upstream at `url`.
    public init(url: URL = DNSOverHTTPSUpstream.defaultURL, timeout: TimeInterval = 5) {
        self.url = url
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// The HTTP request for `query`.
    public func request(for query: [UInt8]) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue(Self.mediaType, forHTTPHeaderField: "Content-Type")
        request.setValue(Self.mediaType, forHTTPHeaderField: "Accept")
        request.httpBody = Data(query)
        return request
    }

    /// Sends `query` and checks the answer is a DNS message.
    public func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        let (data, response) = try await session.data(for: request(for: query))
        try Self.check(response, bodySize: data.count)
        return Array(data)
    }

    /// Accepts a 200 response of type `application/dns-message` of a plausible size.
    ///
    /// - Throws: ``DNSUpstreamError`` naming what is wrong.
    public static func check(_ response: URLResponse, bodySize: Int) throws(DNSUpstreamError) {
        guard let http = response as? HTTPURLResponse else { throw .notHTTP }
        guard http.statusCode == 200 else { throw .status(http.statusCode) }
        let type = http.value(forHTTPHeaderField: "Content-Type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard type == mediaType else { throw .contentType(type ?? "none") }
        guard bodySize >= 12, bodySize <= maximumResponseBytes else { throw .size(bodySize) }
    }
}

/// Why an upstream's answer cannot be used.
public enum DNSUpstreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not an HTTP response.
    case notHTTP
    /// Another status than 200.
    case status(Int)
    /// Another media type than `application/dns-message`.
    case contentType(String)
    /// Too short to be a DNS message, or too long.
    case size(Int)
    /// The response does not answer the query (another ID or question).
    case mismatch

    public var description: String {
        switch self {
        case .notHTTP: return "the upstream did not answer over HTTP"
        case .status(let code): return "the upstream answered HTTP \(code)"
        case .contentType(let type): return "the upstream answered \(type), not a DNS message"
        case .size(let size): return "the upstream's answer has \(size) bytes"
        case .mismatch: return "the upstream's answer is for another query"
        }
    }
}
