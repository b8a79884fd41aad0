import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Screens

/// Signing in (with the console's password) and out, the stylesheet and script every page
/// loads, and the setup page's animation.
struct SignInPage: ConsoleArea {
    static let path: RouterPath = "/"
    let renderer: PageRenderer
    let sessions: Sessions
    /// Whether the console speaks HTTPS (cookies are then `Secure`).
    let tls: Bool

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.get("assets/console.css") { _, _ in Self.asset(Assets.stylesheet, type: "text/css; charset=utf-8") }
        routes.get("assets/console.js") { _, _ in Self.asset(Assets.script, type: "text/javascript; charset=utf-8") }
        // The setup page's animation: the app's Lottie animation exported as SVG (no script).
        routes.get("assets/onboarding.svg") { _, _ in Self.asset(OnboardingAnimation.svg, type: "image/svg+xml") }
        routes.get("favicon.ico") { _, _ in Response(status: .noContent) }
        routes.get("login") { request, context in login(request, context: context, error: nil) }
        routes.post("login") { request, context in await signIn(request, context: context) }
        routes.post("logout") { request, context in await signOut(request, context: context, everywhere: false) }
        routes.post("logout/everywhere") { request, context in await signOut(request, context: context, everywhere: true) }
        return routes
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

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
