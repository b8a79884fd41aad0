import Foundation

/// dnsdist serving DNS over HTTP without TLS (its "DNS over HTTP" mode, for use behind a proxy)
/// in front of a backend: a DNS-over-HTTPS server's protocol (RFC 8484) where a test cannot make
/// Foundation's HTTP client trust a test certificate (on Linux it reads only the system's CAs).
public final class PlainDNSOverHTTP: @unchecked Sendable {
    /// The port of `http://127.0.0.1:PORT/dns-query`.
    public let port: Int
    private let process: ChildProcess
    private let directory: URL

    /// Starts dnsdist forwarding to `127.0.0.1:backendPort`; waits until it answers, which means
    /// the backend passed its health check (`checkName` must be a name the backend answers).
    public init(backendPort: Int, checkName: String) async throws {
        guard let executable = DNSTools.path("dnsdist") else { throw ToolError("dnsdist is not installed") }
        port = DNSTools.freePort()
        let plainPort = DNSTools.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dnsdist-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("dnsdist.conf")
        try """
        newServer({address="127.0.0.1:\(backendPort)", checkName="\(checkName)."})
        setLocal("127.0.0.1:\(plainPort)")
        addDOHLocal("127.0.0.1:\(port)", nil, nil, "/dns-query")

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

    /// The DNS-over-HTTP endpoint.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/dns-query")! }

    /// Stops dnsdist.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
