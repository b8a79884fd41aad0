import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PepperActions
import Picket
import Screens

/// The console's pages: each one screen model rendered by one template. Actions follow
/// post/redirect/get: a change redirects to its page with the notice it gave; a bad form input
/// re-shows the form with the field's error, and nothing changes.
struct Pages: Sendable {
    let state: PepperState
    let renderer: PageRenderer
    let sessions: Sessions
    let browser: (any BrowserContentFilters)?
    let updates: UpdateRunner
    /// The open live streams, ended when the console stops.
    let streams: LiveStreams
    let picketStore: (any PicketStore)?
    let picketStoreDescription: String
    /// Whether the console speaks HTTPS (cookies are then `Secure`).
    let tls: Bool

    func register(on router: Router<ConsoleContext>) {
        router.get("/assets/console.css") { _, _ in Self.asset(Assets.stylesheet, type: "text/css; charset=utf-8") }
        router.get("/assets/console.js") { _, _ in Self.asset(Assets.script, type: "text/javascript; charset=utf-8") }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        router.get("/login") { request, context in login(request, context: context, error: nil) }
        router.post("/login") { request, context in await signIn(request, context: context) }
        router.post("/logout") { request, context in await signOut(request, context: context, everywhere: false) }
        router.post("/logout/everywhere") { request, context in await signOut(request, context: context, everywhere: true) }
        registerStart(on: router)
        registerSetup(on: router)
        registerLists(on: router)
        registerRules(on: router)
        registerAllowlist(on: router)
        registerDNS(on: router)
        registerCalls(on: router)
        registerMessages(on: router)
        registerLaborActions(on: router)
        registerModeration(on: router)
    }

    // MARK: Helpers shared by the pages

    /// The chrome of a page for the signed-in session, with the notices kept for it.
    func chrome(
        _ request: Request, _ context: ConsoleContext, notices: [Notice] = [], noscriptRefresh: Bool = false
    )
        -> PageRenderer.Chrome
    {
        let session = context.session
        let kept = session.map { sessions.takeFlash(for: $0.id) } ?? []
        return PageRenderer.Chrome(
            path: request.uri.path, csrf: session?.csrf ?? "", notices: kept + notices, signedIn: session != nil,
            noscriptRefresh: noscriptRefresh)
    }

    /// Redirects (303) to `path`, keeping `notice` for the page it leads to.
    func redirect(_ path: String, _ notice: Notice?, context: ConsoleContext) -> Response {
        if let notice, let session = context.session { sessions.flash(notice, for: session.id) }
        return Response.redirect(to: Self.localPath(path) ?? "/")
    }

    /// `path` when it is a path of this console (never another site: `//evil`, `/\evil`,
    /// `https://…`, nor `/<tab>/evil`, which browsers read as `//evil` once they drop the tab).
    static func localPath(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"),
            path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        return path
    }

    /// The submitted form (read and checked by ``ConsoleGuard``).
    func form(_ context: ConsoleContext) -> FormData {
        context.form ?? FormData()
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A screen that cannot be shown.
    func failure(_ error: any Error, title: String, request: Request, context: ConsoleContext) -> Response {
        renderer.page(
            .problem, title: title, view: ProblemText(text: "\(error)"), chrome: chrome(request, context),
            status: .internalServerError)
    }

    struct ProblemText {
        var text: String
    }

    // MARK: Signing in and out

    private struct LoginView {
        var error: String?
    }

    func login(_ request: Request, context: ConsoleContext, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        guard sessions.acceptsPassword else {
            return renderer.problem(
                status: .notFound, title: "No password", text: "This console has no password: open the link pepper console printed.")
        }
        return renderer.page(
            .login, title: "Sign in", view: LoginView(error: error),
            chrome: PageRenderer.Chrome(path: "/login", csrf: "", notices: [], signedIn: false),
            status: status)
    }

    func signIn(_ request: Request, context: ConsoleContext) async -> Response {
        let fields = form(context)
        switch await sessions.signIn(
            password: fields["password"] ?? "", name: fields["name"], client: Sessions.clientKey(context.clientAddress))
        {
        case .signedIn(let session):
            var response = Response.redirect(to: "/")
            response.setCookie(ConsoleGuard.cookie(session.id, secure: tls))
            return response
        case .refused:
            return login(request, context: context, error: "That is not the password.", status: .unauthorized)
        case .throttled:
            var response = login(
                request, context: context, error: "Too many wrong passwords from this address: wait a minute.", status: .tooManyRequests)
            response.headers[.retryAfter] = "60"
            return response
        }
    }

    /// Ends this browser's session or, `everywhere`, every session of the console.
    func signOut(_ request: Request, context: ConsoleContext, everywhere: Bool) async -> Response {
        if everywhere {
            await sessions.closeAll()
        } else if let session = context.session {
            await sessions.close(session.id)
        }
        let whom = everywhere ? "Every browser is signed out, this one too." : "You are signed out."
        var response = renderer.problem(
            status: .ok, title: "Signed out",
            text: "\(whom) Open a new link from pepper console" + (sessions.acceptsPassword ? " or sign in again." : "."),
            link: sessions.acceptsPassword ? ("/login", "Sign in") : nil)
        response.setCookie(
            Cookie(name: ConsoleGuard.cookieName, value: "", maxAge: 0, path: "/", secure: tls, httpOnly: true, sameSite: .strict))
        return response
    }
}

/// How dates and numbers read on the pages.
enum Format {
    static func date(_ date: Date?) -> String {
        guard let date else { return "never" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    static func count(_ value: Int) -> String { Wording.count(value) }
}
