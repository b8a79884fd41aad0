import DNSFilter
import DNSTestSupport
import Foundation
import Logging
import Testing

@testable import DNSServer

/// Chromium with its secure DNS forced by policy (`DnsOverHttpsMode: secure`) to this server's
/// DNS-over-HTTPS template with a device name: a page's own image loads, its tracker's does not,
/// though the upstream resolves both to the page's server; the query log names the device.
@Suite("Chromium's secure DNS through the DoH listener", .serialized)
struct ChromiumSecureDNSTests {
    static let tools = ["dnsmasq", "chromium", "certutil", "openssl", "python3"]
    static let policyFolder = "/etc/chromium/policies/managed"

    /// Whether the browser must run: as the console's browser tests, `PEPPER_REQUIRE_BROWSER=1`.
    static var required: Bool { ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1" }

    @Test(.enabled(if: DNSTools.ready(tools) || required, "needs \(tools)"))
    func aTrackerIsBlockedForChromiumThroughDNSOverHTTPS() async throws {
        try #require(DNSTools.ready(Self.tools), "\(Self.tools) are needed")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-chromium-doh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The page and its two images, served by Python's HTTP server (its log says what was fetched).
        let site = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Self.page.write(to: site.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        for image in ["site.gif", "tracker.gif"] { try Data(Self.pixel).write(to: site.appendingPathComponent(image)) }
        let webPort = DNSTools.freePort()
        let webLog = folder.appendingPathComponent("http.log").path
        let web = try ChildProcess(
            "/usr/bin/env", ["python3", "-m", "http.server", "\(webPort)", "--bind", "127.0.0.1", "--directory", site.path], output: webLog)
        defer { web.stop() }
        for _ in 0..<100 where await RawHTTP.get(port: webPort, host: "site.test") == nil { try await Task.sleep(for: .milliseconds(50)) }

        // Both names resolve to the page's server upstream: only Pepper can keep the tracker out.
        let records = ["--host-record=site.test,127.0.0.1", "--host-record=tracker.test,127.0.0.1", "--local=/test/"]
        try await EncryptedListenerTests.withServer(upstreamRecords: records, filter: try DNSServerTests.filter("||tracker.test^")) {
            running in
            let policyFile = "\(Self.policyFolder)/pepper-test-doh-\(getpid()).json"
            do {
                try await Self.browse(
                    server: running.server, events: running.events, certificates: running.certificates, folder: folder, webPort: webPort,
                    webLog: webLog, policyFile: policyFile)
            } catch {
                try? await Self.removeAsAdministrator(policyFile)
                throw error
            }
            try await Self.removeAsAdministrator(policyFile)
        }
    }

    /// Chromium, under the policy, loads the page; what it shows, fetches and asks is checked.
    static func browse(
        server: DNSServer, events: EncryptedListenerTests.Events, certificates: TestCertificateAuthority, folder: URL, webPort: Int,
        webLog: String, policyFile: String
    ) async throws {
        let httpsPort = try #require(server.httpsAddress?.port)

        // The policy, as an administrator sets it; an IP-address template needs no bootstrap lookup
        // (the certificate names 127.0.0.1).
        let policy = "{\"DnsOverHttpsMode\": \"secure\", \"DnsOverHttpsTemplates\": \"https://127.0.0.1:\(httpsPort)/dns-query/chromium\"}"
        try await Self.writeAsAdministrator(policy, to: policyFile)
        // Chromium trusts the test CA through its NSS database in a home of its own.
        let home = folder.appendingPathComponent("home")
        let nss = home.appendingPathComponent(".pki/nssdb")
        try FileManager.default.createDirectory(at: nss, withIntermediateDirectories: true)
        let certutil = try #require(DNSTools.path("certutil"))
        _ = try await ChildProcess.output(certutil, ["-d", "sql:\(nss.path)", "-N", "--empty-password"])
        _ = try await ChildProcess.output(
            certutil, ["-d", "sql:\(nss.path)", "-A", "-t", "C,,", "-n", "pepper-test", "-i", certificates.caCertificate])

        let url = "http://site.test:\(webPort)/index.html"
        let browser = ["HOME=\(home.path)", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
        let dom = try await ChildProcess.output(
            "/usr/bin/env",
            browser + ["--user-data-dir=\(folder.path)/profile", "--virtual-time-budget=5000", "--dump-dom", url])
        #expect(dom.contains("site loaded"), "the page and its own image came through secure DNS: \(dom.suffix(2000))")
        #expect(dom.contains("tracker blocked"), "\(dom.suffix(2000))")
        let fetched = (try? String(contentsOfFile: webLog, encoding: .utf8)) ?? ""
        #expect(fetched.contains("GET /site.gif") && !fetched.contains("GET /tracker.gif"), "\(fetched)")
        let seen = events.all
        #expect(
            seen.contains {
                $0.device?.value == "chromium" && $0.transport == .https && $0.name == "tracker.test" && $0.outcome == .blocked
            })
        #expect(seen.contains { $0.device?.value == "chromium" && $0.name == "site.test" && !$0.outcome.isBlocked })

        // What a person sees: the page as Chromium drew it.
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../artifacts/dns")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("chromium-secure-dns.png").standardizedFileURL.path
        _ = try await ChildProcess.output(
            "/usr/bin/env",
            browser + [
                "--user-data-dir=\(folder.path)/profile2", "--virtual-time-budget=5000", "--window-size=640,240",
                "--screenshot=\(screenshot)",
                url,
            ])
        #expect(FileManager.default.fileExists(atPath: screenshot))
    }

    /// Writes a file where only an administrator may (Chromium reads policies from /etc): as
    /// root directly, else through `sudo -n`.
    static func writeAsAdministrator(_ text: String, to path: String) async throws {
        let script = "mkdir -p '\(policyFolder)' && cat > '\(path)' <<'EOF'\n\(text)\nEOF\n"
        _ = try await ChildProcess.output("/bin/sh", getuid() == 0 ? ["-c", script] : ["-c", "sudo -n /bin/sh -c \"$0\"", script])
        try #require(FileManager.default.fileExists(atPath: path), "cannot write \(path): run as root or with password-less sudo")
    }

    static func removeAsAdministrator(_ path: String) async throws {
        _ = try await ChildProcess.output("/bin/sh", getuid() == 0 ? ["-c", "rm -f '\(path)'"] : ["-c", "sudo -n rm -f '\(path)'"])
    }

    static let page = """
        <!doctype html><meta charset="utf-8"><title>Secure DNS</title>
        <style>body { font: 20px sans-serif; margin: 24px }</style>
        <p id="site">waiting</p><p id="tracker">waiting</p>
        <script>
        for (const [id, host] of [["site", "site.test"], ["tracker", "tracker.test"]]) {
          const image = new Image();
          image.onload = () => { document.getElementById(id).textContent = id + " loaded"; };
          image.onerror = () => { document.getElementById(id).textContent = id + " blocked"; };
          image.src = "http://" + host + ":" + location.port + "/" + id + ".gif";
        }
        </script>
        """

    /// A 1×1 GIF.
    static let pixel: [UInt8] = [
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x21, 0xF9, 4, 1, 0, 0, 0, 0, 0x2C, 0, 0, 0,
        0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B,
    ]
}
