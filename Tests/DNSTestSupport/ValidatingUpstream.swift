import Foundation

/// A validating resolver in front of signed zones, for tests of how DNSSEC's header and EDNS
/// bits pass through a forwarder: BIND's `named` serves `good.test` (signed, its key the trust
/// anchor) and `bogus.test` (signed with signatures that expired in 2020), and `unbound`
/// validates them with those trust anchors. Keys are made and the zones signed with
/// `dnssec-keygen` and `dnssec-signzone` at start, everything in a temporary folder that
/// ``stop()`` removes with the processes.
///
/// Through unbound, `www.good.test` is `192.0.2.10` with AD; `www.bogus.test` is SERVFAIL,
/// and `192.0.2.66` (not validated) with CD.
public final class ValidatingUpstream: @unchecked Sendable {
    /// The programs it needs (Debian's `bind9`, `bind9-utils` and `unbound`).
    public static let programs = ["named", "dnssec-keygen", "dnssec-signzone", "unbound"]
    /// The address of the validly signed name.
    public static let goodAddress = "192.0.2.10"
    /// The address of the name whose signatures are bogus.
    public static let bogusAddress = "192.0.2.66"

    /// The port unbound answers on (127.0.0.1).
    public let port: Int
    /// The port named answers on (127.0.0.1): the zones without validation.
    public let authoritativePort: Int
    private let named: ChildProcess
    private let unbound: ChildProcess
    private let directory: URL

