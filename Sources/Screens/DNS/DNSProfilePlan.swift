import DNSFilter
import Foundation
import PepperActions

/// What one device's encrypted-DNS settings point at, decided in one place for
/// `pepper dns profile` and the console's DNS page: which server and ports (the running
/// `pepper dns serve`'s, unless told otherwise), DNS over HTTPS or TLS, the addresses the device
/// is given (the DoH URL, the DoT name, Android's Private DNS host name), and which certificate
/// authority its Apple profile carries.
public struct DNSProfilePlan: Sendable, Hashable {
    /// Which CA a profile carries.
    public enum CertificateAuthorityChoice: Sendable, Hashable {
        /// The running server's private CA when it says its certificate comes from one; else
        /// the home's CA when the home's server certificate (issued by it) names the server;
        /// else none (a certificate devices already trust).
        case automatic
        /// The CA certificate in this PEM file.
        case file(String)
        /// None.
        case none
    }

    /// Where the chosen CA comes from.
    public enum CertificateAuthoritySource: String, Sendable, Hashable {
        /// The running server's (`DNSServerStatus.privateCA`).
        case runningServer
        /// The home's, which issued the home's server certificate for this server.
        case home
        /// Given by the person.
        case given
    }

    /// What is asked for; `nil` fields take the running server's values.
    public struct Request: Sendable, Hashable {
        /// The device's name, as typed.
        public var device: String
        /// DNS over HTTPS or TLS; `nil`: HTTPS when served, else TLS.
        public var transport: EncryptedDNSTransport?
        /// The server's host name; `nil`: the running server's.
        public var serverName: String?
        /// The DNS-over-HTTPS port devices reach (when it differs from the server's own, e.g. behind a forward).
        public var httpsPort: Int?
        /// The DNS-over-TLS port devices reach.
        public var tlsPort: Int?
        /// Which CA the profile carries.
        public var certificateAuthority: CertificateAuthorityChoice
        /// The server's IP addresses for the profile (the device then does not look the name up).
        public var addresses: [String]

        /// A request with the given fields.
        public init(
            device: String, transport: EncryptedDNSTransport? = nil, serverName: String? = nil, httpsPort: Int? = nil, tlsPort: Int? = nil,
            certificateAuthority: CertificateAuthorityChoice = .automatic, addresses: [String] = []
        ) {
            self.device = device
            self.transport = transport
            self.serverName = serverName
            self.httpsPort = httpsPort
            self.tlsPort = tlsPort
            self.certificateAuthority = certificateAuthority
            self.addresses = addresses
        }
    }

    /// Why no plan can be made, and the field it is about.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The device name is not one.
        case device(DNSDeviceName.Problem)
        /// The server name is not one.
        case serverName(DNSServerName.Problem)
        /// No server name given and no running server answers encrypted DNS.
        case noEncryptedServer
        /// The server does not serve the transport asked for.
        case notServed(EncryptedDNSTransport)
        /// DNS over TLS on a port other than 853: Apple's devices and Android ask on 853 only.
        case tlsPort(Int)
        /// A port out of range.
        case port(Int)
        /// An address is not an IP address.
        case address(String)

        /// The form field it is about (the console's names).
        public var field: String? {
            switch self {
            case .device: "device"
            case .serverName, .noEncryptedServer: "server-name"
            case .notServed, .tlsPort: "protocol"
            case .port: "port"
            case .address: "address"
            }
        }

        public var description: String {
            switch self {
            case .device(let problem): Text.sentence(problem.description)
            case .serverName(let problem): Text.sentence(problem.description)
            case .noEncryptedServer:
                "No running pepper dns serve answers DNS over TLS or HTTPS: start it with `pepper dns serve \(DNSProfilePlan.startFlags)`, or give the server's name."
            case .notServed(let transport):
                "The server does not answer \(transport): start pepper dns serve with \(transport == .https ? "--https-listen IP:443" : "--tls-listen IP:853"), or choose the other protocol."
            case .tlsPort(let port):
                "Phones ask DNS over TLS on port 853 only, and the server answers it on \(port): choose DNS over HTTPS, or serve DNS over TLS on 853 (or forward 853 to \(port))."
            case .port(let port): "\(port) is not a port (1–65535)."
            case .address(let text): "\(text) is not an IP address."
            }
        }

