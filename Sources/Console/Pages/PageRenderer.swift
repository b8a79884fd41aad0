import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import Screens

/// Renders the console's pages: a page template inside the layout, as an HTML response.
struct PageRenderer: Sendable {
    /// What every page around its content shows: the navigation, the notices, the session's
    /// form token.
    struct Chrome: Sendable {
        /// The path of the page (for `aria-current` in the navigation).
        var path: String
        /// The session's CSRF token ("" before signing in).
        var csrf: String
        /// Notices to show above the content.
        var notices: [Notice]
        /// Whether someone is signed in (the navigation shows only then).
        var signedIn: Bool
        /// Whether browsers without JavaScript should reload the page every 2 s (a running update).
        var noscriptRefresh = false
    }

    /// The sections of the navigation.
    static let sections: [(path: String, label: String)] = [
        ("/", "Start"), ("/setup", "Setup"), ("/lists", "Lists"), ("/rules", "My rules"), ("/allowlist", "Allowlist"), ("/dns", "DNS"),
        ("/calls", "Calls"), ("/messages", "Messages"), ("/picket", "Labor actions"), ("/moderation", "Moderation"), ("/backup", "Backup"),
    ]

    private let library: MustacheLibrary
    /// The state folder shown in the footer.
    let home: String
    /// The version shown in the footer.
    let version: String

    /// Whether each render looks for names its template uses and its view lacks
    /// (``TemplateKeyCheck``): on in debug builds, so every page a test opens is checked.
    let checksKeys: Bool

    /// Whether debug assertions are on in this build (debug builds, which the tests run).
    static var isDebugBuild: Bool {
        var debug = false
        assert({ debug = true }() == ())
        return debug
    }

    init(home: String, version: String, checksKeys: Bool = PageRenderer.isDebugBuild) throws {
        self.checksKeys = checksKeys
        var library = MustacheLibrary()
        // Parsed here, once: a template that does not parse stops the console at start.
        for template in PageTemplate.allCases { try library.register(Templates.text(of: template), named: template.rawValue) }
        self.library = library
        self.home = home
        self.version = version
    }

    private struct PageContext {
        var csrf: String
        var page: Any
    }

    private struct NavItem {
        var path: String
        var label: String
        var current: Bool
    }

    private struct NoticeView {
        var kind: String
        var text: String
    }

    private struct LayoutContext {
        var title: String
        var csrf: String
        var signedIn: Bool
        var nav: [NavItem]
        var notices: [NoticeView]
        var content: String
        var version: String
        var home: String
        var noscriptRefresh: Bool
    }

    /// The page `template` with `view`, inside the layout.
    func page(_ template: PageTemplate, title: String, view: Any, chrome: Chrome, status: HTTPResponse.Status = .ok) -> Response {
        let content: String
        do {
            content = try render(PageContext(csrf: chrome.csrf, page: view), with: template)
        } catch {
            return templateFault(error)
        }
        let section = chrome.path == "/" ? "/" : "/" + (chrome.path.split(separator: "/").first.map(String.init) ?? "")
        let layout = LayoutContext(
            title: title, csrf: chrome.csrf, signedIn: chrome.signedIn,
            nav: Self.sections.map { NavItem(path: $0.path, label: $0.label, current: $0.path == section) },
            notices: chrome.notices.map { NoticeView(kind: $0.kind.rawValue, text: $0.text) }, content: content, version: version,
            home: home, noscriptRefresh: chrome.noscriptRefresh)
        let html: String
        do {
            html = try render(layout, with: .layout)
        } catch {
            return templateFault(error)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// Every `PageTemplate` was registered in `init`, so the library always has it. Throws
    /// when ``checksKeys`` is on and the template uses a name its view does not have.
    func render(_ context: Any, with template: PageTemplate) throws(MissingTemplateKeys) -> String {
        let check = checksKeys ? TemplateKeyCheck() : nil
        guard let html = library.render(check?.root(context) ?? context, withTemplate: template.rawValue) else {
            preconditionFailure("the template \(template.rawValue) is registered at start")
        }
        if let missing = check?.missing, !missing.isEmpty { throw MissingTemplateKeys(template: template, names: missing) }
        return html
    }

    /// Names a template uses that its view does not have (found when ``checksKeys`` is on).
    struct MissingTemplateKeys: Error, CustomStringConvertible {
        var template: PageTemplate
        var names: [String]
        var description: String {
            "the template \(template.rawValue) uses \(names.map { "{{\($0)}}" }.joined(separator: ", ")), which its view does not have"
        }
    }

    /// A page whose template does not fit its view: plain text, as the templates are what failed.
    private func templateFault(_ error: any Error) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: .internalServerError, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: "Template fault: \(error)\n")))
    }

    private struct ProblemView {
        struct Link {
            var path: String
            var label: String
        }
        var text: String
        var link: Link?
    }

    /// A page that only explains why the request was refused or failed.
    func problem(status: HTTPResponse.Status, title: String, text: String, link: (path: String, label: String)? = nil) -> Response {
        page(
            .problem, title: title, view: ProblemView(text: text, link: link.map { ProblemView.Link(path: $0.path, label: $0.label) }),
            chrome: Chrome(path: "", csrf: "", notices: [], signedIn: false), status: status)
    }
}
