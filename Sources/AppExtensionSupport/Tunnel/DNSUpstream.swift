import DNSFilter
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the packet tunnel sends the queries it does not answer itself.
public protocol DNSUpstream: Sendable {
    /// The response to `query` (a DNS message, as received from the device).
    func resolve(_ query: [UInt8]) async throws -> [UInt8]
}

/// DNS over HTTPS (RFC 8484) to a server the person chose (``TunnelUpstream``; Pepper names
/// none of its own): a query is POSTed as `application/dns-message`. Through URLSession, so it
/// works in an iOS network extension as on Linux; a provider's own connections leave by the
/// normal route, not through its tunnel. A server given by an IP address needs no lookup; the
/// lookups of a server's host name go to the network's resolvers (``BootstrappedUpstream``).
public struct DNSOverHTTPSUpstream: DNSUpstream {
    /// The server's query URL.
    public let url: URL
    /// The longest a query may take.
    public let timeout: TimeInterval
    private let session: URLSession

    /// An upstream at `url`.
    public init(url: URL, timeout: TimeInterval = 5) {
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
        request.setValue(DNSOverHTTPS.mediaType, forHTTPHeaderField: "Content-Type")
        request.setValue(DNSOverHTTPS.mediaType, forHTTPHeaderField: "Accept")
        request.httpBody = Data(query)
        return request
    }

    /// Sends `query` and checks the answer is a DNS message.
    public func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        let (data, response) = try await session.data(for: request(for: query))
        try Self.check(response, bodySize: data.count)
        return Array(data)
    }

    /// Accepts what ``DNSOverHTTPS/check(status:contentType:bodySize:)`` accepts (the DNS
    /// server's upstreams decide with it too), from an HTTP response.
    ///
    /// - Throws: ``DNSUpstreamError`` naming what is wrong.
    public static func check(_ response: URLResponse, bodySize: Int) throws(DNSUpstreamError) {
        guard let http = response as? HTTPURLResponse else { throw .notHTTP }
        try DNSOverHTTPS.check(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), bodySize: bodySize)
    }
}
