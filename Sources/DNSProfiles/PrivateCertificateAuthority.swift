import Crypto
import DNSFilter
import Foundation
import SwiftASN1
import X509

/// Why a certificate could not be made, read or used; nothing was written.
public enum DNSCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server name is not a host name.
    case invalidServerName(DNSServerName.Problem)
    /// An address for the certificate is not an IP address.
    case invalidAddress(String)
    /// The home already has a private CA and replacing it was not asked for.
    case certificateAuthorityExists(String)
    /// The home has no private CA to issue from.
    case noCertificateAuthority(String)
    /// A file cannot be read as what it should hold.
    case unreadable(path: String, reason: String)
    /// A key is not the key of its certificate.
    case keyMismatch(certificate: String, key: String)
    /// A certificate given as a CA is not one.
    case notACertificateAuthority(String)
    /// A file cannot be written.
    case cannotWrite(path: String, reason: String)
    /// The certificate cannot be built or signed.
    case cannotSign(String)

    public var description: String {
        switch self {
        case .invalidServerName(let problem): "\(problem)"
        case .invalidAddress(let text): "\(text) is not an IP address"
        case .certificateAuthorityExists(let path):
            "\(path) already holds a private CA, which devices may trust already; it is kept unless replacing it is asked for (every device then needs its profile again)"
        case .noCertificateAuthority(let path): "\(path) holds no private CA (`pepper dns certificate` makes one)"
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .keyMismatch(let certificate, let key):
            "\(key) is not the key of \(certificate): the private CA cannot sign with it (replace the CA, and every device needs its profile again)"
        case .notACertificateAuthority(let path): "\(path) is not a certificate authority's certificate (its basic constraints say so)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotSign(let reason): "cannot make the certificate: \(reason)"
        }
    }
}

/// A private certificate authority for one home's DNS server: a P-256 key and its self-signed
/// certificate (10 years, basic constraints CA, key usage certificate and CRL signing). It
/// issues the server's certificate; devices trust it through their profile.
public struct PrivateCertificateAuthority: Sendable {
    /// Its certificate.
    public let certificate: Certificate
    /// Its key.
    let privateKey: Certificate.PrivateKey

    /// How long the CA lasts: devices trust it for that long without a new profile.
    public static let lifetime: TimeInterval = 3_650 * 86_400
    /// How long a server certificate lasts: 825 days, the most Apple's devices accept for a TLS
    /// server certificate (https://support.apple.com/en-us/103769); issue a new one before then.
    public static let serverCertificateLifetime: TimeInterval = 825 * 86_400
    /// How far back certificates start, for devices whose clock runs a little behind.
    static let backdating: TimeInterval = 3_600

    /// The CA's name: `Pepper private CA (HOST)`, as a device's certificate settings show it.
    public static func name(serverName: DNSServerName) -> String { "Pepper private CA (\(serverName))" }

    /// A new CA named for `serverName`, in memory.
    public static func generate(serverName: DNSServerName, now: Date = Date()) throws(DNSCertificateError) -> Self {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        do {
            let name = try DistinguishedName { CommonName(Self.name(serverName: serverName)) }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                notValidBefore: now - backdating, notValidAfter: now - backdating + lifetime, issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: key)
            return Self(certificate: certificate, privateKey: key)
        } catch {
            throw .cannotSign("\(error)")
        }
    }

    /// The CA of `files`: its certificate, and its key checked against it.
    public static func load(_ files: DNSCertificateFiles) throws(DNSCertificateError) -> Self {
        let manager = FileManager.default
        guard manager.fileExists(atPath: files.caCertificate.path) || manager.fileExists(atPath: files.caKey.path) else {
            throw .noCertificateAuthority(files.directory.path)
        }
        let certificate = try PEMFiles.certificate(at: files.caCertificate)
        let key = try PEMFiles.privateKey(at: files.caKey)
        guard key.publicKey == certificate.publicKey else {
            throw .keyMismatch(certificate: files.caCertificate.path, key: files.caKey.path)
        }
        guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints else {
            throw .notACertificateAuthority(files.caCertificate.path)
        }
        return Self(certificate: certificate, privateKey: key)
    }

    /// A new server certificate for `serverName`, `*.serverName` (a device's DNS-over-TLS name is
    /// `DEVICE.serverName`) and `addresses`: a new P-256 key, extended key usage server
    /// authentication, ``serverCertificateLifetime``, signed by this CA.
    public func issueServerCertificate(
        serverName: DNSServerName, addresses: [IPAddress] = [], now: Date = Date()
    ) throws(DNSCertificateError) -> IssuedServerCertificate {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        var names: [GeneralName] = [.dnsName(serverName.value), .dnsName("*." + serverName.value)]
        for address in addresses {
            let bytes = address.ipv4Bytes ?? address.ipv6Bytes
            names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
        }
        let start = now - Self.backdating
        do {
            let authorityKey = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: key.publicKey)
                AuthorityKeyIdentifier(keyIdentifier: authorityKey)
            }
            let issued = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey, notValidBefore: start,
                // Never past the CA's own end: a chain is only as valid as its CA.
                notValidAfter: min(start + Self.serverCertificateLifetime, certificate.notValidAfter), issuer: certificate.subject,
                subject: try DistinguishedName { CommonName(serverName.value) }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions, issuerPrivateKey: privateKey)
            return IssuedServerCertificate(certificate: issued, privateKey: key)
        } catch {
            throw .cannotSign("\(error)")
        }
    }

    /// Its name (its subject's common name).
    public var name: String { certificate.commonName }

    /// Whether this CA signed `certificate`.
    public func issued(_ certificate: Certificate) -> Bool {
        certificate.issuer == self.certificate.subject
            && self.certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    /// The certificate's DER bytes, as a profile carries it.
    public var derBytes: [UInt8] { (try? certificate.derBytes) ?? [] }
}

/// A server certificate and its key.
public struct IssuedServerCertificate: Sendable {
    /// The certificate.
    public let certificate: Certificate
    /// Its key.
    let privateKey: Certificate.PrivateKey

    /// The DNS names it covers (from its subject alternative names).
    public var dnsNames: [String] { certificate.dnsNames }
    /// The IP addresses it covers.
    public var addresses: [IPAddress] { certificate.ipAddresses }
}

extension Certificate {
    /// The DER encoding.
    var derBytes: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(self)
            return serializer.serializedBytes
        }
    }

    /// Its subject's common name, or the whole subject without one.
    var commonName: String {
        let attribute = subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }
        return attribute.map { "\($0.value)" } ?? "\(subject)"
    }

    /// The DNS names of its subject alternative names.
    var dnsNames: [String] {
        guard let names = try? extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            if case .dnsName(let text) = name { return text }
            return nil
        }
    }

    /// The IP addresses of its subject alternative names.
    var ipAddresses: [IPAddress] {
        guard let names = try? extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            guard case .ipAddress(let octets) = name else { return nil }
            let bytes = Array(octets.bytes)
            switch bytes.count {
            case 4: return IPAddress(ipv4: bytes[0], bytes[1], bytes[2], bytes[3])
            case 16: return IPAddress(ipv6Bytes: bytes)
            default: return nil
            }
        }
    }
}
