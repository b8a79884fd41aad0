import Foundation

/// An upstream resolver, as written after `--upstream`:
///
/// - `HOST[:PORT]` — plain DNS over UDP (TCP when an answer is truncated); HOST is an IP address
///   (`9.9.9.9`, `[2620:fe::fe]:53`), port 53 by default;
/// - `tls://HOST[:PORT][#NAME]` — DNS over TLS (RFC 7858), port 853 by default; the certificate
///   must name NAME, else HOST (a host name, or an IP address in the certificate);
/// - `https://HOST[:PORT]/PATH` — DNS over HTTPS (RFC 8484), POST `application/dns-message`.
public enum UpstreamAddress: Sendable, Hashable, CustomStringConvertible {
    /// Plain DNS to an address and port.
    case udp(host: IPAddress, port: Int)
    /// DNS over TLS: where to connect, and the name the certificate must carry (`nil`: the IP address).
    case tls(host: String, port: Int, serverName: String?)
    /// DNS over HTTPS: the endpoint URL.
    case https(url: String, host: String, port: Int, path: String)

    /// Why text is not an upstream.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text given.
        public var text: String
        /// What is wrong with it.
        public var reason: String

        public var description: String {
            "bad upstream '\(text)': \(reason) (use IP[:PORT], tls://HOST[:853][#NAME] or https://HOST/dns-query)"
        }
    }

    /// Parses an upstream.
    public init(_ text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        if let schemeEnd = trimmed.range(of: "://") {
            let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
            let rest = String(trimmed[schemeEnd.upperBound...])
            switch scheme {
            case "tls":
                var hostPort = rest
                var serverName: String?
                if let hash = rest.firstIndex(of: "#") {
                    hostPort = String(rest[..<hash])
                    serverName = String(rest[rest.index(after: hash)...])
                    guard let name = serverName, !name.isEmpty, Self.isHostName(name) else {
                        throw fail("the name after # is not a host name")
                    }
                }
                guard !hostPort.contains("/") else { throw fail("a DNS-over-TLS upstream has no path") }
                let (host, port) = try Self.hostAndPort(hostPort, defaultPort: 853, text: text)
                guard IPAddress(host) != nil || Self.isHostName(host) else { throw fail("'\(host)' is not an IP address or a host name") }
                self = .tls(host: host, port: port, serverName: serverName)
            case "https":
                let slash = rest.firstIndex(of: "/") ?? rest.endIndex
                let authority = String(rest[..<slash])
                var path = String(rest[slash...])
                if path.isEmpty { path = "/dns-query" }
                let (host, port) = try Self.hostAndPort(authority, defaultPort: 443, text: text)
                guard IPAddress(host) != nil || Self.isHostName(host) else { throw fail("'\(host)' is not an IP address or a host name") }
                guard URL(string: "https://\(authority)\(path)") != nil else { throw fail("not a valid URL") }
                self = .https(url: "https://\(authority)\(path)", host: host, port: port, path: path)
            case "http":
                throw fail("DNS over HTTPS needs https://")
            case "udp", "dns":
                self = try Self.plain(rest, text: text)
            default:
                throw fail("unknown scheme '\(scheme)://'")
            }
            return
        }
        self = try Self.plain(trimmed, text: text)
    }

    private static func plain(_ text: String, text original: String) throws(ParseError) -> UpstreamAddress {
        let (host, port) = try hostAndPort(text, defaultPort: 53, text: original)
        guard let address = IPAddress(host) else {
            throw ParseError(text: original, reason: "a plain DNS upstream must be an IP address, not a name ('\(host)')")
        }
        return .udp(host: address, port: port)
    }

    /// Splits `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address.
    private static func hostAndPort(_ text: String, defaultPort: Int, text original: String) throws(ParseError) -> (String, Int) {
        func fail(_ reason: String) -> ParseError { ParseError(text: original, reason: reason) }
        guard !text.isEmpty else { throw fail("no host") }
        var host = text
        var portText: String?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("missing ]") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after ]") }
                portText = String(after.dropFirst())
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard !host.isEmpty else { throw fail("no host") }
        var port = defaultPort
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else { throw fail("port must be 1–65535") }
            port = value
        }
        return (host, port)
    }

    /// Whether text is a plausible host name (letters, digits, `-`, `.`; no empty label).
    public static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63
                && label.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
                        || byte == 0x5F
                }
        }
    }

    public var description: String {
        switch self {
        case .udp(let host, let port): return "\(IPAddress.bracketed(host.description)):\(port)"
        case .tls(let host, let port, let name): return "tls://\(IPAddress.bracketed(host)):\(port)" + (name.map { "#\($0)" } ?? "")
        case .https(let url, _, _, _): return url
        }
    }
}

/// An address to listen on, `IP:PORT` or `[IPv6]:PORT`.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The IP address.
    public var host: IPAddress
    /// The port (0: any free port).
    public var port: Int

    /// Why text is not a listen address.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text given.
        public var text: String

        public var description: String { "bad address '\(text)': use IP:PORT, e.g. 127.0.0.1:5335 or [::1]:5335" }
    }

    /// An address from its parts.
    public init(host: IPAddress, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `IP:PORT` or `[IPv6]:PORT` (`localhost:PORT` is `127.0.0.1:PORT`). The one parser
    /// of listen addresses: every server of Pepper reads its `--listen` with it.
    public init(_ text: String) throws(ParseError) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("localhost:") { trimmed = "127.0.0.1" + trimmed.dropFirst("localhost".count) }
        var hostText: Substring
        var portText: Substring
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            hostText = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            let rest = trimmed[trimmed.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ParseError(text: text) }
            portText = rest.dropFirst()
        } else {
            guard let colon = trimmed.lastIndex(of: ":"), !trimmed[..<colon].contains(":") else { throw ParseError(text: text) }
            hostText = trimmed[..<colon]
            portText = trimmed[trimmed.index(after: colon)...]
        }
        guard let host = IPAddress(String(hostText)), let port = Int(portText), (0...65_535).contains(port) else {
            throw ParseError(text: text)
        }
        self.init(host: host, port: port)
    }

    public var description: String { "\(IPAddress.bracketed(host.description)):\(port)" }
}
