import Foundation

/// An address of a struck employer, which the browser and the DNS block page show a notice for
/// instead of the employer's page (the Online Picket Line's "ask" and "block" policies,
/// `docs/picket.md` and `docs/dns.md` and `docs/browser.md`): who is on strike, since when, why, and whether the person may go on.
public struct PicketNotice: Hashable, Sendable {
    /// The address that was asked for.
    public var url: String
    /// The employer's name.
    public var employer: String
    /// The employer's identifier: "Proceed anyway" lets a person through to all its sites.
    public var employerId: String
    /// The kind of labor action: an ``ActionType`` raw value (`strike`, `work_stoppage`, …), or
    /// whatever another OPL server sent.
    public var actionType: String
    /// Who called the action (a union or workers' organisation), when known.
    public var organization: String?
    /// Where the action takes place, when known.
    public var location: String?
    /// When the action started (as the server sent it), when known.
    public var startDate: String?
    /// When the action ends, when known.
    public var endDate: String?
    /// The organisers' description of the action, when known.
    public var details: String?
    /// The list source the employer's domain came from.
    public var source: String
    /// Whether the person may go on to the site ("ask" policy) or not ("block").
    public var canProceed: Bool

    /// A notice with the given fields.
    public init(
        url: String, employer: String, employerId: String, actionType: String, organization: String? = nil, location: String? = nil,
        startDate: String? = nil, endDate: String? = nil, details: String? = nil, source: String, canProceed: Bool
    ) {
        self.url = url
        self.employer = employer
        self.employerId = employerId
        self.actionType = actionType
        self.organization = organization
        self.location = location
        self.startDate = startDate
        self.endDate = endDate
        self.details = details
        self.source = source
        self.canProceed = canProceed
    }

    /// How long "Proceed anyway" lets a site through, as the app design asks.
    public static let proceedDuration: TimeInterval = 24 * 60 * 60
}

/// The HTML of a ``PicketNotice``, shown in place of the employer's page.
public enum PicketNoticePage {
    /// How the page's buttons reach whoever shows it.
    public enum Controls: Sendable, Hashable {
        /// "Go back" and "Proceed anyway" post ``PicketNoticePage/backMessage`` and
        /// ``PicketNoticePage/proceedMessage`` to this WebKit script message handler (the
        /// browser: no network, no scheme of its own).
        case scriptMessages(handler: String)
        /// "Proceed anyway" is a form posting to this path on the same site (the DNS block page).
        case form(proceedPath: String)
    }

    /// Posted by "Proceed anyway".
    public static let proceedMessage = "pepper:picket-proceed"
    /// Posted by "Go back".
    public static let backMessage = "pepper:picket-back"

    /// The page for `notice`, with `controls`. When the policy offers no way through,
    /// `policyCommand` is how this face lets the person change it (`pepper picket policy ask` on
    /// Linux; the app has its own setting and gives none): the page names no face's command itself.
    public static func html(for notice: PicketNotice, controls: Controls, policyCommand: String? = nil) -> String {
        // Every type the OPL apps send reads as words (`work_stoppage` → "Work stoppage"), and
        // a lockout is said to be the employer's doing (ActionType).
        let action = ActionType.label(of: notice.actionType)
        var facts: [(String, String)] = [("Action", action)]
        if let organization = notice.organization, !organization.isEmpty { facts.append(("Called by", organization)) }
        if let location = notice.location, !location.isEmpty { facts.append(("Where", location)) }
        let dates = [notice.startDate, notice.endDate].compactMap { $0 }.filter { !$0.isEmpty }.map(day)
        if !dates.isEmpty { facts.append((dates.count == 2 ? "Dates" : "Since", dates.joined(separator: " to "))) }
        facts.append(("Address", notice.url))
        facts.append(("Listed by", notice.source))
        let rows = facts.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined(separator: "\n")
        let details = notice.details.map { $0.isEmpty ? "" : "<p class=\"details\">\(HTML.escape($0))</p>" } ?? ""
        let buttons: String
        switch controls {
        case .scriptMessages(let handler):
            let post = { (message: String) in "window.webkit.messageHandlers.\(handler).postMessage('\(message)')" }
            buttons =
                "<button id=\"back\" onclick=\"\(post(backMessage))\">Go back</button>\n"
                + (notice.canProceed
                    ? "<button id=\"proceed\" onclick=\"\(post(proceedMessage))\">Proceed anyway (for 24 hours)</button>" : "")
        case .form(let path):
            buttons =
                notice.canProceed
                ? "<form method=\"post\" action=\"\(HTML.escape(path))\"><button type=\"submit\">Proceed anyway (for 24 hours)</button></form>"
                : ""
        }
        let policy =
            notice.canProceed
            ? ""
            : "<p>The Picket policy here blocks this site"
                + (policyCommand.map { " (<code>\(HTML.escape($0))</code> offers to proceed)" } ?? "") + ".</p>"
        let employer = HTML.escape(notice.employer)
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>\(employer): \(HTML.escape(ActionType.noun(of: notice.actionType))) in progress</title>
            <style>
            body { font: 15px/1.5 system-ui, sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em; color: #222; }
            h1 { font-size: 1.6em; margin-bottom: 0.2em; } th { text-align: left; padding-right: 1em; vertical-align: top; }
            .details { background: #f6f1e3; padding: 0.8em 1em; border-left: 4px solid #c4302b; }
            button { font: inherit; padding: 0.4em 1em; margin: 1em 1em 0 0; }
            </style></head>
            <body>
            <h1>Picket line ahead: \(employer)</h1>
            <p>\(HTML.escape(ActionType.situation(of: notice.actionType, at: notice.employer))) The workers ask you not to cross the picket line, online included.</p>
            \(details)
            <table>
            \(rows)
            </table>
            \(policy)
            \(buttons)
            </body></html>
            """
    }

    /// The day of an ISO 8601 timestamp (`2024-01-01T00:00:00.000Z` → `2024-01-01`): the servers
    /// send midnight for actions that start on a day. Anything else is shown as sent.
    static func day(_ date: String) -> String {
        let bytes = Array(date.utf8)
        guard bytes.count > 10, bytes[10] == UInt8(ascii: "T"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
            return date
        }
        return String(date.prefix(10))
    }
}

/// HTML text escaping, for pages that show names and text from servers and lists.
public enum HTML {
    /// `text` with the characters HTML gives meaning to escaped, so server-supplied text
    /// cannot become markup or script.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
