import Foundation

/// A certificate authority made for one test run with the `openssl` command, and a server
/// certificate it signed for `dns.test` or the names given (and `127.0.0.1`, unless told not
/// to): the DNS upstreams' tests and the console's HTTPS tests share it.
public struct TestCertificateAuthority: Sendable {
    /// The folder holding the files.
    public let directory: URL
    /// The CA certificate (PEM), to trust.
    public var caCertificate: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate (PEM).
    public var serverCertificate: String { directory.appendingPathComponent("server.pem").path }
    /// The server's private key (PEM).
    public var serverKey: String { directory.appendingPathComponent("server.key").path }

    /// The host name in the server certificate.
    public static let serverName = "dns.test"

    /// Makes a new CA and server certificate in a temporary folder for `names` (the first is its
    /// common name); `namesIPAddress`: the certificate also names `127.0.0.1`.
    public init(names: [String] = [TestCertificateAuthority.serverName], namesIPAddress: Bool = true) async throws {
        guard let openssl = DNSTools.path("openssl") else { throw ToolError("openssl is not installed") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let extensions = directory.appendingPathComponent("server.ext")
        try """
        subjectAltName=\(names.map { "DNS:" + $0 }.joined(separator: ","))\(namesIPAddress ? ",IP:127.0.0.1" : "")
        basicConstraints=CA:FALSE
        extendedKeyUsage=serverAuth

        """.write(to: extensions, atomically: true, encoding: .utf8)
        let folder = directory.path
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=Pepper Test CA", "-keyout", "\(folder)/ca.key", "-out", "\(folder)/ca.pem",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(names.first ?? Self.serverName)",
                "-keyout", "\(folder)/server.key", "-out", "\(folder)/server.csr",
            ],
            [
                "x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", extensions.path, "-out", "\(folder)/server.pem",
            ],
        ]
        for arguments in steps {
            let output = try await ChildProcess.output(openssl, arguments)
            guard FileManager.default.fileExists(atPath: arguments[arguments.count - 1]) else {
                throw ToolError("openssl \(arguments[0]) failed: \(output)")
            }
        }
    }

    /// Deletes the files.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// dnsdist (PowerDNS, from Debian) serving DNS over TLS and DNS over HTTPS with a test
/// certificate, in front of a backend: the encrypted upstream of the tests.
public final class Dnsdist: @unchecked Sendable {
    /// The DNS-over-TLS port.
    public let tlsPort: Int
    /// The DNS-over-HTTPS port (path `/dns-query`).
    public let httpsPort: Int
    private let process: ChildProcess
    private let directory: URL

    /// Starts dnsdist forwarding to `127.0.0.1:backendPort`; waits until it answers over
    /// plain DNS, which means the backend passed its health check (`checkName` must be a name
    /// the backend answers).
    /// `tlsPort`, `httpsPort`: to start again on the ports of one stopped (free ones by default).
    public init(
        backendPort: Int, checkName: String, certificates: TestCertificateAuthority, tlsPort: Int? = nil, httpsPort: Int? = nil
    ) async throws {
        guard let executable = DNSTools.path("dnsdist") else { throw ToolError("dnsdist is not installed") }
        self.tlsPort = tlsPort ?? DNSTools.freePort()
        self.httpsPort = httpsPort ?? DNSTools.freePort()
        let plainPort = DNSTools.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dnsdist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("dnsdist.conf")
        // setTCPRecvTimeout: dnsdist drops a client connection idle for 2 s by default; a loaded
        // test run can leave that long between two queries, and the reuse test counts connections.
        try """
        setTCPRecvTimeout(60)
        newServer({address="127.0.0.1:\(backendPort)", checkName="\(checkName)."})
        setLocal("127.0.0.1:\(plainPort)")
        addTLSLocal("127.0.0.1:\(self.tlsPort)", "\(certificates.serverCertificate)", "\(certificates.serverKey)")
        addDOHLocal("127.0.0.1:\(self.httpsPort)", "\(certificates.serverCertificate)", "\(certificates.serverKey)", "/dns-query")

        """.write(to: configuration, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("dnsdist.log").path
        process = try ChildProcess(executable, ["--supervised", "--disable-syslog", "-C", configuration.path], output: log)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !process.isRunning {
                throw ToolError("dnsdist exited: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
            if let answer = await RawDNS.exchange(RawDNS.query(checkName), port: plainPort, timeout: 0.3), answer.count > 3,
                answer[3] & 0x0F == 0
            {
                return
            }
        }
        process.stop()
        throw ToolError("dnsdist did not answer in 15 s")
    }

    /// Stops dnsdist.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
