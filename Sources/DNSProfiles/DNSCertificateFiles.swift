import Foundation
import PepperFiles

/// Where a home keeps the private certificate authority that `pepper dns certificate` makes and
/// the server certificate it issues, in `$PEPPER_HOME/dns-tls/` (PEM; keys readable by their
/// owner only). `pepper dns serve` answers DNS over TLS and HTTPS with ``serverCertificate`` and
/// ``serverKey`` when it is given no certificate of its own.
public struct DNSCertificateFiles: Sendable, Hashable {
    /// The folder of the four files.
    public let directory: URL

    /// The files in `home`'s `dns-tls` folder.
    public init(home: PepperHome) {
        self.init(directory: home.url.appendingPathComponent("dns-tls", isDirectory: true))
    }

    /// The files in `directory`.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The private CA's certificate (`ca.pem`): what devices trust, in their profiles.
    public var caCertificate: URL { directory.appendingPathComponent("ca.pem") }
    /// The private CA's key (`ca-key.pem`): it signs the server certificates. Never leaves the home.
    public var caKey: URL { directory.appendingPathComponent("ca-key.pem") }
    /// The server's certificate (`server.pem`), issued by the CA.
    public var serverCertificate: URL { directory.appendingPathComponent("server.pem") }
    /// The server's key (`server-key.pem`).
    public var serverKey: URL { directory.appendingPathComponent("server-key.pem") }

    /// Whether `certificate` is this home's server certificate (``serverCertificate``, however
    /// the path is spelt), which a server then sends with the CA after it.
    public func isServerCertificate(_ certificate: URL) -> Bool {
        certificate.standardizedFileURL.resolvingSymlinksInPath() == serverCertificate.resolvingSymlinksInPath()
    }

    /// The certificate a device pairing with a home for sync is to trust (`pepper sync code` and
    /// the console's Sync page): the private CA when the home serves its own server certificate,
    /// or serves nothing it names (and has a CA); else `served` itself (its last certificate is
    /// pinned); `nil` for the system's authorities.
    public func certificateToPin(serving served: URL?) -> URL? {
        let hasCA = FileManager.default.fileExists(atPath: caCertificate.path)
        guard let served else { return hasCA ? caCertificate : nil }
        return hasCA && isServerCertificate(served) ? caCertificate : served
    }

    /// Whether the home has a private CA (its certificate or its key).
    public var hasCertificateAuthority: Bool {
        FileManager.default.fileExists(atPath: caCertificate.path) || FileManager.default.fileExists(atPath: caKey.path)
    }
}