    /// Makes the keys, signs the zones, starts named and unbound on free loopback ports and
    /// waits until unbound answers `www.good.test` validated.
    public init() async throws {
        let tools = try Self.programs.map { program in
            guard let path = DNSTools.path(program) else { throw ToolError("\(program) is not installed") }
            return path
        }
        let (named, keygen, signzone, unbound) = (tools[0], tools[1], tools[2], tools[3])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-dnssec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var started: [ChildProcess] = []
        do {
            let anchors = try await Self.signZones(in: directory, keygen: keygen, signzone: signzone)
            let (namedProcess, namedPort) = try await Self.start(named, in: directory, name: "named") { port in
                (["-g", "-4", "-n", "1", "-c", try Self.writeNamedConfiguration(in: directory, port: port)], "www.good.test")
            }
            started.append(namedProcess)
            let (unboundProcess, unboundPort) = try await Self.start(unbound, in: directory, name: "unbound") { port in
                let configuration = try Self.writeUnboundConfiguration(
                    in: directory, port: port, authoritativePort: namedPort, anchors: anchors)
                return (["-d", "-c", configuration], "www.good.test")
            }
            started.append(unboundProcess)
            self.named = namedProcess
            self.unbound = unboundProcess
            self.port = unboundPort
            self.authoritativePort = namedPort
            self.directory = directory
        } catch {
            for process in started { process.stop() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// What named and unbound wrote (for failure messages).
    public var log: String {
        ["named", "unbound"].map { name in
            "\(name):\n" + ((try? String(contentsOf: directory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }

    /// How many queries for `name` unbound was asked from 127.0.0.1 (its `log-queries` lines,
    /// `info: 127.0.0.1 www.good.test. A IN`).
    public func queriesLogged(for name: String) -> Int {
        let text = (try? String(contentsOf: directory.appendingPathComponent("unbound.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("info: 127.0.0.1 \(name). ") }.count
    }

    /// Stops both and removes the folder.
    public func stop() {
        unbound.stop()
        named.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// Writes both zones, makes a key-signing and a zone-signing key for each and signs them:
    /// `good.test` for a month from now, `bogus.test` with signatures valid only in January 2020
    /// (the verification `dnssec-signzone` does after signing is skipped for it: it would refuse
    /// the expired signatures). Returns the trust anchors file: both zones' DS records.
    private static func signZones(in directory: URL, keygen: String, signzone: String) async throws -> String {
        var anchors = ""
        for (zone, address, expired) in [("good.test", goodAddress, false), ("bogus.test", bogusAddress, true)] {
            var text = """
                $TTL 300
                @ IN SOA ns.\(zone). admin.\(zone). 1 3600 600 86400 300
                @ IN NS ns.\(zone).
                ns IN A 127.0.0.1
                www IN A \(address)

                """
            for flags in [["-f", "KSK"], []] {
                let output = try await ChildProcess.output(keygen, ["-q", "-a", "ECDSAP256SHA256", "-K", directory.path] + flags + [zone])
                let keyName = output.trimmingCharacters(in: .whitespacesAndNewlines)
                let keyFile = directory.appendingPathComponent("\(keyName).key")
                guard let key = try? String(contentsOf: keyFile, encoding: .utf8) else {
                    throw ToolError("dnssec-keygen made no key for \(zone): \(output)")
                }
                text += key
            }
            let zoneFile = directory.appendingPathComponent("\(zone).zone")
            try text.write(to: zoneFile, atomically: true, encoding: .utf8)
            let signed = directory.appendingPathComponent("\(zone).signed").path
            let validity = expired ? ["-P", "-s", "20200101000000", "-e", "20200201000000"] : []
            let output = try await ChildProcess.output(
                signzone, ["-q", "-K", directory.path, "-d", directory.path, "-o", zone, "-f", signed] + validity + [zoneFile.path])
            let dsFile = directory.appendingPathComponent("dsset-\(zone).")
            guard FileManager.default.fileExists(atPath: signed), let ds = try? String(contentsOf: dsFile, encoding: .utf8) else {
                throw ToolError("dnssec-signzone could not sign \(zone): \(output)")
            }
            anchors += ds
        }
        let file = directory.appendingPathComponent("anchors").path
        try anchors.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    private static func writeNamedConfiguration(in directory: URL, port: Int) throws -> String {
        let folder = directory.path
        let file = directory.appendingPathComponent("named.conf").path
        try """
        options {
            directory "\(folder)";
            pid-file none;
            listen-on port \(port) { 127.0.0.1; };
            listen-on-v6 { none; };
            recursion no;
            dnssec-validation no;
            allow-query { any; };
        };
        controls { };
        zone "good.test" { type primary; file "\(folder)/good.test.signed"; };
        zone "bogus.test" { type primary; file "\(folder)/bogus.test.signed"; };

        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// unbound validating with the zones' DS records as trust anchors, asking named for them
    /// (`test.` is one of unbound's default local zones, RFC 6761: `nodefault` lifts it).
    private static func writeUnboundConfiguration(in directory: URL, port: Int, authoritativePort: Int, anchors: String) throws -> String {
        let folder = directory.path
        let file = directory.appendingPathComponent("unbound.conf").path
        try """
        server:
            interface: 127.0.0.1
            port: \(port)
            do-ip6: no
            username: ""
            chroot: ""
            directory: "\(folder)"
            pidfile: ""
            use-syslog: no
            logfile: ""
            verbosity: 1
            log-queries: yes
            val-log-level: 2
            access-control: 127.0.0.0/8 allow
            do-not-query-localhost: no
            module-config: "validator iterator"
            val-permissive-mode: no
            trust-anchor-file: "\(anchors)"
            local-zone: "test." nodefault
        stub-zone:
            name: "good.test"
            stub-addr: 127.0.0.1@\(authoritativePort)
        stub-zone:
            name: "bogus.test"
            stub-addr: 127.0.0.1@\(authoritativePort)
        remote-control:
            control-enable: no

        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Starts `executable` on a free port with the arguments `setUp` gives for it, and waits
    /// until it answers NOERROR for the name `setUp` gives; another port is tried when it exits
    /// or does not answer (another test may take the port between the probe and the bind).
    private static func start(
        _ executable: String, in directory: URL, name: String, _ setUp: (Int) throws -> (arguments: [String], readyName: String)
    ) async throws -> (ChildProcess, Int) {
        let log = directory.appendingPathComponent("\(name).log").path
        var lastLog = ""
        for _ in 0..<3 {
            let port = DNSTools.freePort()
            let (arguments, readyName) = try setUp(port)
            let process = try ChildProcess(executable, arguments, output: log)
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline && process.isRunning {
                if let answer = await RawDNS.exchange(RawDNS.query(readyName), port: port, timeout: 0.3), answer.count > 3,
                    answer[3] & 0x0F == 0
                {
                    return (process, port)
                }
            }
            lastLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            process.stop()
        }
        throw ToolError("\(name) did not answer: \(lastLog)")
    }
}
