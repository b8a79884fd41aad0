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

extension PicketNotice {
    /// What every face shows of a notice — the browser's page, the DNS block page, the iOS
    /// app's full-screen overlay — worded once, so that they say the same.
    public struct Presentation: Sendable, Hashable {
        /// One line of the facts' table: a label and its value.
        public struct Fact: Sendable, Hashable {
            /// What the value is ("Action", "Called by", …).
            public var label: String
            /// The value.
            public var value: String
        }

        /// The page's title: "Acme: strike in progress".
        public var title: String
        /// The heading: "Picket line ahead: Acme".
        public var heading: String
        /// What is going on, and the workers' request.
        public var situation: String
        /// The organisers' description, when they gave one.
        public var details: String?
        /// The facts, in order: the action, who called it, where, when, the address, the list.
        public var facts: [Fact]
        /// Whether the person may go on (the `ask` policy).
        public var canProceed: Bool
        /// Under `block`, why there is no way on: "The Picket policy here blocks this site."
        public var blockedNote: String?
        /// The title of the button that goes on.
        public var proceedTitle: String
        /// The title of the button that turns back.
        public var backTitle: String

        /// The presentation of `notice`.
        public init(_ notice: PicketNotice) {
            // Every type the OPL apps send reads as words (`work_stoppage` → "Work stoppage"), and
            // a lockout is said to be the employer's doing (ActionType).
            let action = ActionType.label(of: notice.actionType)
            var facts = [Fact(label: "Action", value: action)]
            if let organization = notice.organization, !organization.isEmpty { facts.append(Fact(label: "Called by", value: organization)) }
            if let location = notice.location, !location.isEmpty { facts.append(Fact(label: "Where", value: location)) }
            let dates = [notice.startDate, notice.endDate].compactMap { $0 }.filter { !$0.isEmpty }.map(PicketNoticePage.day)
            if !dates.isEmpty { facts.append(Fact(label: dates.count == 2 ? "Dates" : "Since", value: dates.joined(separator: " to "))) }
            facts.append(Fact(label: "Address", value: notice.url))
            facts.append(Fact(label: "Listed by", value: notice.source))
            self.facts = facts
            title = "\(notice.employer): \(ActionType.noun(of: notice.actionType)) in progress"
            heading = "Picket line ahead: \(notice.employer)"
            situation =
                ActionType.situation(of: notice.actionType, at: notice.employer)
                + " The workers ask you not to cross the picket line, online included."
            details = notice.details.flatMap { $0.isEmpty ? nil : $0 }
            canProceed = notice.canProceed
            blockedNote = notice.canProceed ? nil : "The Picket policy here blocks this site."
            proceedTitle = "Proceed anyway (for 24 hours)"
            backTitle = "Go back"
        }
    }
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
        let shown = PicketNotice.Presentation(notice)
        let rows = shown.facts.map { "<tr><th>\(HTML.escape($0.label))</th><td>\(HTML.escape($0.value))</td></tr>" }.joined(separator: "\n")
        let details = shown.details.map { "<p class=\"details\">\(HTML.escape($0))</p>" } ?? ""
        let buttons: String
        switch controls {
        case .scriptMessages(let handler):
            let post = { (message: String) in "window.webkit.messageHandlers.\(handler).postMessage('\(message)')" }
            buttons =
                "<button id=\"back\" onclick=\"\(post(backMessage))\">\(shown.backTitle)</button>\n"
                + (notice.canProceed
                    ? "<button id=\"proceed\" onclick=\"\(post(proceedMessage))\">\(shown.proceedTitle)</button>" : "")
        case .form(let path):
            buttons =
                notice.canProceed
                ? "<form method=\"post\" action=\"\(HTML.escape(path))\"><button type=\"submit\">\(shown.proceedTitle)</button></form>"
                : ""
        }
        let policy =
            notice.canProceed
            ? ""
            : "<p>The Picket policy here blocks this site"
                + (policyCommand.map { " (<code>\(HTML.escape($0))</code> offers to proceed)" } ?? "") + ".</p>"
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>\(HTML.escape(shown.title))</title>
            <style>
            body { font: 15px/1.5 system-ui, sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em; color: #222; }
            h1 { font-size: 1.6em; margin-bottom: 0.2em; } th { text-align: left; padding-right: 1em; vertical-align: top; }
            .details { background: #f6f1e3; padding: 0.8em 1em; border-left: 4px solid #c4302b; }
            button { font: inherit; padding: 0.4em 1em; margin: 1em 1em 0 0; }
            </style></head>
            <body>
            <h1>\(HTML.escape(shown.heading))</h1>
            <p>\(HTML.escape(shown.situation))</p>
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
