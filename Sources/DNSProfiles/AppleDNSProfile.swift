import Crypto
import DNSFilter
import Foundation
import SwiftASN1
import X509

/// An Apple configuration profile (`.mobileconfig`) that sends one device's DNS, on every
/// network, to a Pepper server over DNS over HTTPS or TLS, under the device's own name; with the
/// private CA's certificate when the server's certificate comes from it.
///
/// The payloads and their keys are Apple's: `com.apple.dnsSettings.managed`
/// (https://developer.apple.com/documentation/devicemanagement/dnssettings) and
/// `com.apple.security.root`
/// (https://developer.apple.com/documentation/devicemanagement/certificateroot), with the keys
/// common to every payload and the profile's top-level keys; their schemas are in
/// https://github.com/apple/device-management (mdm/profiles). `scripts/check-dns-profile.py`
/// checks a profile against them.
public struct AppleDNSProfile: Sendable, Hashable {
    /// The MIME type Safari and iOS open as a profile to install.
    public static let contentType = "application/x-apple-aspen-config"

    /// Why a profile cannot be made for an endpoint.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The server does not serve the transport asked for.
        case notServed(EncryptedDNSTransport, serverName: String)
        /// DNS over TLS on a port other than 853, which Apple's devices do not use.
        case tlsPort(Int)
        /// A server address is not an IP address.
        case address(String)

