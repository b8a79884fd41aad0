import Foundation
import PepperTestSupport
import Testing

/// The real DNS programs the DNS tests drive (Debian's `bind9-dnsutils`, `dnsmasq-base`,
/// `dnsperf`): `scripts/test.sh` installs them. Without them a test skips with a message,
/// unless `PEPPER_REQUIRE_DNS_TOOLS=1` (set by `scripts/test.sh`) or `CI=true`, where their
/// absence fails the run.
public enum DNSTools {
    /// The path of a program, from the usual directories and `PATH`.
    public static func path(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"] + path.split(separator: ":").map(String.init)
        return directories.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a missing program fails the tests instead of skipping them.
    public static var isRequired: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["PEPPER_REQUIRE_DNS_TOOLS"] == "1" || environment["CI"] == "true"
    }

    /// Whether `programs` are all installed. When one is missing, the test fails (under
    /// `isRequired`) or is skipped with a message saying what to install.
    public static func ready(_ programs: [String] = ["dig", "dnsmasq"]) -> Bool {
        let missing = missing(programs)
        guard !missing.isEmpty else { return true }
        if isRequired {
            Issue.record("\(missing.joined(separator: ", ")) missing (scripts/test.sh installs them)")
        } else {
            print("skipped: \(missing.joined(separator: ", ")) not installed (scripts/test.sh installs them)")
        }
        return false
    }

    /// Runs a test when `programs` are installed, or when they are required (then a missing one
    /// fails the test instead of skipping it); otherwise the test is reported as skipped, with
    /// what to install — never as a pass.
    public static func trait(_ programs: [String] = ["dig", "dnsmasq"]) -> ConditionTrait {
        .enabled(
            if: missing(programs).isEmpty || isRequired,
            "\(programs.joined(separator: ", ")) not all installed (scripts/test.sh installs them)")
    }

    /// The programs among `programs` that are missing.
    public static func missing(_ programs: [String] = ["dig", "dnsmasq"]) -> [String] {
        programs.filter { path($0) == nil }
    }

    /// A free loopback port for both UDP and TCP (probed by binding both, then released), for a
    /// program that must be told its port. Chosen below the kernel's ephemeral range: a port in
    /// that range can be handed to another socket (dnsperf opens hundreds) between the probe and
    /// the program's bind — "address already in use" in a full run.
    public static func freePort() -> Int {
        // Below the ephemeral range when it leaves room there (Linux: 32,768), else above it,
        // else (a range that fills nearly everything) anywhere, as before.
        let (first, last) = ephemeralPorts
        let ports = first > 21_000 ? 20_000..<first : last < 64_535 ? (last + 1)..<65_536 : 20_000..<60_001
        for _ in 0..<50 {
            let port = Int.random(in: ports)
            if canBind(port, type: socketTypeUDP) && canBind(port, type: socketTypeTCP) { return port }
        }
        return Int.random(in: ports)
    }

    /// The kernel's ephemeral port range (Linux's default when it cannot be read).
    static let ephemeralPorts: (first: Int, last: Int) = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (32_768, 60_999)
    }()

    private static func canBind(_ port: Int, type: Int32) -> Bool {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withLoopback(port: port) { bind(fd, $0, $1) == 0 }
    }

    /// Calls `body` with `127.0.0.1:port` as a socket address and its length.
    static func withLoopback<Result>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

#if os(Linux)
let socketTypeUDP = Int32(SOCK_DGRAM.rawValue)
let socketTypeTCP = Int32(SOCK_STREAM.rawValue)
#else
let socketTypeUDP = SOCK_DGRAM
let socketTypeTCP = SOCK_STREAM
#endif

/// A dnsmasq process answering on a loopback port from its own records only (no resolv.conf,
/// no hosts file): the stub upstream of the tests, or the peer of the benchmark.
public final class Dnsmasq: @unchecked Sendable {
    /// The port it answers on.
    public let port: Int
    private let process: ChildProcess
    private let logURL: URL

