import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing the PEM files of ``DNSCertificateFiles``.
enum PEMFiles {
    /// The certificate in the PEM file at `url`.
    static func certificate(at url: URL) throws(DNSCertificateError) -> Certificate {
        let text = try read(url, what: "certificate")
        do {
            return try Certificate(pemEncoded: text)
        } catch {
            throw .unreadable(path: url.path, reason: "not a PEM certificate (\(error))")
        }
    }

    /// The private key in the PEM file at `url`.
    static func privateKey(at url: URL) throws(DNSCertificateError) -> Certificate.PrivateKey {
        let text = try read(url, what: "key")
        do {
            return try Certificate.PrivateKey(pemEncoded: text)
        } catch {
            throw .unreadable(path: url.path, reason: "not a PEM private key (\(error))")
        }
    }

    private static func read(_ url: URL, what: String) throws(DNSCertificateError) -> String {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .unreadable(path: url.path, reason: "no such \(what) file") }
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .unreadable(path: url.path, reason: "cannot be read (\(error.localizedDescription))")
        }
    }

    /// The PEM text of `certificate`.
    static func text(_ certificate: Certificate) throws(DNSCertificateError) -> String {
        do {
            return try certificate.serializeAsPEM().pemString + "\n"
        } catch {
            throw .cannotSign("\(error)")
        }
    }

    /// The PEM text of `key` (PKCS #8).
    static func text(_ key: Certificate.PrivateKey) throws(DNSCertificateError) -> String {
        do {
            return try key.serializeAsPEM().pemString + "\n"
        } catch {
            throw .cannotSign("\(error)")
        }
    }

    /// Writes `text` to `url` with the permissions `mode`, replacing the file at once (a
    /// temporary file beside it, renamed): a reader sees the old file or the new one, and a key
    /// is never readable by others, not even while it is written.
    static func write(_ text: String, to url: URL, mode: mode_t) throws(DNSCertificateError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else { throw .cannotWrite(path: url.path, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            written += count
        }
        let failed = written < bytes.count ? errno : 0
        // The umask may have taken bits from `mode`: a certificate stays readable, a key private.
        fchmod(descriptor, mode)
        fsync(descriptor)
        close(descriptor)
        guard failed == 0, rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(failed == 0 ? errno : failed))
            unlink(temporary.path)
            throw .cannotWrite(path: url.path, reason: reason)
        }
    }

    /// Creates `directory` (readable by its owner only) when it is missing.
    static func makeDirectory(_ directory: URL) throws(DNSCertificateError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
    }
}
