import DNSFilter
import DNSTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Console

/// The console's door: live streams that end when their client goes and when the console stops
/// (else Ctrl-C waits for them forever), sessions that survive a restart, a password throttle
/// per client address, and HTTPS with HSTS.
@Suite("Console: the door")
struct ConsoleDoorTests {
    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    static func eventually(_ timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test func aStreamEndsWhenItsClientGoes() async throws {
        let console = try await ConsoleHarness(transport: .loopback)
        let (cookie, _) = try await console.signIn()
        let port = console.port
        let opened = try await onOwnThread { () -> RawHTTP in
            let connection = try RawHTTP(port: port)
            try connection.send("GET", "/dns/log/events", port: port, cookie: cookie)
            let (head, _) = connection.read(until: ": pepper")
            guard head.contains("200 OK") && head.contains("text/event-stream") else { throw RawHTTP.Failure(head) }
            return connection
        }
        #expect(console.server.streams.count == 1)
        opened.close()
        // The heartbeat finds the client gone within a few seconds; the stream, its producer
        // and its handler end.
        // (30 s: far under the minute a DNS stream lived before, and room for a loaded machine.)
        #expect(await Self.eventually(.seconds(30)) { console.server.streams.count == 0 }, "the stream outlived its client")
    }

    @Test func everyStreamEndsWhenTheConsoleStops() async throws {
        let console = try await ConsoleHarness(transport: .loopback)
        let (cookie, _) = try await console.signIn()
        let port = console.port
        // One stream opened and closed, one still open.
        let closed = try RawHTTP(port: port)
        try closed.send("GET", "/dns/log/events", port: port, cookie: cookie)
        _ = try await onOwnThread { closed.read(until: ": pepper") }
        closed.close()
        let open = try RawHTTP(port: port)
        try open.send("GET", "/dns/log/events", port: port, cookie: cookie)
        _ = try await onOwnThread { open.read(until: ": pepper") }
        let started = ContinuousClock.now
        try await console.stop()
        // At once (the stream would otherwise hold the shutdown for good); 30 s leaves room for a
        // loaded machine.
        #expect(ContinuousClock.now - started < .seconds(30), "stopping waited \(ContinuousClock.now - started)")
        let (_, ended) = try await onOwnThread { open.read(until: nil) }
        #expect(ended, "the open stream's connection was closed")
        #expect(console.server.streams.count == 0)
    }

    @Test func sessionsSurviveARestartStoredOnlyAsHashes() async throws {
        let first = try await ConsoleHarness(password: "correct horse battery", transport: .loopback)
        let (cookie, csrf) = try await first.signIn()
        try await first.stop()
        // Only a digest is in the state: the database does not sign anyone in.
        let rows = try await first.state.database.writer.read { db in try String.fetchAll(db, sql: "SELECT digest FROM consoleSession") }
        #expect(rows == [Sessions.digest(cookie)])
        let dump =
            try Data(contentsOf: first.home.databaseURL)
            + ((try? Data(contentsOf: URL(fileURLWithPath: first.home.databaseURL.path + "-wal"))) ?? Data())
        #expect(dump.range(of: Data(cookie.utf8)) == nil, "the cookie itself is never stored")

        let second = try await ConsoleHarness(password: "correct horse battery", home: first.home, transport: .loopback)
        let page = try await second.request(.get, "/lists", cookie: cookie)
        #expect(page.status == .ok, "the session of the first console works in the second")
        #expect(ConsoleHarness.csrf(in: page.text) == csrf, "with the same CSRF token")
        let changed = try await second.request(.post, "/rules", cookie: cookie, form: [("rules", "||kept.example^"), ("csrf", csrf)])
        #expect(changed.status == .seeOther)
        #expect(try second.state.userRules().map(\.text) == ["||kept.example^"])
    }

    @Test func signingOutEverywhereEndsEverySession() async throws {
        let console = try await ConsoleHarness(password: "correct horse battery", transport: .loopback)
        var cookies: [String] = []
        for _ in 0..<2 {
            let signedIn = try await console.request(.post, "/login", form: [("password", "correct horse battery")])
            cookies.append(try #require(ConsoleHarness.cookie(signedIn)))
        }
        for cookie in cookies { #expect(try await console.request(.get, "/lists", cookie: cookie).status == .ok) }
        let page = try await console.request(.get, "/lists", cookie: cookies[0])
        #expect(page.text.contains(#"action="/logout/everywhere""#))
        let csrf = try #require(ConsoleHarness.csrf(in: page.text))
        let out = try await console.request(.post, "/logout/everywhere", cookie: cookies[0], form: [("csrf", csrf)])
        #expect(out.status == .ok && out.text.contains("Every browser is signed out"))
        for cookie in cookies {
            let after = try await console.request(.get, "/lists", cookie: cookie)
            #expect(after.status == .seeOther && after.location == "/login", "every session ended")
        }
        #expect(try await ConsoleSessionStore(database: console.state.database).count() == 0)
    }

    @Test func sessionsExpireIdleAndOld() async throws {
        let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-sessions-\(UUID())"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        let state = try PepperState(home: home)
        let store = ConsoleSessionStore(database: state.database)
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let sessions = Sessions(password: "correct horse battery", store: store)
        guard case .signedIn(let session) = await sessions.signIn(password: "correct horse battery", client: "127.0.0.1", now: start) else {
            Issue.record("not signed in")
            return
        }
        // Used every 11 hours: it lives on, but not past its lifetime.
        var now = start
        while now.timeIntervalSince(start) + 11 * 3_600 < Sessions.lifetime {
            now += 11 * 3_600
            #expect(await sessions.session(session.id, now: now) != nil, "alive at \(now.timeIntervalSince(start) / 3_600) h")
        }
        #expect(await sessions.session(session.id, now: start + Sessions.lifetime) == nil, "too old")
        // Another one, unused for longer than the idle lifetime, also in a restarted console.
        guard case .signedIn(let idle) = await sessions.signIn(password: "correct horse battery", client: "127.0.0.1", now: start) else {
            Issue.record("not signed in")
            return
        }
        let restarted = Sessions(password: "correct horse battery", store: store)
        #expect(await restarted.session(idle.id, now: start + 3_600) != nil)
        #expect(await restarted.session(idle.id, now: start + 3_600 + Sessions.idleLifetime) == nil, "idle too long")
        #expect(try await store.count() == 0, "expired sessions leave the store")
    }

    @Test func thePasswordThrottleIsPerClientAddress() async throws {
        // The time stands still: the attempts all fall in one minute however slow the machine.
        let moment = Date()
        let console = try await ConsoleHarness(password: "correct horse battery", clock: { moment }, transport: .loopback)
        let port = console.port
        // A stranger at 127.0.0.2 guesses until throttled.
        for attempt in 0..<Sessions.attemptsPerMinute {
            let wrong = try await onOwnThread {
                try RawHTTP.exchange("POST", "/login", port: port, source: "127.0.0.2", form: [("password", "guess \(attempt)")])
            }
            #expect(wrong.status == 401, "\(wrong.text.prefix(200))")
        }
        let throttled = try await onOwnThread {
            try RawHTTP.exchange("POST", "/login", port: port, source: "127.0.0.2", form: [("password", "correct horse battery")])
        }
        #expect(throttled.status == 429 && throttled.text.contains("Retry-After: 60"), "\(throttled.text.prefix(300))")
        // The owner at 127.0.0.1 is not kept waiting.
        let owner = try await onOwnThread {
            try RawHTTP.exchange("POST", "/login", port: port, source: "127.0.0.1", form: [("password", "correct horse battery")])
        }
        #expect(owner.status == 303 && owner.text.contains("pepper_console="), "\(owner.text.prefix(300))")
        // IPv6 clients count per /64: one machine has the whole prefix to pick from.
        #expect(Sessions.clientKey("2001:db8:1:2:aaaa::1") == Sessions.clientKey("2001:db8:1:2:bbbb::9"))
        #expect(Sessions.clientKey("2001:db8:1:3::1") != Sessions.clientKey("2001:db8:1:2::1"))
        #expect(Sessions.clientKey("192.0.2.1") == "192.0.2.1")
    }

    @Test(
        .enabled(
            if: ["/usr/bin/curl", "/usr/bin/openssl"].allSatisfy(FileManager.default.isExecutableFile)
                || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1",
            "curl or openssl is not installed"))
    func httpsCarriesHSTSAndSecureCookiesPlainHTTPNeither() async throws {
        let curl = "/usr/bin/curl"
        let openssl = "/usr/bin/openssl"
        try #require(FileManager.default.isExecutableFile(atPath: curl), "curl is needed")
        try #require(FileManager.default.isExecutableFile(atPath: openssl), "openssl is needed")
        let certificates = try await TestCertificateAuthority(names: ["localhost"])
        defer { certificates.remove() }
        let console = try await ConsoleHarness(
            tls: .init(certificate: certificates.serverCertificate, key: certificates.serverKey), transport: .loopback)
        #expect(console.link.hasPrefix("https://127.0.0.1:"))
        let path = String(console.link.dropFirst("https://127.0.0.1:\(console.port)".count))
        let opened = try await onOwnThread {
            try TestCertificate.curl(["-sS", "-D", "-", "-o", "/dev/null", "--cacert", certificates.caCertificate, console.link])
        }
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("303"), "\(opened.stdout)")
        #expect(opened.stdout.lowercased().contains("strict-transport-security: max-age=31536000"), "\(opened.stdout)")
        let cookieLine = opened.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookieLine.contains("Secure") && cookieLine.contains("HttpOnly"), "\(cookieLine)")
        #expect(path.hasPrefix("/?token="))
        // Without the test authority, curl refuses the certificate: it is TLS for real.
        let untrusted = try await onOwnThread {
            try TestCertificate.curl(["-sS", "-o", "/dev/null", "https://127.0.0.1:\(console.port)/"])
        }
        #expect(untrusted.status != 0)
        // Plain HTTP to the HTTPS port gets nothing usable.
        let plain = try await onOwnThread {
            try TestCertificate.curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(console.port)/"])
        }
        #expect(plain.stdout != "200")
        // Over plain HTTP, no HSTS.
        let http = try await ConsoleHarness(transport: .loopback)
        let answer = try await http.request(.get, "/login")
        #expect(answer.headers[.strictTransportSecurity] == nil)
        let (cookie, _) = try await http.signIn()
        #expect(!cookie.isEmpty)
    }

    @Test func aBadCertificateOrKeyIsNamedAtStart() async throws {
        let certificates = try await TestCertificateAuthority(names: ["localhost"])
        defer { certificates.remove() }
        let other = try await TestCertificateAuthority(names: ["localhost"])
        defer { other.remove() }
        let state = try PepperState(home: PepperHome(url: certificates.directory.appendingPathComponent("home")))
        func start(_ files: ConsoleServer.TLSFiles) throws {
            _ = try ConsoleServer(
                state: state, browser: nil,
                configuration: .init(listen: ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 0), tls: files))
        }
        #expect(throws: ConsoleServer.StartError.self) { try start(.init(certificate: "/nonexistent.pem", key: certificates.serverKey)) }
        #expect {
            try start(.init(certificate: certificates.serverCertificate, key: other.serverKey))
        } throws: { error in
            "\(error)".contains(other.serverKey) && "\(error)".contains("does not go with the certificate")
        }
        try start(.init(certificate: certificates.serverCertificate, key: certificates.serverKey))
    }
}

/// curl, for the HTTPS tests (the certificates: `TestCertificateAuthority`, shared with the DNS
/// upstreams' tests).
enum TestCertificate {
    static func curl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run("/usr/bin/curl", ["--max-time", "20"] + arguments)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}
