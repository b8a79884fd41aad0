import DNSFilter
import Foundation
import X509

extension DNSCertificateFiles {
    /// What ``make(serverName:addresses:replaceCertificateAuthority:now:)`` did.
    public struct Made: Sendable {
        /// The CA that issued the server certificate.
        public var certificateAuthority: PrivateCertificateAuthority
        /// The server certificate.
        public var server: IssuedServerCertificate
        /// Whether the CA is new (none was there, or it replaced one): devices must trust it.
        public var newCertificateAuthority: Bool
        /// Whether a CA was there and was replaced.
        public var replacedCertificateAuthority: Bool
    }

    /// Makes what a home's DNS server needs for DNS over TLS and HTTPS: a private CA when the home
    /// has none (or `replaceCertificateAuthority` asks for a new one), and a server certificate
    /// from it for `serverName`, `*.serverName` and `addresses`. An existing CA is kept, so
    /// devices that trust it keep working with the new server certificate.
    ///
    /// Everything is checked and made before anything is written.
    ///
    /// - Throws: ``DNSCertificateError``: a bad server name or address, or an existing CA that
    ///   cannot be read or whose key does not match (never replaced unless asked).
    public func make(
        serverName: String, addresses: [String] = [], replaceCertificateAuthority: Bool = false, now: Date = Date()
    ) throws(DNSCertificateError) -> Made {
        let name = try Self.serverName(serverName)
        let ips = try Self.addresses(addresses)
        let existed = hasCertificateAuthority
        let authority: PrivateCertificateAuthority
        if existed && !replaceCertificateAuthority {
            authority = try PrivateCertificateAuthority.load(self)
        } else {
            authority = try PrivateCertificateAuthority.generate(serverName: name, now: now)
        }
        let server = try authority.issueServerCertificate(serverName: name, addresses: ips, now: now)
        let isNew = !existed || replaceCertificateAuthority
        if isNew { try write(authority) }
        try write(server)
        return Made(
            certificateAuthority: authority, server: server, newCertificateAuthority: isNew, replacedCertificateAuthority: existed && isNew)
    }

    /// Creates the home's private CA and writes it; the server certificate is left as it is.
    ///
    /// - Throws: ``DNSCertificateError/certificateAuthorityExists(_:)`` when the home has one
    ///   and `replace` is false: devices may trust it, and a new one would leave them out.
    public func createCertificateAuthority(
        serverName: String, replace: Bool = false, now: Date = Date()
    ) throws(DNSCertificateError) -> PrivateCertificateAuthority {
        let name = try Self.serverName(serverName)
        guard replace || !hasCertificateAuthority else { throw .certificateAuthorityExists(directory.path) }
        let authority = try PrivateCertificateAuthority.generate(serverName: name, now: now)
        try write(authority)
        return authority
    }

    /// Issues a new server certificate from the home's CA and writes it, keeping the CA.
    ///
    /// - Throws: ``DNSCertificateError/noCertificateAuthority(_:)`` without a CA, and the
    ///   reasons ``PrivateCertificateAuthority/load(_:)`` gives.
    public func issueServerCertificate(
        serverName: String, addresses: [String] = [], now: Date = Date()
    ) throws(DNSCertificateError) -> IssuedServerCertificate {
        let name = try Self.serverName(serverName)
        let ips = try Self.addresses(addresses)
        let server = try PrivateCertificateAuthority.load(self).issueServerCertificate(serverName: name, addresses: ips, now: now)
        try write(server)
        return server
    }

    /// The home's CA certificate when the home's server certificate, which that CA issued, covers
    /// `serverName`: a profile for that server carries it. `nil` otherwise (the server then has
    /// a certificate from elsewhere, which devices trust without Pepper's CA).
    public func certificateAuthority(forServer serverName: String) -> URL? {
        guard let name = try? DNSServerName(serverName),
            let authority = try? PEMFiles.certificate(at: caCertificate),
            let server = try? PEMFiles.certificate(at: serverCertificate),
            server.dnsNames.contains(name.value),
            server.issuer == authority.subject,
            authority.publicKey.isValidSignature(server.signature, for: server)
        else { return nil }
        return caCertificate
    }

    private func write(_ authority: PrivateCertificateAuthority) throws(DNSCertificateError) {
        try PEMFiles.makeDirectory(directory)
        // The key first: a write cut short between the two leaves a key that does not match its
        // certificate, which ``PrivateCertificateAuthority/load(_:)`` refuses, never a
        // certificate whose key is lost.
        try PEMFiles.write(try PEMFiles.text(authority.privateKey), to: caKey, mode: 0o600)
        try PEMFiles.write(try PEMFiles.text(authority.certificate), to: caCertificate, mode: 0o644)
    }

    private func write(_ server: IssuedServerCertificate) throws(DNSCertificateError) {
        try PEMFiles.makeDirectory(directory)
        try PEMFiles.write(try PEMFiles.text(server.privateKey), to: serverKey, mode: 0o600)
        try PEMFiles.write(try PEMFiles.text(server.certificate), to: serverCertificate, mode: 0o644)
    }

    private static func serverName(_ text: String) throws(DNSCertificateError) -> DNSServerName {
        do {
            return try DNSServerName(text)
        } catch {
            throw .invalidServerName(error)
        }
    }

    private static func addresses(_ texts: [String]) throws(DNSCertificateError) -> [IPAddress] {
        var addresses: [IPAddress] = []
        for text in texts {
            guard let address = IPAddress(text) else { throw .invalidAddress(text) }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
