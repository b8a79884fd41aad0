import DNSFilter
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Console
@testable import Screens

/// A `pepper console` over a fresh home, and a client that sends exactly the headers a test
/// gives (no cookie jar, no redirects followed).
final class ConsoleHarness: @unchecked Sendable {
    /// How requests reach the console.
    enum Transport {
        /// Hummingbird's router testing (`app.test(.router)`): the console's own router,
        /// middleware and handlers, with no port and no connection.
        case router
        /// A real server on a free loopback port: for what needs a connection (a stream that
        /// ends when its client goes, a shutdown, TLS, the client's address).
        case loopback
    }

    /// The port the Host check expects under router testing (nothing listens on it).
    static let routerPort = 8_080

    let home: PepperHome
    let state: PepperState
    let server: ConsoleServer
    private var task: Task<Void, any Error>?
    private var responder: TestAuthority<RouterResponder<ConsoleContext>>?
    private let ownsHome: Bool
    private(set) var link = ""
    private(set) var port = 0

    /// A console on a fresh home, or on `home` (another harness's, left in place: a restart).
    init(
        password: String? = nil, browser: (any BrowserContentFilters)? = nil, home: PepperHome? = nil,
        tls: ConsoleServer.TLSFiles? = nil, clock: @escaping @Sendable () -> Date = { Date() }, transport: Transport = .router
    ) async throws {
        ownsHome = home == nil
        self.home = home ?? PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-console-\(UUID())"))
        state = try PepperState(home: self.home)
        // The Picket store of the home's own database, as `pepper console` opens by default.
        server = try ConsoleServer(
            state: state, browser: browser, picketStore: SQLitePicketStore(database: state.database),
            configuration: .init(listen: ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 0), password: password, tls: tls),
            clock: clock)
        if transport == .router {
            port = Self.routerPort
            responder = TestAuthority(inner: server.makeRouter(port: NIOLockedValueBox(port)).buildResponder())
            link = "http://127.0.0.1:\(port)" + (server.oneTimeToken.map { "/?token=\($0)" } ?? "/")
            return
        }
        let started = AsyncStream<String>.makeStream()
        let server = self.server
        task = Task {
            try await server.run(handleSignals: false) { link in started.continuation.yield(link) }
        }
        for await link in started.stream {
            self.link = link
            break
        }
        port = Int(link.split(separator: ":")[2].split(separator: "/")[0])!
    }

    deinit {
        task?.cancel()
        if ownsHome { try? FileManager.default.removeItem(at: home.url) }
    }

    /// Stops the server as cancelling `pepper console`'s task does, and waits until it has
    /// stopped; throws when it does not stop within `timeout`.
    func stop(timeout: Duration = .seconds(60)) async throws {
        guard let task else { return }
        task.cancel()
        let stopped = AsyncStream<Void>.makeStream()
        Task {
            _ = await task.result
            stopped.continuation.yield()
        }
        let deadline = Task {
            try await Task.sleep(for: timeout)
            stopped.continuation.finish()
        }
        defer { deadline.cancel() }
        var ended = false
        for await _ in stopped.stream {
            ended = true
            break
        }
        guard ended else { throw RawHTTP.Failure("the console did not stop within \(timeout)") }
        self.task = nil
    }

    var host: String { "127.0.0.1:\(port)" }

    /// One request; `cookie` is the session cookie's value. Over loopback, `timeout` is how long
    /// the answer may keep the client waiting.
    func request(
        _ method: HTTPRequest.Method, _ path: String, cookie: String? = nil, host: String? = nil, form: [(String, String)]? = nil,
        body: ByteBuffer? = nil, contentType: String? = nil, timeout: Duration = .seconds(15)
    ) async throws -> ConsoleResponse {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = "\(ConsoleGuard.cookieName)=\(cookie)" }
        var payload = body
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            payload = ByteBuffer(string: form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&"))
        } else if let contentType {
            headers[.contentType] = contentType
        }
        if let responder {
            headers[TestAuthority<RouterResponder<ConsoleContext>>.field] = host ?? self.host
            let (headers, payload) = (headers, payload)
            let response = try await Application(responder: responder).test(.router) { client in
                try await client.execute(uri: path, method: method, headers: headers, body: payload)
            }
            return ConsoleResponse(status: response.status, headers: response.headers, body: response.body)
        }
        let request = TestClient.Request(path, method: method, authority: host ?? self.host, headers: headers, body: payload)
        let response = try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: timeout)) { client in
            try await client.execute(request)
        }
        return ConsoleResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Waits (polling, 60 s at most) until no update runs in the console.
    func waitForUpdate(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while await server.updates.snapshot().running {
            guard ContinuousClock.now < deadline else { throw RawHTTP.Failure("the update did not end within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Opens the printed link: the session cookie and the CSRF token of its pages.
    func signIn() async throws -> (cookie: String, csrf: String) {
        let path = String(link.dropFirst("http://\(host)".count))
        let opened = try await request(.get, path)
        let cookie = try #require(Self.cookie(opened))
        let page = try await request(.get, "/lists", cookie: cookie)
        let csrf = try #require(Self.csrf(in: page.text))
        return (cookie, csrf)
    }

    static func cookie(_ response: ConsoleResponse) -> String? {
        guard let header = response.headers[.setCookie], let value = header.split(separator: ";").first else { return nil }
        return value.split(separator: "=", maxSplits: 1).last.map(String.init)
    }

    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" content=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// An answer of the console, however it was reached.
struct ConsoleResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer?

    var text: String { body.map { String(buffer: $0) } ?? "" }
    var location: String? { headers[.location] }
}

/// Router testing gives every request the authority `localhost`; the harness sends the one a
/// test means in a header of its own, and this puts it back where the console's Host check
/// reads it, before anything of the console sees the request.
struct TestAuthority<Inner: HTTPResponder>: HTTPResponder where Inner.Context == ConsoleContext {
    static var field: HTTPField.Name { HTTPField.Name("X-Pepper-Test-Authority")! }
    let inner: Inner

    func respond(to request: Request, context: ConsoleContext) async throws -> Response {
        var head = request.head
        head.authority = head.headerFields[Self.field]
        head.headerFields[Self.field] = nil
        return try await inner.respond(to: Request(head: head, body: request.body), context: context)
    }
}

@Suite("Console: sessions and security")
struct ConsoleSecurityTests {
    @Test func theOneTimeLinkBecomesASessionCookieOnce() async throws {
        let console = try await ConsoleHarness()
        let without = try await console.request(.get, "/")
        #expect(without.status == .unauthorized)
        #expect(without.text.contains("Open the address that pepper console printed"))
        let path = String(console.link.dropFirst("http://\(console.host)".count))
        #expect(path.hasPrefix("/?token=") && path.count == 8 + 64)
        let opened = try await console.request(.get, path)
        #expect(opened.status == .seeOther && opened.location == "/")
        let setCookie = try #require(opened.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
        let cookie = try #require(ConsoleHarness.cookie(opened))
        #expect(try await console.request(.get, "/lists", cookie: cookie).status == .ok)
        let again = try await console.request(.get, path)
        #expect(again.status == .forbidden, "the link works once")
        #expect(try await console.request(.get, "/lists", cookie: String(repeating: "0", count: 64)).status == .unauthorized)
        #expect(try await console.request(.get, "/lists", cookie: "").status == .unauthorized)
        // Signing out ends the session.
        let csrf = try #require(ConsoleHarness.csrf(in: try await console.request(.get, "/lists", cookie: cookie).text))
        #expect(try await console.request(.post, "/logout", cookie: cookie, form: [("csrf", csrf)]).status == .ok)
        #expect(try await console.request(.get, "/lists", cookie: cookie).status == .unauthorized)
    }

    @Test func requestsForAnotherHostAreRefused() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        for host in ["evil.example:\(console.port)", "127.0.0.1:1", "localhost", "127.0.0.1.nip.io:\(console.port)"] {
            let response = try await console.request(.get, "/lists", cookie: cookie, host: host)
            #expect(response.status == .misdirectedRequest, "\(host)")
            #expect(response.headers[.contentSecurityPolicy] != nil)
        }
        for host in ["localhost:\(console.port)", "LOCALHOST:\(console.port)", "127.0.0.1:\(console.port)"] {
            #expect(try await console.request(.get, "/lists", cookie: cookie, host: host).status == .ok, "\(host)")
        }
    }

    @Test func everyStateChangeNeedsTheSessionsCSRFToken() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let noToken = try await console.request(.post, "/allowlist/add", cookie: cookie, form: [("site", "a.example")])
        #expect(noToken.status == .forbidden)
        let wrong = try await console.request(
            .post, "/allowlist/add", cookie: cookie, form: [("site", "a.example"), ("csrf", String(csrf.reversed()))])
        #expect(wrong.status == .forbidden)
        let noSession = try await console.request(.post, "/allowlist/add", form: [("site", "a.example"), ("csrf", csrf)])
        #expect(noSession.status == .unauthorized)
        #expect(try console.state.allowlistEntries().isEmpty, "nothing changed")
        let right = try await console.request(.post, "/allowlist/add", cookie: cookie, form: [("site", "a.example"), ("csrf", csrf)])
        #expect(right.status == .seeOther && right.location == "/allowlist")
        #expect(try console.state.allowlistEntries().map(\.domain) == ["a.example"])
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        for path in ["/", "/setup", "/lists", "/rules", "/allowlist", "/dns", "/lists/update", "/assets/console.css", "/nowhere"] {
            let response = try await console.request(.get, path, cookie: cookie)
            #expect(response.headers[.contentSecurityPolicy] == SecurityHeaders.contentSecurityPolicy, "\(path)")
            #expect(!SecurityHeaders.contentSecurityPolicy.contains("unsafe-inline"))
            #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
            #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
        }
    }

    @Test func uploadsOverTheLimitAreRefusedAndChangeNothing() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let boundary = "pepperboundary"
        var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n"
        body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\nContent-Type: text/plain\r\n\r\n"
        body += String(repeating: "||big.example^\n", count: (ConsoleServer.maximumBodyBytes / 15) + 10)
        body += "\r\n--\(boundary)--\r\n"
        let response = try await console.request(
            .post, "/lists/upload", cookie: cookie, body: ByteBuffer(string: body), contentType: "multipart/form-data; boundary=\(boundary)"
        )
        #expect(response.status == .contentTooLarge)
        #expect(try console.state.lists().allSatisfy(\.builtIn))
    }

    @Test func aNonLoopbackAddressNeedsAPasswordAndSignInIsThrottled() async throws {
        #expect(throws: ConsoleServer.StartError.self) {
            try ConsoleServer(
                state: try PepperState(home: PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("p-\(UUID())"))),
                browser: nil, configuration: .init(listen: ListenAddress(host: IPAddress(ipv4: 0, 0, 0, 0), port: 0)))
        }
        let console = try await ConsoleHarness(password: "correct horse battery")
        let redirected = try await console.request(.get, "/lists")
        #expect(redirected.status == .seeOther && redirected.location == "/login")
        #expect(try await console.request(.get, "/login").status == .ok)
        let wrong = try await console.request(.post, "/login", form: [("password", "wrong")])
        #expect(wrong.status == .unauthorized && wrong.text.contains("That is not the password."))
        let right = try await console.request(.post, "/login", form: [("password", "correct horse battery")])
        #expect(right.status == .seeOther)
        let cookie = try #require(ConsoleHarness.cookie(right))
        #expect(try await console.request(.get, "/lists", cookie: cookie).status == .ok)
        for _ in 0..<Sessions.attemptsPerMinute { _ = try await console.request(.post, "/login", form: [("password", "nope")]) }
        let throttled = try await console.request(.post, "/login", form: [("password", "correct horse battery")])
        #expect(throttled.status == .tooManyRequests, "even the right password waits after too many wrong ones")
    }
}

