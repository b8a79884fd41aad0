import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pepper console` stops on Ctrl-C (SIGINT) and SIGTERM whatever its live streams do, keeps
/// its sessions across a restart, throttles passwords per client address and speaks HTTPS:
/// the real binary, curl as the client, and Chromium (console_door_walk.py).
@Suite("pepper console: the door", .serialized)
struct ConsoleDoorBrowserTests {
    static let curl = "/usr/bin/curl"
    static let openssl = "/usr/bin/openssl"
    static let walk = Bundle.module.url(forResource: "console_door_walk", withExtension: "py")!

    /// Waits until `process` exits, `timeout` at most; returns how long it took, or nil.
    static func exit(of process: ChildProcess, within timeout: TimeInterval) -> TimeInterval? {
        let started = Date()
        while Date().timeIntervalSince(started) < timeout {
            if !process.isRunning { return Date().timeIntervalSince(started) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// Runs curl to the end: its exit status and what it printed.
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess(curl, ["--max-time", "20"] + arguments, output: file.path)
        let status = child.wait()
        return ((status >> 8) & 0xFF, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }

    /// A live stream followed by `curl -N`, until it is stopped.
    final class Stream: @unchecked Sendable {
        let process: ChildProcess
        let output: URL

        init(_ url: String, cookies: URL, extra: [String] = []) throws {
            output = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID()).out")
            process = try ChildProcess(
                ConsoleDoorBrowserTests.curl, ["-sS", "-N", "-b", cookies.path] + extra + [url], output: output.path)
        }

        /// Waits until the stream's first comment arrived.
        func opened(timeout: TimeInterval = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains(": pepper") { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return false
        }

        deinit { try? FileManager.default.removeItem(at: output) }
    }

    /// The console's link: signs `cookies` in with curl.
    static func signIn(_ link: String, cookies: URL, extra: [String] = []) throws -> Bool {
        let answer = try curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-c", cookies.path] + extra + [link])
        return answer.output == "303"
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
                || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1",
            "curl is not installed"),
        arguments: [SIGTERM, SIGINT])
    func theConsoleStopsWithALiveStreamOpenedThenClosedAndOneStillOpen(_ signal: Int32) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.curl), "curl is needed")
        let home = TestPaths.temporaryDirectory("console-stop")
        defer { try? FileManager.default.removeItem(at: home) }
        let console = try ConsoleBrowserTests.Server(home: home, arguments: ["console", "--listen", "127.0.0.1:0"])
        defer { console.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { console.line(containing: "Pepper console: open ") }, "\(console.log)")
        let link = String(ready.split(separator: " ").last!)
        let base = String(link.split(separator: "?")[0].dropLast())
        let cookies = home.appendingPathComponent("cookies.txt")
        #expect(try await onOwnThread { try Self.signIn(link, cookies: cookies) })

        // The issue's steps: `curl -N` the DNS page's live log, then stop curl.
        let closed = try Stream(base + "/dns/log/events", cookies: cookies)
        #expect(try await onOwnThread { closed.opened() }, "the stream opened")
        closed.process.stop(SIGTERM)
        // And one left open, as a browser tab would.
        let open = try Stream(base + "/dns/log/events", cookies: cookies)
        #expect(try await onOwnThread { open.opened() }, "the second stream opened")
        defer { open.process.stop(SIGKILL) }

        kill(console.process.pid, signal)
        let took = try await onOwnThread { Self.exit(of: console.process, within: 10) }
        #expect(took != nil, "pepper console still runs 10 s after signal \(signal)\n\(console.log)")
        if took != nil {
            let status = console.process.wait()
            #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "a clean exit, not a kill: wait status \(status)")
        }
        #expect(try await onOwnThread { Self.exit(of: open.process, within: 5) } != nil, "the open stream ended with the console")
        print("pepper console stopped \(String(format: "%.2f", took ?? -1)) s after signal \(signal), one stream open")
    }

    /// The SHA-256 of the certificate's public key, base64: what Chromium is told to trust.
    static func spkiHash(_ certificate: String) throws -> String {
        let script =
            "\(openssl) x509 -in \(certificate) -pubkey -noout | \(openssl) pkey -pubin -outform der | \(openssl) dgst -sha256 -binary | base64"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spki-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess("/bin/sh", ["-c", script], output: file.path)
        child.wait()
        return try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(ConsoleBrowserTests.chromium) func sessionsThrottleAndHTTPSInChromium() async throws {
        try #require(ConsoleBrowserTests.browserReady(), "chromium, chromedriver and Selenium are needed")
        try #require(FileManager.default.isExecutableFile(atPath: Self.openssl), "openssl is needed")
        try await BrowserTurn.shared.run { try await doorWalk() }
    }

    private func doorWalk() async throws {
        let home = TestPaths.temporaryDirectory("console-door")
        defer { try? FileManager.default.removeItem(at: home) }
        let authority = try await TestCertificateAuthority(names: ["localhost"])
        defer { authority.remove() }
        let tls = (authority: authority.caCertificate, certificate: authority.serverCertificate, key: authority.serverKey)
        let password = "correct horse battery staple"
        let passwordFile = home.appendingPathComponent("password")
        try (password + "\n").write(to: passwordFile, atomically: true, encoding: .utf8)
        let port = DNSTools.freePort()
        let arguments = [
            "console", "--listen", "127.0.0.1:\(port)", "--password-file", passwordFile.path, "--tls-cert", tls.certificate, "--tls-key",
            tls.key,
        ]
        let spki = try Self.spkiHash(tls.certificate)
        let artifacts = TestPaths.artifacts.appendingPathComponent("console")

        func runWalk(_ phase: String, link: String, profile: String) async throws -> String {
            let configuration: [String: Any] = [
                "phase": phase, "link": link, "password": password, "artifacts": artifacts.path,
                "profile": home.appendingPathComponent(profile).path,
                "chromiumArguments": ["--ignore-certificate-errors-spki-list=\(spki)"], "networkLog": true,
            ]
            let file = home.appendingPathComponent("door-\(phase).json")
            try JSONSerialization.data(withJSONObject: configuration).write(to: file)
            let outcome = try await Subprocess.run(URL(fileURLWithPath: ConsoleBrowserTests.python), [Self.walk.path, file.path])
            #expect(outcome.status == 0, "\(phase): \(outcome.stderr)\n\(outcome.stdout)")
            return outcome.stdout
        }

        // 1. HTTPS: the printed link signs Chromium in; the DNS page's live log opens, and the tab closes.
        let first = try ConsoleBrowserTests.Server(home: home, arguments: arguments)
        defer { first.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { first.line(containing: "Pepper console: open ") }, "\(first.log)")
        let link = String(ready.split(separator: " ").last!)
        #expect(link.hasPrefix("https://127.0.0.1:\(port)/?token="))
        #expect(try await runWalk("first", link: link, profile: "chromium").hasPrefix("OK signed-in dns-stream"))
        // HSTS over HTTPS, checked with curl against the test authority.
        let headers = try await onOwnThread {
            try Self.curl(["-sS", "-D", "-", "-o", "/dev/null", "--cacert", tls.authority, "https://127.0.0.1:\(port)/login"])
        }
        #expect(headers.output.lowercased().contains("strict-transport-security: max-age=31536000"), "\(headers.output)")

        // 2. SIGTERM stops it (the DNS page's stream came and went); a new console on the same home
        //    still knows Chromium's session.
        kill(first.process.pid, SIGTERM)
        #expect(try await onOwnThread { Self.exit(of: first.process, within: 10) } != nil, "pepper console did not stop: \(first.log)")
        let console = try ConsoleBrowserTests.Server(home: home, arguments: arguments)
        defer { console.process.stop(SIGKILL) }
        #expect(try await onOwnThread { console.line(containing: "Pepper console: open ") } != nil, "\(console.log)")
        #expect(try await runWalk("after-restart", link: link, profile: "chromium").hasPrefix("OK still-signed-in"))

        // 3. A stranger at 127.0.0.2 guesses the password until throttled…
        var codes: [String] = []
        for attempt in 0...5 {
            let answer = try await onOwnThread {
                try Self.curl([
                    "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", tls.authority, "--interface", "127.0.0.2",
                    "--data-urlencode", "password=guess \(attempt)", "https://127.0.0.1:\(port)/login",
                ])
            }
            codes.append(answer.output)
        }
        #expect(codes == ["401", "401", "401", "401", "401", "429"], "\(codes)")
        // …and the owner at 127.0.0.1 is not kept waiting: Chromium signs in with the password.
        #expect(try await runWalk("owner", link: link, profile: "chromium-owner").hasPrefix("OK owner-signed-in"))
        for shot in ["tls-setup", "tls-dns", "tls-after-restart", "tls-owner-signed-in"] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("door-\(shot).png").path), "\(shot)")
        }
    }
}