    /// Starts dnsmasq with `arguments` added to the stub options, and waits until it answers.
    /// Without a `port`, on a free one: another test may take a port between the probe and
    /// dnsmasq's bind, so a dnsmasq that exits at once is started again on another (up to five
    /// times). `servesTCPInChildren`: answer each TCP connection in a child process, as
    /// installed dnsmasq does, instead of in the main one, which blocks on an open connection
    /// (needed behind a proxy that keeps its TCP connections open, such as dnsdist).
    public init(port requested: Int? = nil, arguments: [String], servesTCPInChildren: Bool = false) async throws {
        guard let executable = DNSTools.path("dnsmasq") else { throw ToolError("dnsmasq is not installed") }
        var attempts = requested == nil ? 5 : 1
        while true {
            attempts -= 1
            let port = requested ?? DNSTools.freePort()
            let options =
                [
                    servesTCPInChildren ? "--keep-in-foreground" : "--no-daemon", "--port=\(port)", "--listen-address=127.0.0.1",
                    "--bind-interfaces", "--no-resolv", "--no-hosts",
                    "--no-poll", "--pid-file", "--user=\(NSUserName())", "--cache-size=0", "--log-facility=-",
                ] + arguments
            let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("dnsmasq-\(port)-\(UUID()).log")
            let process = try ChildProcess(executable, options, output: logURL.path)
            // Ready when it answers anything (its own records or REFUSED for the rest).
            let deadline = Date().addingTimeInterval(10)
            var exited = false
            while Date() < deadline {
                if !process.isRunning {
                    exited = true
                    break
                }
                if await RawDNS.exchange(RawDNS.query("ready.invalid"), port: port, timeout: 0.2) != nil {
                    self.port = port
                    self.process = process
                    self.logURL = logURL
                    return
                }
            }
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            process.stop()
            try? FileManager.default.removeItem(at: logURL)
            if exited && attempts > 0 { continue }
            throw ToolError(exited ? "dnsmasq exited: \(log)" : "dnsmasq did not answer on port \(port)")
        }
    }

    /// What dnsmasq wrote.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Stops dnsmasq.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: logURL)
    }

    deinit { stop() }
}

/// What `dig` printed for one query.
public struct DigAnswer: Sendable {
    /// The response code (`NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, …), or `nil` when no
    /// answer came.
    public var status: String?
    /// The header flags (`qr rd ra tc`…).
    public var flags: [String]
    /// The answer section, one record a line (`name ttl IN type data`).
    public var answers: [String]
    /// dig's whole output.
    public var output: String

    /// The data of each answer (the last field), e.g. addresses.
    public var data: [String] { answers.compactMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.map(String.init) } }

    /// The types of the answer records (`A`, `RRSIG`…).
    public var answerTypes: [String] {
        answers.compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count > 3 ? String(fields[3]) : nil
        }
    }

    /// The flags of the answer's OPT record (`do`), or `nil` when it has none (dig's
    /// `; EDNS: version: 0, flags: do; udp: 1232` line).
    public var ednsFlags: [String]? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("; EDNS:") }),
            let start = line.range(of: "flags:")?.upperBound
        else { return nil }
        return line[start...].prefix { $0 != ";" }.split(separator: " ").map(String.init)
    }
}

/// Runs `dig`.
public enum Dig {
    /// Asks `server:port` for `name` (`type`), with `extra` options (`+tcp`, `+ignore`…).
    public static func query(
        _ name: String, _ type: String = "A", port: Int, server: String = "127.0.0.1", extra: [String] = []
    ) async throws
        -> DigAnswer
    {
        guard let executable = DNSTools.path("dig") else { throw ToolError("dig is not installed") }
        let arguments = ["@\(server)", "-p", "\(port)", name, type, "+tries=1", "+time=4", "+noall", "+comments", "+answer"] + extra
        let output = try await ChildProcess.output(executable, arguments)
        var answer = DigAnswer(status: nil, flags: [], answers: [], output: output)
        for line in output.split(separator: "\n") {
            if let range = line.range(of: "status: ") {
                answer.status = String(line[range.upperBound...].prefix { $0 != "," })
            } else if line.hasPrefix(";; flags:"), let colon = line.dropFirst(9).firstIndex(of: ";") {
                answer.flags = line[line.index(line.startIndex, offsetBy: 9)..<colon].split(separator: " ").map(String.init)
            } else if !line.hasPrefix(";") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
                answer.answers.append(String(line))
            }
        }
        return answer
    }
}