        public var description: String {
            switch self {
            case .notServed(let transport, let serverName): "\(serverName) does not serve \(transport)"
            case .tlsPort(let port):
                "Apple's devices ask DNS over TLS on port 853 only, and this server answers it on \(port): use DNS over HTTPS, or serve DNS over TLS on port 853 (or forward 853 to it)"
            case .address(let text): "\(text) is not an IP address"
            }
        }
    }

    /// The device.
    public let device: DNSDeviceName
    /// Where the server answers.
    public let endpoint: EncryptedDNSEndpoint
    /// How the device reaches it.
    public let transport: EncryptedDNSTransport
    /// The server's IP addresses, when the device should not look its name up.
    public let serverAddresses: [String]
    /// The CA to trust, when the server's certificate comes from a private one.
    public let rootCertificate: RootCertificate?

    /// The profile for `device` to reach `endpoint` over `transport`.
    ///
    /// - Throws: ``Problem`` when the endpoint does not serve `transport` (or serves DNS over TLS
    ///   on a port Apple's devices do not use), or an address is not an IP address.
    public init(
        device: DNSDeviceName, endpoint: EncryptedDNSEndpoint, transport: EncryptedDNSTransport, serverAddresses: [String] = [],
        rootCertificate: RootCertificate? = nil
    ) throws(Problem) {
        guard let port = endpoint.port(transport) else { throw .notServed(transport, serverName: endpoint.serverName) }
        // The profile has no port for DNS over TLS: the device asks on 853.
        if transport == .tls && port != 853 { throw .tlsPort(port) }
        if let bad = serverAddresses.first(where: { IPAddress($0) == nil }) { throw .address(bad) }
        self.device = device
        self.endpoint = endpoint
        self.transport = transport
        self.serverAddresses = serverAddresses
        self.rootCertificate = rootCertificate
    }

    /// The server's host name.
    public var serverName: String { endpoint.serverName }

    /// The URL (DNS over HTTPS) or host name (DNS over TLS) the device is sent to.
    public var address: String { endpoint.address(transport, device: device) ?? endpoint.serverName }

    /// The name to save it under: `DEVICE.mobileconfig`.
    public var fileName: String { "\(device.value).mobileconfig" }

    /// The profile's identifier: the same for one device of one server whatever else changes, so
    /// that installing a newer profile replaces the older one instead of adding a second.
    public var identifier: String { "pepper.dns.\(serverName).\(device.value)" }

    /// The profile as an XML property list.
    public func propertyList() throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: dictionary(), format: .xml, options: 0)
    }

    /// The profile as a dictionary (what ``propertyList()`` writes).
    func dictionary() -> [String: Any] {
        var settings: [String: Any]
        switch transport {
        case .https: settings = ["DNSProtocol": "HTTPS", "ServerURL": address]
        case .tls: settings = ["DNSProtocol": "TLS", "ServerName": address]
        }
        let how = "\(transport) (\(address))"
        if !serverAddresses.isEmpty { settings["ServerAddresses"] = serverAddresses }
        var payloads: [[String: Any]] = []
        if let rootCertificate {
            payloads.append(
                payload(
                    type: "com.apple.security.root", suffix: "root-ca", name: rootCertificate.name,
                    description:
                        "The private certificate authority of the Pepper server \(serverName): it issued the server's certificate.",
                    content: [
                        "PayloadContent": Data(rootCertificate.derBytes),
                        "PayloadCertificateFileName": "pepper-ca.cer",
                    ]))
        }
        payloads.append(
            payload(
                type: "com.apple.dnsSettings.managed", suffix: "dns-settings", name: "Pepper DNS filter (\(device))",
                description: "Sends this device's DNS queries to Pepper at \(serverName), as \(device), over \(how).",
                content: ["DNSSettings": settings]))
        var description =
            "Sends this device's DNS queries, on Wi-Fi and mobile data, to the Pepper DNS filter at \(serverName) as the device \"\(device)\", over \(how)."
        if let rootCertificate {
            description +=
                " It also installs \(rootCertificate.name), which issued the server's certificate: turn on full trust for it in Settings → General → About → Certificate Trust Settings."
        }
        return [
            "PayloadType": "Configuration",
            "PayloadVersion": 1,
            "PayloadIdentifier": identifier,
            "PayloadUUID": Self.stableUUID(identifier),
            "PayloadDisplayName": "Pepper DNS filter (\(device))",
            "PayloadDescription": description,
            "PayloadOrganization": "Pepper",
            "PayloadContent": payloads,
        ]
    }

    private func payload(type: String, suffix: String, name: String, description: String, content: [String: Any]) -> [String: Any] {
        let identifier = "\(identifier).\(suffix)"
        return content.merging(
            [
                "PayloadType": type,
                "PayloadVersion": 1,
                "PayloadIdentifier": identifier,
                "PayloadUUID": Self.stableUUID(identifier),
                "PayloadDisplayName": name,
                "PayloadDescription": description,
            ],
            uniquingKeysWith: { first, _ in first })
    }

    /// A UUID that depends on `name` only (the first 128 bits of its SHA-256, marked as an RFC 9562
    /// version 8 UUID): a device's profile keeps its UUIDs from one download to the next, which
    /// Apple's devices need to update it in place.
    static func stableUUID(_ name: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("pepper-dns-profile:\(name)".utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString
    }

    /// A CA's certificate for a profile to install.
    public struct RootCertificate: Sendable, Hashable {
        /// Its DER bytes.
        public let derBytes: [UInt8]
        /// Its subject's common name (`Pepper private CA (dns.example)`), or the whole subject.
        public let name: String

        /// The CA certificate `certificate`.
        ///
        /// - Throws: ``DNSCertificateError/notACertificateAuthority(_:)`` when it is not a CA's.
        public init(_ certificate: Certificate, source: String) throws(DNSCertificateError) {
            guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints else {
                throw .notACertificateAuthority(source)
            }
            do {
                derBytes = try certificate.derBytes
            } catch {
                throw .unreadable(path: source, reason: "\(error)")
            }
            name = certificate.commonName
        }

        /// The CA certificate in the PEM file at `path` (or, when `path` is PEM text itself, in it).
        public init(pem path: String) throws(DNSCertificateError) {
            let certificate: Certificate
            if path.contains("-----BEGIN CERTIFICATE-----") {
                do {
                    certificate = try Certificate(pemEncoded: path)
                } catch {
                    throw .unreadable(path: "the private CA's certificate", reason: "not a PEM certificate (\(error))")
                }
                try self.init(certificate, source: "the private CA's certificate")
            } else {
                certificate = try PEMFiles.certificate(at: URL(fileURLWithPath: path))
                try self.init(certificate, source: path)
            }
        }
    }
}
