import DeviceSync
import Foundation
import NIOCore

/// Where a serving home listens, read from its `https://HOST[:PORT]` address: a host name, or an
/// IPv4 or IPv6 address (the certificate must then name that address).
struct SyncServerAddress: Sendable, Hashable {
    /// The host name, lower-cased, or the IP address as written (without brackets).
    let host: String
    /// The TCP port (443 unless the address says otherwise).
    let port: Int
    /// The socket address when `host` is an IP address: it is connected to without a lookup,
    /// and sent without SNI (RFC 6066 allows only host names there).
    let ipAddress: SocketAddress?

    /// The address of `url`.
    ///
    /// - Throws: ``SyncHTTPError/invalidServerURL(_:)`` unless `url` is `https://HOST[:PORT]`
    ///   with at most a `/` after it: sync crosses the network only over TLS, and a path, query,
    ///   user or fragment means the address was meant for something else.
    init(_ url: URL) throws(SyncHTTPError) {
        guard url.scheme?.lowercased() == "https", var host = url.host, !host.isEmpty, url.user == nil, url.password == nil,
            url.query == nil, url.fragment == nil, url.path.isEmpty || url.path == "/"
        else { throw .invalidServerURL(url.absoluteString) }
        // Some Foundations keep an IPv6 literal's brackets.
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? 443
        guard (1...65_535).contains(port) else { throw .invalidServerURL(url.absoluteString) }
        // A zone index (`fe80::1%eth0`) names an interface of this machine: not an address a
        // certificate can name, nor one an invitation can carry to another device.
        if !host.contains("%"), let address = try? SocketAddress(ipAddress: host, port: port) {
            self.host = host
            ipAddress = address
        } else if Self.isHostName(host) {
            self.host = host.lowercased()
            ipAddress = nil
        } else {
            throw .invalidServerURL(url.absoluteString)
        }
        self.port = port
    }

    /// `HOST:PORT` (`[ADDRESS]:PORT` for IPv6), as errors name the server.
    var authority: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(shown):\(port)"
    }

    /// The `Host` header: the authority without the default port.
    var hostHeader: String {
        port == 443 ? (host.contains(":") ? "[\(host)]" : host) : authority
    }

    /// The name to send in SNI and to check the certificate against; `nil` for an IP address,
    /// whose certificate NIOSSL checks against the connected address instead.
    var serverName: String? { ipAddress == nil ? host : nil }

    /// Letters, digits and hyphens in dot-separated labels of 1 to 63 characters, 253 in all:
    /// what DNS and a certificate's names can hold (a zone index such as `%eth0` is not).
    private static func isHostName(_ text: String) -> Bool {
        guard text.utf8.count <= 253 else { return false }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
        }
    }
}
