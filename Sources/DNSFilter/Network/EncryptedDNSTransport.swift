/// How a device reaches a server's encrypted DNS: DNS over HTTPS (RFC 8484) or DNS over TLS
/// (RFC 7858). Raw values as `pepper dns profile --protocol` and the console's form spell them.
public enum EncryptedDNSTransport: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// DNS over HTTPS.
    case https
    /// DNS over TLS.
    case tls

    /// `DNS over HTTPS` or `DNS over TLS`.
    public var description: String {
        switch self {
        case .https: "DNS over HTTPS"
        case .tls: "DNS over TLS"
        }
    }
}

extension EncryptedDNSEndpoint {
    /// The port `transport` is served on, `nil` when it is not.
    public func port(_ transport: EncryptedDNSTransport) -> Int? {
        switch transport {
        case .https: httpsPort
        case .tls: tlsPort
        }
    }

    /// What a device is given for `transport`: the DNS-over-HTTPS URL or the DNS-over-TLS
    /// server name for `device`; `nil` when `transport` is not served.
    public func address(_ transport: EncryptedDNSTransport, device: DNSDeviceName? = nil) -> String? {
        switch transport {
        case .https: httpsURL(device: device)
        case .tls: tlsServerName(device: device)
        }
    }
}
