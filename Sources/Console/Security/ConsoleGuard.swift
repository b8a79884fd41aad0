import DNSFilter
import DeviceSync
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Screens

/// Every request passes here first. It refuses requests for another host (DNS rebinding),
/// turns the one-time token into a session cookie, refuses requests without a session, reads
/// and checks the CSRF token of every POST, and adds the security headers to every answer.
struct ConsoleGuard: RouterMiddleware {
    typealias Context = ConsoleContext

    let sessions: Sessions
    let hosts: AllowedHosts
    let renderer: PageRenderer
    /// Whether the console speaks HTTPS: then cookies are `Secure` and answers carry HSTS.
    let tls: Bool
    /// Paths open without a session.
    static let openPaths: Set<String> = ["/login", "/assets/console.css", "/assets/console.js", "/favicon.ico"]
    /// The session cookie's name.
    static let cookieName = "pepper_console"
    /// POST paths whose form is read as it arrives, its file written to disk (``StreamedUpload``),
    /// with the file's field and the most bytes taken.
    static let streamedPaths: [String: (fileField: String, limit: Int64)] = [
        "/backup/restore": ("file", ConsoleServer.maximumBackupBytes)
    ]

    func handle(
        _ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response
    ) async throws
        -> Response
    {
        var response: Response
        do {
            response = try await guarded(request, context: context, next: next)
        } catch let error as HTTPResponseError where error.status == .notFound {
            response = renderer.problem(status: .notFound, title: "Not found", text: "There is no such page.", link: ("/", "Start"))
        } catch let error as HTTPResponseError {
            response = renderer.problem(status: error.status, title: "Refused", text: "The request cannot be answered (\(error.status)).")
        } catch {
            response = renderer.problem(status: .internalServerError, title: "Something went wrong", text: "\(error)")
        }
        SecurityHeaders.apply(to: &response.headers, tls: tls)
        return response
    }

    private func guarded(
        _ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response
    )
        async throws -> Response
    {
        var context = context
        var request = request
        guard let host = request.head.authority, hosts.allows(host) else {
            return renderer.problem(
                status: .misdirectedRequest, title: "Wrong address",
                text: "This console answers only at \(hosts.canonical). Open that address instead.")
        }
        let path = request.uri.path
        if path.hasPrefix("/sync/v1/") {
            // Devices authenticate with their own keys (SyncAPI), not with sessions; and only
            // over TLS, since the keys and the decisions would otherwise cross the network in clear.
            guard tls else {
                return SyncAPI.json(
                    .forbidden, SyncErrorBody(error: "sync is served only over HTTPS: start pepper console with --tls-cert and --tls-key"))
            }
            return try await next(request, context)
        }
        if let token = request.uri.queryParameters["token"].map(String.init) {
            guard let session = await sessions.redeem(token: token) else {
                return renderer.problem(
                    status: .forbidden, title: "This link no longer works",
                    text: "The console's link works once. Use the browser you opened it in, or restart pepper console for a new link."
                        + (sessions.acceptsPassword ? " You can also sign in with the password." : ""),
                    link: sessions.acceptsPassword ? ("/login", "Sign in") : nil)
            }
            var response = Response.redirect(to: path.isEmpty ? "/" : path)
            response.setCookie(Self.cookie(session.id, secure: tls))
            return response
        }
        if Self.openPaths.contains(path) { return try await readForm(&request, context: &context, checkCSRF: false, next: next) }
        guard let session = await sessions.session(request.cookies[Self.cookieName]?.value) else {
            if sessions.acceptsPassword { return Response.redirect(to: "/login") }
            return renderer.problem(
                status: .unauthorized, title: "Open the console's link",
                text:
                    "Open the address that pepper console printed when it started (it carries a one-time token). Restart pepper console for a new one."
            )
        }
        context.session = session
        return try await readForm(&request, context: &context, checkCSRF: true, next: next)
    }

