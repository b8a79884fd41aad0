import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOSSL

/// The certificate and key of the DNS-over-TLS and DNS-over-HTTPS listeners, read from two PEM
/// files and read again when either changes (a renewed certificate is used by the next
/// connection; open ones keep theirs). A renewal that cannot be read keeps the last good pair.
final class ServerCertificate: Sendable {
    /// The certificate chain's file (the server's certificate first).
    let certificateFile: String
    /// The private key's file.
    let keyFile: String

    private struct Loaded {
        var tls: NIOSSLContext
        var https: NIOSSLContext
        var stamp: [FileStamp]
    }

    /// What a file looked like when read: a renewal changes one of these.
    struct FileStamp: Equatable {
        var modified: Date?
        var size: Int?
        var inode: Int?
    }

    private let loaded: NIOLockedValueBox<Loaded>

    /// Reads the files.
    ///
    /// - Throws: ``DNSServerError/badCertificate(_:_:)`` saying which file and why.
    init(certificateFile: String, keyFile: String) throws(DNSServerError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        loaded = NIOLockedValueBox(try Self.load(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// The context for DNS over TLS (ALPN `dot`, RFC 7858 §3.2 / RFC 9461's registered name).
    var tlsContext: NIOSSLContext { loaded.withLockedValue { $0.tls } }
    /// The context for DNS over HTTPS (ALPN `h2`, then `http/1.1`).
    var httpsContext: NIOSSLContext { loaded.withLockedValue { $0.https } }

    /// Reads the files again when they changed; returns whether a new pair is in use, or throws
    /// (keeping the old pair) when the new files cannot be used.
    @discardableResult
    func reloadIfChanged() throws(DNSServerError) -> Bool {
        let stamp = Self.stamp(certificateFile, keyFile)
        guard stamp != loaded.withLockedValue({ $0.stamp }) else { return false }
        do {
            let fresh = try Self.load(certificateFile: certificateFile, keyFile: keyFile)
            loaded.withLockedValue { $0 = fresh }
            return true
        } catch {
            // Not tried again until the files change once more (a half-written renewal will).
            loaded.withLockedValue { $0.stamp = stamp }
            throw error
        }
    }

    private static func stamp(_ paths: String...) -> [FileStamp] {
        paths.map { path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return FileStamp(
                modified: attributes?[.modificationDate] as? Date, size: (attributes?[.size] as? NSNumber)?.intValue,
                inode: (attributes?[.systemFileNumber] as? NSNumber)?.intValue)
        }
    }

    private static func load(certificateFile: String, keyFile: String) throws(DNSServerError) -> Loaded {
        let stamp = stamp(certificateFile, keyFile)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw .badCertificate(certificateFile, "not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw .badCertificate(certificateFile, "no certificate in it") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw .badCertificate(keyFile, "not a PEM private key (\(error))")
        }
        func context(_ protocols: [String]) throws(DNSServerError) -> NIOSSLContext {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = protocols
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                // BoringSSL refuses a key that does not belong to the certificate here.
                throw .badCertificate(certificateFile, "cannot be used with \(keyFile) (\(error))")
            }
        }
        return Loaded(tls: try context(["dot"]), https: try context(["h2", "http/1.1"]), stamp: stamp)
    }
}
