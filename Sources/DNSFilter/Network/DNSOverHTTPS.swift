import Foundation

/// DNS over HTTPS (RFC 8484) as far as both its clients agree: the media type, and when an
/// HTTP response carries a usable answer. The DNS server's `https://` upstreams
/// (async-http-client) and the packet tunnel's upstream (URLSession) each send the query their
/// own way and then ask ``check(status:contentType:bodySize:)``, so an answer one takes the
/// other takes too.
public enum DNSOverHTTPS {
    /// The media type of DNS messages, both ways.
    public static let mediaType = "application/dns-message"
    /// The largest answer accepted: a DNS message over TCP is at most this long.
    public static let maximumResponseBytes = 65_535
    /// The smallest: a DNS header.
    public static let minimumResponseBytes = 12

    /// Accepts a `200` response of type `application/dns-message` (parameters and case aside)
    /// whose body could be a DNS message.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - contentType: The `Content-Type` header, if any.
    ///   - bodySize: The body's length in bytes.
    /// - Throws: ``DNSUpstreamError`` naming what is wrong.
    public static func check(status: Int, contentType: String?, bodySize: Int) throws(DNSUpstreamError) {
        guard status == 200 else { throw .status(status) }
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type == mediaType else { throw .contentType(type ?? "none") }
        guard (minimumResponseBytes...maximumResponseBytes).contains(bodySize) else { throw .size(bodySize) }
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