    /// Reads a POST's form (within the size limit) and checks its CSRF token.
    private func readForm(
        _ request: inout Request, context: inout ConsoleContext, checkCSRF: Bool, next: (Request, ConsoleContext) async throws -> Response
    ) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        if checkCSRF, let streamed = Self.streamedPaths[request.uri.path] {
            return try await readStreamedForm(request, context: &context, fileField: streamed.fileField, limit: streamed.limit, next: next)
        }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: ConsoleServer.maximumBodyBytes)
        } catch {
            return renderer.problem(
                status: .contentTooLarge, title: "Too large",
                text:
                    "What you sent is larger than the console accepts (\(ConsoleServer.maximumBodyBytes / 1_048_576) MB). Nothing changed.")
        }
        let form: FormData
        do {
            form = try FormData(body: body, contentType: request.headers[.contentType])
        } catch {
            return renderer.problem(
                status: .badRequest, title: "Not a form", text: "The request is not a form (\(error)). Nothing changed.")
        }
        if checkCSRF {
            guard let token = form["csrf"], let session = context.session, Sessions.constantTimeEqual(token, session.csrf) else {
                return renderer.problem(
                    status: .forbidden, title: "Refused",
                    text: "The form did not carry this session's security token, so nothing changed. Reload the page and try again.")
            }
        }
        context.form = form
        return try await next(request, context)
    }

    /// Reads a form whose file goes to disk as it arrives, checks its CSRF token like any other
    /// form's, and removes the file once the handler has answered.
    private func readStreamedForm(
        _ request: Request, context: inout ConsoleContext, fileField: String, limit: Int64,
        next: (Request, ConsoleContext) async throws -> Response
    ) async throws -> Response {
        let upload: StreamedUpload
        do {
            upload = try await StreamedUpload.read(
                request.body, contentType: request.headers[.contentType], fileField: fileField, limit: limit)
        } catch .tooLarge(let limit) {
            return renderer.problem(
                status: .contentTooLarge, title: "Too large",
                text: "What you sent is larger than the console accepts here (\(limit / 1_073_741_824) GB). Nothing changed.")
        } catch {
            return renderer.problem(
                status: .badRequest, title: "Not a form", text: "The request is not a form (\(error)). Nothing changed.")
        }
        defer { upload.discard() }
        guard let token = upload.form["csrf"], let session = context.session, Sessions.constantTimeEqual(token, session.csrf) else {
            return renderer.problem(
                status: .forbidden, title: "Refused",
                text: "The form did not carry this session's security token, so nothing changed. Reload the page and try again.")
        }
        context.form = upload.form
        context.upload = upload.file
        return try await next(request, context)
    }

    /// The session cookie: not readable by scripts, never sent with requests from other sites,
    /// and over HTTPS never sent over plain HTTP. It lasts as long as the session may
    /// (``Sessions/lifetime``), so a browser keeps it across its own restarts as the console
    /// keeps the session across its restarts.
    static func cookie(_ id: String, secure: Bool) -> Cookie {
        Cookie(
            name: cookieName, value: id, maxAge: Int(Sessions.lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

/// The `Host` values the console answers to: its listen address, `localhost` and `127.0.0.1`
/// (with its port), and names given with `--allow-host`. Anything else is refused, so a web page
/// whose name was made to resolve to 127.0.0.1 (DNS rebinding) cannot reach the console.
struct AllowedHosts: Sendable {
    private let listenHost: String
    private let port: NIOLockedValueBox<Int>
    private let extra: [String]

    private let scheme: String

    init(listenHost: String, port: NIOLockedValueBox<Int>, extra: [String], tls: Bool = false) {
        self.listenHost = IPAddress.bracketed(listenHost)
        self.port = port
        self.extra = extra.map { $0.lowercased() }
        scheme = tls ? "https" : "http"
    }

    /// The address to show people.
    var canonical: String {
        let host = listenHost == "0.0.0.0" || listenHost == "[::]" ? "127.0.0.1" : listenHost
        return "\(scheme)://\(host):\(port.withLockedValue { $0 })"
    }

    func allows(_ host: String) -> Bool {
        let port = self.port.withLockedValue { $0 }
        guard port != 0 else { return false }
        var names = ["localhost", "127.0.0.1", "[::1]"] + extra
        if listenHost != "0.0.0.0" && listenHost != "[::]" { names.append(listenHost.lowercased()) }
        let given = host.lowercased()
        return names.contains { name in
            given == "\(name):\(port)" || (port == 80 && given == name) || (name.contains(":") && !name.hasPrefix("[") && given == name)
        }
    }
}

/// The headers every answer carries.
enum SecurityHeaders {
    /// Only the console's own stylesheet and script; no inline script, no frames, no other origin.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// HSTS only over HTTPS: sent over plain HTTP it would be ignored at best, and at worst make a
    /// browser refuse the console at an address that has no certificate.
    static let strictTransportSecurity = "max-age=31536000"

    static func apply(to headers: inout HTTPFields, tls: Bool) {
        if tls { headers[.strictTransportSecurity] = strictTransportSecurity }
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}
