import DNSFilter
import DNSTestSupport
import Foundation
import PepperActions
import PepperFiles
import PepperTestSupport
import Testing

/// `pepper console` in a real browser: Chromium driven by Selenium walks the onboarding, adds a
/// list from a local list server and updates it, saves My rules, sees a blocked query of a
/// running `pepper dns serve` in the live log and allows it with one click (the next `dig` is
/// answered), checks a URL and allowlists a site — with axe-core's accessibility check on every
/// page and screenshots in `artifacts/console/`.
@Suite("pepper console in a real browser", .serialized)
struct ConsoleBrowserTests {
    static let python = "/usr/bin/python3"
    static let walk = Bundle.module.url(forResource: "console_walk", withExtension: "py")!
    static let peopleWalk = Bundle.module.url(forResource: "console_people_walk", withExtension: "py")!
    static let awayWalk = Bundle.module.url(forResource: "console_away_walk", withExtension: "py")!
    static let backupWalk = Bundle.module.url(forResource: "console_backup_walk", withExtension: "py")!

    /// Whether Chromium, its driver and Selenium are here; with `PEPPER_REQUIRE_BROWSER=1` their
    /// absence is a failure, not a skip.
    static func browserReady() -> Bool {
        let selenium = browserAvailable()
        if !selenium && ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1" {
            Issue.record("PEPPER_REQUIRE_BROWSER=1 but chromium, chromedriver or python3-selenium is missing")
        }
        return selenium
    }

    /// Whether chromium, chromedriver and Selenium are installed.
    static func browserAvailable() -> Bool {
        let tools = ["/usr/bin/chromium", "/usr/bin/chromedriver", python].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        return tools && (try? Subprocess.runBlocking(URL(fileURLWithPath: python), ["-c", "import selenium"]).status) == 0
    }

    /// Runs a Chromium test when the browser is installed, or when it is required
    /// (`PEPPER_REQUIRE_BROWSER=1`: then a missing one fails the test); otherwise the test is
    /// reported as skipped, never as a pass.
    static var chromium: ConditionTrait {
        .enabled(
            if: browserAvailable() || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1",
            "chromium, chromedriver or python3-selenium is not installed (scripts/test.sh installs them)")
    }

    /// A running `pepper` server process (console or DNS) and its output.
    final class Server: @unchecked Sendable {
        let process: ChildProcess
        let output: URL

        init(home: URL, arguments: [String], environment: [String] = []) throws {
            output = home.appendingPathComponent("\(arguments[0])-\(UUID().uuidString.prefix(6)).log")
            process = try ChildProcess(
                "/usr/bin/env", ["PEPPER_HOME=\(home.path)"] + environment + [PepperProcess.executable.path] + arguments,
                output: output.path)
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Waits until the output has a line containing `marker`; returns that line.
        func line(containing marker: String, timeout: TimeInterval = 30) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
                if !process.isRunning { return nil }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }
    }

    @Test(ConsoleBrowserTests.chromium, DNSTools.trait()) func theWholeConsoleWorksInChromium() async throws {
        try #require(Self.browserReady(), "chromium, chromedriver and Selenium are needed")
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        try await BrowserTurn.shared.run { try await walk() }
    }

    private func walk() async throws {
        let axe = ProcessInfo.processInfo.environment["PEPPER_AXE_JS"].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        if axe == nil && ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1" {
            Issue.record("PEPPER_REQUIRE_BROWSER=1 but PEPPER_AXE_JS does not name axe.min.js")
        }
        let home = TestPaths.temporaryDirectory("console-browser")
        defer { try? FileManager.default.removeItem(at: home) }
        let settings = home.appendingPathComponent("xdg-config")
        let services = """
            {"categories": {
              "Advertising": [{"AdCo": {"https://adco.test/": ["adco.test"]}}],
              "Analytics": [{"StatsCo": {"https://stats.test/": ["stats.test"]}}],
              "Content": [{"VideoCo": {"https://video.test/": ["video.test"]}}]
            }}
            """
        let lists = try ListServer(routes: [
            "/extra.txt": .init(body: "||ads.extra.test^\n##.sponsored\n", etag: true),
            "/services.json": .init(body: services, contentType: "application/json"),
        ])
        let upstream = try await Dnsmasq(arguments: ["--address=/test/192.0.2.7"])
        defer { upstream.stop() }

        let dnsPort = DNSTools.freePort()
        let dns = try Server(
            home: home, arguments: ["dns", "serve", "--listen", "127.0.0.1:\(dnsPort)", "--upstream", "127.0.0.1:\(upstream.port)"])
        defer { dns.process.stop(SIGKILL) }
        // Waits happen on a thread of their own: the console tests' servers share the cooperative threads.
        #expect(try await onOwnThread { dns.line(containing: "pepper dns: listening on") } != nil, "\(dns.log)")
        // GNOME Web's settings in a throwaway store, as the onboarding writes them.
        let console = try Server(
            home: home, arguments: ["console", "--listen", "127.0.0.1:0"],
            environment: ["GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=\(settings.path)"])
        defer { console.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { console.line(containing: "Pepper console: open ") }, "\(console.log)")
        let link = String(ready.split(separator: " ").last!)

        let artifacts = TestPaths.artifacts.appendingPathComponent("console")
        let configuration: [String: String] = [
            "link": link, "listURL": lists.url("/extra.txt"), "servicesURL": lists.url("/services.json"),
            "dnsAddress": "127.0.0.1:\(dnsPort)", "dnsPort": "\(dnsPort)",
            "dig": DNSTools.path("dig") ?? "dig", "artifacts": artifacts.path, "axe": axe ?? "", "upstreamAnswer": "192.0.2.7",
            "profile": home.appendingPathComponent("chromium").path,
        ]
        let file = home.appendingPathComponent("walk.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: file)
        let outcome = try await Subprocess.run(URL(fileURLWithPath: Self.python), [Self.walk.path, file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)\n\(outcome.stdout)\nconsole: \(console.log)")
        #expect(
            outcome.stdout.hasPrefix("OK setup dns-check gnome-web start lists categories rules dns allowlist phone"), "\(outcome.stdout)")

        // What the person did is in the state every face reads.
        let allowlist = try await PepperProcess.run(["allowlist", "list"], home: home)
        #expect(allowlist.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["blocked-by-me.test", "shop.test"])
        #expect(try await PepperProcess.run(["rules", "list"], home: home).stdout == "||blocked-by-me.test^\n")
        #expect(try await PepperProcess.run(["lists"], home: home).stdout.contains("extra"))
        let categories = try await PepperProcess.run(["lists", "categories", "services"], home: home)
        #expect(categories.stdout.hasPrefix("services: 2 of 3 categories blocked\n"), "\(categories.stdout)")
        #expect(categories.stdout.contains("blocked  Content") && categories.stdout.contains("-        Advertising"))
        let keyfile = try String(contentsOf: settings.appendingPathComponent("glib-2.0/settings/keyfile"), encoding: .utf8)
        #expect(keyfile.contains("content-filters=['file://\(home.path)/.out."), "\(keyfile)")
        #expect(keyfile.contains("enable-adblock=true"))
        for page in [
            "setup", "onboarding-start", "onboarding-end", "start", "update", "lists", "lists-categories", "rules-error", "dns-live", "dns",
            "check", "allowlist", "lists-phone",
        ] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("console-\(page).png").path), "\(page)")
        }
    }

    @Test(ConsoleBrowserTests.chromium) func theAwayFromHomeSectionDownloadsProfilesInChromium() async throws {
        try #require(Self.browserReady(), "chromium, chromedriver and Selenium are needed")
        try await BrowserTurn.shared.run { try await awayWalk() }
    }

    /// The DNS page's device form against a home whose CA `pepper dns certificate` made, with the
    /// status a `pepper dns serve` answering DNS over TLS and HTTPS writes (this process stands
    /// for it), as console_away_walk.py describes; the profiles Chromium saved pass the check.
    private func awayWalk() async throws {
        let axe = ProcessInfo.processInfo.environment["PEPPER_AXE_JS"].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let home = TestPaths.temporaryDirectory("console-away")
        defer { try? FileManager.default.removeItem(at: home) }
        let certificate = try await PepperProcess.run(["dns", "certificate", "--server-name", "dns.home.arpa"], home: home)
        #expect(certificate.status == 0, "\(certificate.stderr)")
        try DNSServerStatus(
            listen: "0.0.0.0:53", blockPage: nil, groupsFile: nil, allowClients: [],
            encrypted: EncryptedDNSEndpoint(serverName: "dns.home.arpa", httpsPort: 443, tlsPort: 853),
            privateCA: home.appendingPathComponent("dns-tls/ca.pem").path
        ).write(home: PepperHome(url: home))
        let console = try Server(home: home, arguments: ["console", "--listen", "127.0.0.1:0"])
        defer { console.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { console.line(containing: "Pepper console: open ") }, "\(console.log)")
        let downloads = home.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let artifacts = TestPaths.artifacts.appendingPathComponent("console")
        let configuration: [String: String] = [
            "link": String(ready.split(separator: " ").last!), "artifacts": artifacts.path, "axe": axe ?? "",
            "profile": home.appendingPathComponent("chromium").path, "downloads": downloads.path, "serverName": "dns.home.arpa",
        ]
        let file = home.appendingPathComponent("walk.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: file)
        let outcome = try await Subprocess.run(URL(fileURLWithPath: Self.python), [Self.awayWalk.path, file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)\n\(outcome.stdout)\nconsole: \(console.log)")
        #expect(outcome.stdout.hasPrefix("OK section error addresses download"), "\(outcome.stdout)")

        let saved = ["https", "tls"].map { downloads.appendingPathComponent("phone-\($0).mobileconfig").path }
        let checked = try await Subprocess.run(
            URL(fileURLWithPath: Self.python), [TestPaths.repository.appendingPathComponent("scripts/check-dns-profile.py").path] + saved)
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(
            checked.stdout.contains(
                "phone-https.mobileconfig: OK (root certificate Pepper private CA (dns.home.arpa); HTTPS https://dns.home.arpa/dns-query/phone)"
            ))
        #expect(
            checked.stdout.contains(
                "phone-tls.mobileconfig: OK (root certificate Pepper private CA (dns.home.arpa); TLS phone.dns.home.arpa)"))
        for page in ["error", "addresses", "page"] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("console-away-\(page).png").path), "\(page)")
        }
    }

    @Test(ConsoleBrowserTests.chromium, DNSTools.trait()) func theBackupPageDownloadsAndRestoresInChromium() async throws {
        try #require(Self.browserReady(), "chromium, chromedriver and Selenium are needed")
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        try await BrowserTurn.shared.run { try await backupWalk() }
    }

    /// The Backup page beside a running `pepper dns serve` on the same home, as
    /// console_backup_walk.py describes: the restore replaces the state under the running
    /// server, which is not stopped and blocks the restored rule.
    private func backupWalk() async throws {
        let axe = ProcessInfo.processInfo.environment["PEPPER_AXE_JS"].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let root = TestPaths.temporaryDirectory("console-backup")
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        #expect(try await PepperProcess.run(["rules", "add", "||restored-rule.test^"], home: home).status == 0)
        #expect(try await PepperProcess.run(["allowlist", "add", "kept.test"], home: home).status == 0)
        let upstream = try await Dnsmasq(arguments: ["--address=/test/192.0.2.7"])
        defer { upstream.stop() }
        let dnsPort = DNSTools.freePort()
        let dns = try Server(
            home: home, arguments: ["dns", "serve", "--listen", "127.0.0.1:\(dnsPort)", "--upstream", "127.0.0.1:\(upstream.port)"])
        defer { dns.process.stop(SIGKILL) }
        #expect(try await onOwnThread { dns.line(containing: "pepper dns: listening on") } != nil, "\(dns.log)")
        let console = try Server(home: home, arguments: ["console", "--listen", "127.0.0.1:0"])
        defer { console.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { console.line(containing: "Pepper console: open ") }, "\(console.log)")
        let downloads = root.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let artifacts = TestPaths.artifacts.appendingPathComponent("console")
        let configuration: [String: String] = [
            "link": String(ready.split(separator: " ").last!), "pepper": PepperProcess.executable.path, "home": home.path,
            "dig": DNSTools.path("dig") ?? "dig", "dnsPort": "\(dnsPort)", "artifacts": artifacts.path, "axe": axe ?? "",
            "profile": root.appendingPathComponent("chromium").path, "downloads": downloads.path,
        ]
        let file = root.appendingPathComponent("backup-walk.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: file)
        let outcome = try await Subprocess.run(URL(fileURLWithPath: Self.python), [Self.backupWalk.path, file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)\n\(outcome.stdout)\nconsole: \(console.log)\ndns: \(dns.log)")
        #expect(outcome.stdout.hasPrefix("OK page passphrase-error download wrong-passphrase restore dns phone"), "\(outcome.stdout)")

        // The restored state is the backup's, for every face; the servers ran throughout.
        #expect(try await PepperProcess.run(["rules", "list"], home: home).stdout == "||restored-rule.test^\n")
        let allowlist = try await PepperProcess.run(["allowlist", "list"], home: home).stdout
        #expect(allowlist.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["kept.test"], "\(allowlist)")
        #expect(dns.process.isRunning && console.process.isRunning)
        let beside = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(beside.contains { $0.hasPrefix("home.replaced-") } && !beside.contains { $0.contains(".restoring-") }, "\(beside)")
        for page in ["page", "passphrase-error", "wrong-passphrase", "restored", "backup-phone", "phone"] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("console-backup-\(page).png").path), "\(page)")
        }
    }

    @Test(ConsoleBrowserTests.chromium) func theCallsMessagesAndPicketScreensWorkInChromium() async throws {
        try #require(Self.browserReady(), "chromium, chromedriver and Selenium are needed")
        try await BrowserTurn.shared.run { try await peopleWalk() }
    }

    /// Calls, messages, labor actions and moderation, against a real `pepper picket serve` on
    /// the same home (its SQLite store), as console_people_walk.py describes.
    private func peopleWalk() async throws {
        let axe = ProcessInfo.processInfo.environment["PEPPER_AXE_JS"].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let home = TestPaths.temporaryDirectory("console-people")
        defer { try? FileManager.default.removeItem(at: home) }
        let picket = try Server(home: home, arguments: ["picket", "serve", "--listen", "127.0.0.1:0", "--refresh-check", "0.5"])
        defer { picket.process.stop(SIGKILL) }
        let listening = try #require(try await onOwnThread { picket.line(containing: "Listening on http://") }, "\(picket.log)")
        let picketURL = String(listening.split(separator: " ")[2])
        let console = try Server(home: home, arguments: ["console", "--listen", "127.0.0.1:0"])
        defer { console.process.stop(SIGKILL) }
        let ready = try #require(try await onOwnThread { console.line(containing: "Pepper console: open ") }, "\(console.log)")
        let vcard = home.appendingPathComponent("contacts.vcf")
        try """
        BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Pizza\r\nTEL;TYPE=WORK:+1 425 555 0100\r\nEND:VCARD\r\n\
        BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Aunt\r\nTEL;VALUE=uri:tel:+44-20-7946-0000\r\nEND:VCARD\r\n
        """.write(to: vcard, atomically: true, encoding: .utf8)

        let artifacts = TestPaths.artifacts.appendingPathComponent("console")
        let configuration: [String: String] = [
            "link": String(ready.split(separator: " ").last!), "picketURL": picketURL, "pepper": PepperProcess.executable.path,
            "home": home.path, "vcard": vcard.path, "artifacts": artifacts.path, "axe": axe ?? "",
            "profile": home.appendingPathComponent("chromium").path,
        ]
        let file = home.appendingPathComponent("people-walk.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: file)
        let outcome = try await Subprocess.run(URL(fileURLWithPath: Self.python), [Self.peopleWalk.path, file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)\n\(outcome.stdout)\nconsole: \(console.log)\npicket: \(picket.log)")
        #expect(
            outcome.stdout.hasPrefix("OK block-range label contacts messages key server report approve snapshot revoke phone"),
            "\(outcome.stdout)")

        // What the person did is in the state and the store every other face reads.
        let words = try await PepperProcess.run(["sms", "words", "list"], home: home).stdout
        #expect(words.contains("prize\tjunk"), "\(words)")
        let log = try await PepperProcess.run(["picket", "moderate", "log", "--json"], home: home).stdout
        let decisions = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        #expect(decisions.map { $0["decision"] as? String } == ["approve", "approve"], "\(log)")
        #expect(decisions.allSatisfy { ($0["moderator"] as? String)?.hasPrefix("console:") == true }, "\(log)")
        #expect(decisions.last?["reason"] as? String == "Checked with the union")
        let keys = try await PepperProcess.run(["picket", "keys", "list"], home: home).stdout
        #expect(keys.contains("revoked") && keys.contains("browser walk"), "\(keys)")
        for page in [
            "calls", "messages", "keys-created", "picket", "report-error", "report-location", "report-review", "report-submitted",
            "moderation", "snapshot",
        ] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("people-\(page).png").path), "\(page)")
        }
    }
}
