import Crypto
import DNSProfiles
import DeviceSync
import Foundation
import NIOSSL
import PepperTestSupport
import SyncHTTP

/// A home's private CA and the server certificate it issued, made by DNSProfiles as
/// `pepper dns certificate` makes them, and loaded as a server loads them.
struct PrivateCAFixture {
    let files: DNSCertificateFiles
    let ca: NIOSSLCertificate
    let leaf: NIOSSLCertificate
    let key: NIOSSLPrivateKey
    /// The SHA-256 of the CA's DER (from DNSProfiles' bytes, not NIOSSL's): the pin to use.
    let pin: Data

    /// A new CA and a certificate for `serverName`, `*.serverName` and `addresses`, made as if
    /// at `now`.
    init(serverName: String = "sync.pepper.test", addresses: [String] = ["127.0.0.1", "::1"], now: Date = Date()) throws {
        files = DNSCertificateFiles(directory: TestPaths.temporaryDirectory("synchttp-ca"))
        let made = try files.make(serverName: serverName, addresses: addresses, now: now)
        pin = Data(SHA256.hash(data: made.certificateAuthority.derBytes))
        ca = try pemCertificate(files.caCertificate.path)
        leaf = try pemCertificate(files.serverCertificate.path)
        key = try NIOSSLPrivateKey(file: files.serverKey.path, format: .pem)
    }

    /// What a serving home presents: its certificate, then its CA's (so a pin can find it).
    var chain: [NIOSSLCertificate] { [leaf, ca] }

    /// A server presenting `chain` (the home's by default) with the home's key.
    func server(
        chain: [NIOSSLCertificate]? = nil, host: String = "127.0.0.1", maximumVersion: TLSVersion = .tlsv13,
        answer: @escaping @Sendable (ReceivedRequest) -> TestAnswer = { _ in .bytes(Answers.plain(body: Array("{}".utf8))) }
    ) async throws -> TLSTestServer {
        try await TLSTestServer.start(
            .tls(chain: chain ?? self.chain, key: key, maximumVersion: maximumVersion), host: host, answer: answer)
    }
}

/// A self-signed certificate as a person makes one with openssl, for `localhost`, `127.0.0.1`
/// and `::1`.
struct SelfSignedFixture {
    let certificate: NIOSSLCertificate
    let key: NIOSSLPrivateKey
    /// Its SHA-256, as openssl's fingerprint gives it.
    let pin: Data

    static func make() async throws -> SelfSignedFixture {
        let directory = TestPaths.temporaryDirectory("synchttp-self")
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        let made = try await OpenSSLTool.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path, "-out",
            certificate.path, "-days", "30", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
        ])
        guard made.status == 0 else { throw OpenSSLTool.Failure(text: made.stderr) }
        let fingerprint = try await OpenSSLTool.run(["x509", "-in", certificate.path, "-noout", "-fingerprint", "-sha256"])
        // "sha256 Fingerprint=AB:CD:…"
        let hex = fingerprint.stdout.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let bytes = hex.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        guard bytes.count == 32 else { throw OpenSSLTool.Failure(text: fingerprint.stdout) }
        return SelfSignedFixture(
            certificate: try pemCertificate(certificate.path), key: try NIOSSLPrivateKey(file: key.path, format: .pem),
            pin: Data(bytes))
    }
}

/// The one certificate of the PEM file at `path`.
func pemCertificate(_ path: String) throws -> NIOSSLCertificate {
    let certificates = try NIOSSLCertificate.fromPEMFile(path)
    guard certificates.count == 1 else { throw OpenSSLTool.Failure(text: "\(path) holds \(certificates.count) certificates") }
    return certificates[0]
}

/// The openssl program.
enum OpenSSLTool {
    /// Its path, when installed.
    static let path: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What openssl said when it failed.
    struct Failure: Error {
        var text: String
    }

    /// Runs `openssl arguments`.
    static func run(_ arguments: [String]) async throws -> PepperProcess.Outcome {
        guard let path else { throw Failure(text: "openssl is not installed") }
        return try await Subprocess.run(URL(fileURLWithPath: path), arguments)
    }
}

extension NIOSyncHTTPClient {
    /// What `send(request)` threw, or `nil` when it answered.
    func failure(_ request: SyncHTTPRequest = SyncHTTPRequest(method: "GET", path: "/sync/v1/wait?after=0")) async -> SyncHTTPError? {
        do {
            _ = try await send(request)
            return nil
        } catch {
            return error
        }
    }
}

extension SyncHTTPError {
    /// The reason of an ``untrusted(_:reason:)``.
    var untrustedReason: String? {
        if case .untrusted(_, let reason) = self { return reason }
        return nil
    }

    /// The reason of a ``cannotConnect(_:reason:)``.
    var cannotConnectReason: String? {
        if case .cannotConnect(_, let reason) = self { return reason }
        return nil
    }

    /// The words of an ``invalidResponse(_:)``.
    var invalidResponseReason: String? {
        if case .invalidResponse(let why) = self { return why }
        return nil
    }
}