/// Raw DNS over a UDP socket: for packets no client would send.
public enum RawDNS {
    /// A plain query for `name` (type A unless given), ID `id`.
    public static func query(_ name: String, type: UInt16 = 1, id: UInt16 = 0x4242) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        bytes += [0, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        return bytes
    }

    /// Sends `bytes` to `127.0.0.1:port` and returns the first datagram that comes back within
    /// `timeout` seconds, or `nil`. The wait blocks a thread of its own.
    public static func exchange(_ bytes: [UInt8], port: Int, timeout: Double) async -> [UInt8]? {
        (try? await onOwnThread { exchangeBlocking(bytes, port: port, timeout: timeout) }) ?? nil
    }

    private static func exchangeBlocking(_ bytes: [UInt8], port: Int, timeout: Double) -> [UInt8]? {
        let fd = socket(AF_INET, socketTypeUDP, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let sent = bytes.withUnsafeBytes { raw in
            DNSTools.withLoopback(port: port) { sendto(fd, raw.baseAddress, raw.count, 0, $0, $1) }
        }
        guard sent == bytes.count else { return nil }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard received >= 0 else { return nil }
        return Array(buffer.prefix(received))
    }
}

/// A test tool failed to start or run.
public struct ToolError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A child process started with `posix_spawn` and reaped with `waitpid`. (Foundation's
/// `Process` on Linux can miss a child's exit while another child runs, and passes on the
/// test runner's blocked signals, so `SIGTERM` would not stop dnsmasq.)
public final class ChildProcess: @unchecked Sendable {
    /// The process ID.
    public let pid: pid_t
    private var status: Int32?

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module leaves out (it is declared for `_GNU_SOURCE` only): the child closes every
    /// descriptor from the given one on before it starts.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed: posix_spawn_file_actions_addclosefrom_np is missing")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Starts `executable` with `arguments`, stdout and stderr to the file `output`.
    public init(_ executable: String, _ arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test runner's: a descriptor another test holds open without
        // `O_CLOEXEC` at this moment (a file filling a small disk, say) would otherwise live on
        // in a long-running child, and its space or lock with it.
        let closing = Self.closeFrom(&actions, 3)
        guard closing == 0 else { throw ToolError("cannot start \(executable): error \(closing) closing descriptors") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw ToolError("cannot start \(executable): error \(result)") }
        pid = child
    }

    /// Whether it still runs.
    public var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = raw
            return false
        }
        return true
    }

    /// Waits for it to exit; returns the raw wait status.
    @discardableResult
    public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        status = raw
        return raw
    }

    /// Sends `signal` (SIGTERM by default), then waits for the exit.
    public func stop(_ signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        wait()
    }

    /// Waits for it to exit on a thread of its own (never one of the threads Swift concurrency
    /// shares among all the tests); returns the raw wait status.
    @discardableResult
    public func exited() async -> Int32 {
        (try? await onOwnThread { self.wait() }) ?? -1
    }

    /// Runs a program to the end and returns what it printed (stdout and stderr).
    public static func output(_ executable: String, _ arguments: [String]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess(executable, arguments, output: file.path)
        await child.exited()
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            wait()
        }
    }
}

/// A plain HTTP/1.1 GET over a loopback TCP socket, with the `Host` header a browser would send.
public enum RawHTTP {
    /// The whole response (status line, headers, body), or `nil` when the connection fails.
    /// The wait blocks a thread of its own.
    public static func get(port: Int, host: String, path: String = "/", method: String = "GET") async -> String? {
        (try? await onOwnThread { getBlocking(port: port, host: host, path: path, method: method) }) ?? nil
    }

    private static func getBlocking(port: Int, host: String, path: String, method: String) -> String? {
        let fd = socket(AF_INET, socketTypeTCP, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let connected = DNSTools.withLoopback(port: port) { connect(fd, $0, $1) }
        guard connected == 0 else { return nil }
        let body = method == "POST" ? "Content-Length: 0\r\n" : ""
        let request = Array("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n\(body)Connection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 3000) == 1 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response += buffer.prefix(count)
        }
        return String(decoding: response, as: UTF8.self)
    }
}