@Suite("Console: pages and forms")
struct ConsolePageTests {
    @Test func everyPageAnswersAndAFreshHomeOpensOnTheSetup() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let start = try await console.request(.get, "/", cookie: cookie)
        #expect(start.status == .seeOther && start.location == "/setup")
        for (path, heading) in [
            ("/setup", "Set up Pepper"), ("/lists", "Lists"), ("/rules", "My rules"), ("/allowlist", "Allowlist"), ("/dns", "DNS"),
            ("/lists/update", "Update now"),
        ] {
            let page = try await console.request(.get, path, cookie: cookie)
            #expect(page.status == .ok, "\(path)")
            #expect(page.text.contains("<h1>\(heading)</h1>"), "\(path)")
            #expect(page.body.map(\.readableBytes) ?? 0 < 100_000, "\(path) weighs under 100 kB")
            #expect(!page.text.contains("<script>"), "no inline script on \(path)")
        }
        let finished = try await console.request(.post, "/setup/finish", cookie: cookie, form: [("csrf", csrf)])
        #expect(finished.location == "/")
        let home = try await console.request(.get, "/", cookie: cookie)
        #expect(home.status == .ok && home.text.contains("<h1>Start</h1>"))
        #expect(home.text.contains("Pepper is set up."), "the notice of the action follows the redirect")
        #expect(
            try await console.request(.get, "/assets/console.js", cookie: cookie).headers[.contentType]?.hasPrefix("text/javascript")
                == true)
    }

    @Test func everyActionRouteChangesTheStateAndLeadsBackToItsPage() async throws {
        let console = try await ConsoleHarness()
        let state = console.state
        let (cookie, csrf) = try await console.signIn()
        func post(_ path: String, _ form: [(String, String)] = []) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }
        // The name the page's checkboxes carry is the one posted here.
        #expect(try await console.request(.get, "/setup", cookie: cookie).text.contains(#"name="lists[]" value="easyprivacy""#))
        #expect(try await post("/setup/lists", [("lists[]", "easyprivacy")]).location == "/lists/update")
        try await console.waitForUpdate()
        #expect(try state.lists().filter(\.enabled).map(\.name) == ["easyprivacy"])
        #expect(try await post("/setup/duckduckgo/dismiss").location == "/setup")
        #expect(try await post("/setup/duckduckgo").location == "/setup")
        let gnome = try await post("/setup/gnome-web")
        #expect(gnome.location == "/setup")
        #expect(try await console.request(.get, "/setup", cookie: cookie).text.contains("Pepper cannot change a browser&#39;s settings"))
        let badDNS = try await post("/setup/dns-check", [("address", "nowhere")])
        #expect(badDNS.status == .unprocessableContent && badDNS.text.contains(#"id="dns-address-error""#))
        #expect(try await post("/rebuild").location == "/")
        #expect(state.manifest() != nil)
        #expect(try await post("/lists/disable", [("name", "easyprivacy")]).location == "/lists")
        #expect(try await post("/lists/enable", [("name", "disconnect")]).location == "/lists")
        #expect(try state.lists().filter(\.enabled).map(\.name) == ["disconnect"])
        #expect(try await post("/lists/remove", [("name", "disconnect")]).location == "/lists")
        #expect(try await console.request(.get, "/lists", cookie: cookie).text.contains("built in: it can be disabled, not removed"))
        #expect(try await post("/rules", [("rules", "||mine.example^")]).location == "/rules")
        #expect(try state.userRules().map(\.text) == ["||mine.example^"])
        _ = try await post("/allowlist/add", [("site", "a.example"), ("for", "24h")])
        #expect(try state.allowlistEntries().first?.expiresAt != nil)
        #expect(try await post("/allowlist/remove", [("domain", "a.example")]).location == "/allowlist")
        #expect(try state.allowlistEntries().isEmpty)
        // No update runs: the event stream replays the last one's lines and ends at once.
        let events = try await console.request(.get, "/lists/update/events", cookie: cookie)
        #expect(events.status == .ok && events.text.hasPrefix(": pepper\n\n") && events.text.contains(#""done":true"#))
    }

    @Test func aBadInputReshowsTheFormWithTheFieldsErrorAndChangesNothing() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let site = try await console.request(.post, "/allowlist/add", cookie: cookie, form: [("site", "not a site"), ("csrf", csrf)])
        #expect(site.status == .unprocessableContent)
        #expect(site.text.contains(#"id="allow-site-error""#) && site.text.contains(#"value="not a site""#))
        let rules = try await console.request(
            .post, "/rules", cookie: cookie, form: [("rules", "||ok.example^\nexample.com##+js(x)"), ("csrf", csrf)])
        #expect(rules.status == .unprocessableContent)
        #expect(rules.text.contains("scriptlets are not supported"))
        #expect(try console.state.userRules().isEmpty)
        let list = try await console.request(.post, "/lists/add", cookie: cookie, form: [("url", "ftp://x"), ("csrf", csrf)])
        #expect(list.status == .unprocessableContent && list.text.contains(#"id="add-url-error""#))
        let check = try await console.request(.get, "/allowlist?url=not-a-url", cookie: cookie)
        #expect(check.status == .unprocessableContent && check.text.contains(#"id="check-url-error""#))
        #expect(try console.state.allowlistEntries().isEmpty)
    }

    @Test func hostileTextIsShownAsText() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let attack = "<script>alert(1)</script>"
        try DNSQueryLogStore(database: console.state.database).record(
            counts: [],
            entries: [
                .init(at: Date(), client: "127.0.0.1", name: "x\(attack).example", type: "A", outcome: .blocked, responseCode: "NXDOMAIN")
            ])
        let dns = try await console.request(.get, "/dns", cookie: cookie)
        #expect(dns.status == .ok)
        #expect(dns.text.contains(#"<p class="detail" id="top-lists-counted">Both lists counted at "#), "the top lists say when")
        #expect(!dns.text.contains(attack))
        #expect(dns.text.contains("x&lt;script&gt;alert(1)&lt;/script&gt;.example"))
        let search = try await console.request(.get, "/dns?search=%3Cscript%3E", cookie: cookie)
        #expect(!search.text.contains("<script>") && search.text.contains(#"value="&lt;script&gt;""#))

        let site = try await console.request(.post, "/allowlist/add", cookie: cookie, form: [("site", attack), ("csrf", csrf)])
        #expect(!site.text.contains(attack) && site.text.contains("&lt;script&gt;"))
        let rule = try await console.request(.post, "/rules", cookie: cookie, form: [("rules", "##\(attack)"), ("csrf", csrf)])
        #expect(!rule.text.contains(attack))

        // A list whose file name and contents are hostile.
        let boundary = "b0undary"
        var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n"
        body +=
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(attack).txt\"\r\n\r\n||evil.example^\n\(attack)\r\n"
        body += "--\(boundary)--\r\n"
        let upload = try await console.request(
            .post, "/lists/upload", cookie: cookie, body: ByteBuffer(string: body), contentType: "multipart/form-data; boundary=\(boundary)"
        )
        #expect(upload.status == .seeOther, "\(upload.text)")
        let lists = try await console.request(.get, "/lists", cookie: cookie)
        #expect(!lists.text.contains(attack))
        #expect(try console.state.lists().contains { !$0.builtIn && ListSource.isValidName($0.name) })
    }

    @Test func aChangeMadeElsewhereShowsOnTheNextPageLoad() async throws {
        let console = try await ConsoleHarness()
        let (cookie, _) = try await console.signIn()
        // Another face (the CLI) with its own state of the same home.
        let other = try PepperState(home: console.home)
        _ = try await other.addAllowlist("elsewhere.example")
        try await other.addRule("||cli.example^")
        #expect(try await console.request(.get, "/allowlist", cookie: cookie).text.contains("elsewhere.example"))
        #expect(try await console.request(.get, "/rules", cookie: cookie).text.contains("||cli.example^"))
        let check = try await console.request(.get, "/allowlist?url=https%3A%2F%2Fcli.example%2Fa.js", cookie: cookie)
        #expect(check.text.contains("BLOCKED") && check.text.contains("from my-rules, line 1"))
    }

    @Test func dnsRowsAllowAndBlockWithOneClick() async throws {
        let console = try await ConsoleHarness()
        let (cookie, csrf) = try await console.signIn()
        let today = DNSQueryLogStore.day(of: Date())
        try DNSQueryLogStore(database: console.state.database).record(
            // The counters (what the summary reads) count only the blocked one: "1 query".
            counts: [.init(day: today, outcome: .blocked, count: 1)],
            entries: [
                .init(at: Date(), client: "127.0.0.1", name: "ads.example", type: "A", outcome: .blocked, responseCode: "NXDOMAIN"),
                .init(at: Date(), client: "127.0.0.1", name: "fine.example", type: "A", outcome: .forwarded, responseCode: "NOERROR"),
            ])
        let page = try await console.request(.get, "/dns", cookie: cookie)
        #expect(page.text.contains(#"action="/dns/allow""#) && page.text.contains(#"action="/dns/block""#))
        #expect(page.text.contains("1 query, 1 blocked (100.0 %)"))
        #expect(Wording.plural(2, "query", "queries") == "2 queries" && Wording.plural(1_000, "rule") == "1,000 rules")
        let allow = try await console.request(
            .post, "/dns/allow", cookie: cookie, form: [("name", "ads.example"), ("back", "/dns?blocked=1"), ("csrf", csrf)])
        #expect(allow.location == "/dns?blocked=1")
        let block = try await console.request(
            .post, "/dns/block", cookie: cookie, form: [("name", "fine.example"), ("back", "https://evil.example/"), ("csrf", csrf)])
        #expect(block.location == "/dns", "never redirects to another site")
        for path in ["//evil.example/", "/\\evil.example", "/\t/evil.example", "https://evil.example/", "dns", "/x\r\nSet-Cookie: a=b"] {
            #expect(LocalPath.checked(path) == nil, "\(path)")
        }
        #expect(LocalPath.checked("/dns?search=x&blocked=1") == "/dns?search=x&blocked=1")
        #expect(try console.state.allowlistEntries().map(\.domain) == ["ads.example"])
        #expect(try console.state.userRules().map(\.text) == ["||fine.example^"])
        let after = try await console.request(.get, "/dns", cookie: cookie)
        #expect(after.text.contains("allowed since") && after.text.contains("blocked since"))
    }

    @Test func updateNowStreamsItsProgressAndEndsWithTheResult() async throws {
        let server = try ListServer(routes: ["/mine.txt": .init(body: "||mine.example^\n", etag: true)])
        let console = try await ConsoleHarness()
        let state = console.state
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        _ = try await state.addList(ListRequest(source: server.url("/mine.txt"), name: "mine"))
        try server.set(["/mine.txt": .init(body: "||mine.example^\n||more.example^\n", etag: true)])
        let (cookie, csrf) = try await console.signIn()
        let started = try await console.request(.post, "/lists/update", cookie: cookie, form: [("csrf", csrf)])
        #expect(started.location == "/lists/update")
        let events = try await console.request(.get, "/lists/update/events", cookie: cookie)
        #expect(events.headers[.contentType]?.hasPrefix("text/event-stream") == true)
        let lines = events.text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }
        let decoded = try lines.map { try JSONDecoder().decode(UpdateRunner.Line.self, from: Data($0.utf8)) }
        #expect(decoded.contains { $0.list == "mine" && $0.text.hasPrefix("new copy") }, "\(decoded)")
        #expect(decoded.last?.done == true)
        let page = try await console.request(.get, "/lists/update", cookie: cookie)
        #expect(page.text.contains("Last update") && page.text.contains("new copy"))
    }
}