        /// The problem as a form's notice.
        public var notice: Notice { .error(description, field: field) }
    }

    /// The flags of `pepper dns serve` that start DNS over TLS and HTTPS.
    public static let startFlags = "--server-name HOST --tls-listen IP:853 --https-listen IP:443"

    /// The device.
    public let device: DNSDeviceName
    /// Where the server answers (ports as devices reach them).
    public let endpoint: EncryptedDNSEndpoint
    /// How the device's profile reaches it.
    public let transport: EncryptedDNSTransport
    /// The CA certificate the profile carries (a PEM file, or the running server's PEM text), if any.
    public let certificateAuthority: String?
    /// Where ``certificateAuthority`` comes from.
    public let certificateAuthoritySource: CertificateAuthoritySource?
    /// The server's IP addresses for the profile.
    public let addresses: [String]
    /// Whether the server and ports are the running server's.
    public let fromRunningServer: Bool

    /// The device's DNS-over-HTTPS URL, when served.
    public var httpsURL: String? { endpoint.httpsURL(device: device) }
    /// The device's DNS-over-TLS server name, when served.
    public var tlsServerName: String? { endpoint.tlsServerName(device: device) }
    /// The host name for Android's Private DNS setting, when DNS over TLS is served on 853.
    public var androidHostname: String? { endpoint.androidPrivateDNSHostname(device: device) }
    /// Whether the server's certificate comes from a private CA, which Android's Private DNS does
    /// not use (it checks the system's CAs only): the Android host name then needs a certificate
    /// from a public CA.
    public var androidNeedsPublicCertificate: Bool { certificateAuthority != nil }
    /// What the profile points at: the URL or the DoT name.
    public var profileAddress: String { endpoint.address(transport, device: device) ?? endpoint.serverName }

    /// The plan for `request`, with the running server's status (`nil`: none runs).
    /// `homeCertificateAuthority` gives the home's CA certificate file for a server name when the
    /// home's server certificate was issued by it for that name (the CA choice
    /// ``CertificateAuthorityChoice/automatic`` when the running server names no private CA).
    ///
    /// - Throws: ``Problem``, with the field it is about.
    public static func make(
        _ request: Request, server: DNSServerStatus?, homeCertificateAuthority: (String) -> String?
    ) throws(Problem) -> DNSProfilePlan {
        let device: DNSDeviceName
        do {
            device = try DNSDeviceName(request.device.trimmingCharacters(in: .whitespaces))
        } catch {
            throw .device(error)
        }
        let running = server?.encrypted
        var endpoint: EncryptedDNSEndpoint
        let fromRunningServer: Bool
        if let text = request.serverName?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            let name: DNSServerName
            do {
                name = try DNSServerName(text)
            } catch {
                throw .serverName(error)
            }
            fromRunningServer = running?.serverName == name.value
            endpoint = fromRunningServer ? running! : EncryptedDNSEndpoint(serverName: name.value)
        } else {
            guard let running else { throw .noEncryptedServer }
            endpoint = running
            fromRunningServer = true
        }
        for port in [request.httpsPort, request.tlsPort].compactMap({ $0 }) where !(1...65_535).contains(port) {
            throw .port(port)
        }
        if let port = request.httpsPort { endpoint.httpsPort = port }
        if let port = request.tlsPort { endpoint.tlsPort = port }
        let transport = request.transport ?? (endpoint.httpsPort != nil ? .https : .tls)
        guard let port = endpoint.port(transport) else { throw .notServed(transport) }
        if transport == .tls && port != 853 { throw .tlsPort(port) }
        var addresses: [String] = []
        for text in request.addresses.map({ $0.trimmingCharacters(in: .whitespaces) }) where !text.isEmpty {
            guard let address = IPAddress(text) else { throw .address(text) }
            if !addresses.contains(address.description) { addresses.append(address.description) }
        }
        let authority: (String, CertificateAuthoritySource)?
        switch request.certificateAuthority {
        case .none: authority = nil
        case .file(let path): authority = (path, .given)
        case .automatic:
            if fromRunningServer, let privateCA = server?.privateCA {
                authority = (privateCA, .runningServer)
            } else {
                // A server given the home's certificate by --tls-cert may not say so.
                authority = homeCertificateAuthority(endpoint.serverName).map { ($0, .home) }
            }
        }
        return DNSProfilePlan(
            device: device, endpoint: endpoint, transport: transport, certificateAuthority: authority?.0,
            certificateAuthoritySource: authority?.1, addresses: addresses, fromRunningServer: fromRunningServer)
    }
}
