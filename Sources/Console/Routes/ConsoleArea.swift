import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PepperActions
import Screens
import UTCTime

/// One area of the console (Calls, DNS, Lists…): its routes, all under one path, with only the
/// dependencies it uses. Each page is one screen model rendered by one template. Actions follow
/// post/redirect/get: a change redirects to its page with the notice it gave; a bad form input
/// re-shows the form with the field's error (status 422), and nothing changes.
protocol ConsoleArea: Sendable {
    /// The path every route of the area is under (`/calls`).
    static var path: RouterPath { get }
    /// Renders the area's pages.
    var renderer: PageRenderer { get }
    /// The sessions, whose notices a page shows once after a redirect.
    var sessions: Sessions { get }
    /// The area's routes, relative to ``path``.
    func routes() -> RouteCollection<ConsoleContext>
}

extension ConsoleArea {
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
        return Response.redirect(to: LocalPath.checked(path) ?? "/")
    }

    /// The submitted form (read and checked by ``ConsoleGuard``).
    func form(_ context: ConsoleContext) -> FormData {
        context.form ?? FormData()
    }

    /// A screen that cannot be shown.
    func failure(_ error: any Error, title: String, request: Request, context: ConsoleContext) -> Response {
        renderer.page(
            .problem, title: title, view: ProblemText(text: "\(error)"), chrome: chrome(request, context),
            status: .internalServerError)
    }
}

extension RouterMethods<ConsoleContext> {
    /// Adds the routes of `area` under its path.
    @discardableResult func add(_ area: some ConsoleArea) -> Self {
        addRoutes(area.routes(), atPath: type(of: area).path)
    }
}

/// Where a form may send the browser back to.
enum LocalPath {
    /// `path` when it is a path of this console (never another site: `//evil`, `/\evil`,
    /// `https://…`, nor `/<tab>/evil`, which browsers read as `//evil` once they drop the tab).
    static func checked(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"),
            path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        return path
    }
}

/// The text of the `problem` page.
struct ProblemText {
    var text: String
}

/// One line of a counts table (calls, messages).
struct CountRow {
    var label: String
    var today: String
    var week: String

    static func rows(_ counts: [ActivityCount]) -> [CountRow] {
        counts.map { CountRow(label: $0.label, today: Format.count($0.today), week: Format.count($0.week)) }
    }
}

/// How dates and numbers read on the pages. Times come from ``UTCDateTime``'s arithmetic: a
/// `DateFormatter` took about 100 µs to make, once per row of the DNS log (50 a page).
enum Format {
    /// `yyyy-MM-dd HH:mm UTC`, or "never".
    static func date(_ date: Date?) -> String {
        guard let date else { return "never" }
        guard let fields = UTCDateTime(truncating: date) else { return formatted(date, "yyyy-MM-dd HH:mm 'UTC'") }
        return fields.dayText + " " + fields.minuteText + " UTC"
    }

    /// `MM-dd HH:mm:ss` (UTC).
    static func time(_ date: Date) -> String {
        guard let fields = UTCDateTime(truncating: date) else { return formatted(date, "MM-dd HH:mm:ss") }
        return fields.monthDayText + " " + fields.secondText
    }

    /// `HH:mm` (UTC).
    static func hour(_ date: Date) -> String {
        guard let fields = UTCDateTime(truncating: date) else { return formatted(date, "HH:mm") }
        return fields.minuteText
    }

    /// Foundation's formatting, for the years ``UTCDateTime`` does not cover.
    private static func formatted(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    static func count(_ value: Int) -> String { Wording.count(value) }
}
