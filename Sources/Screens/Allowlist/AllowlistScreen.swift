import FilterEngine
import FilterLists
import Foundation
import PepperActions
import Storage
import UTCTime

/// The allowlist screen: sites where nothing is blocked or hidden (for good or for 24 hours),
/// and "Check a URL": the verdict for a request, with the rule, list and line that decide it.
public struct AllowlistScreen: Sendable {
    /// One allowlisted site.
    public struct Entry: Sendable, Hashable {
        /// The domain as stored (ASCII).
        public var domain: String
        /// The domain as people read it (Unicode), when it differs.
        public var unicode: String?
        /// When it lapses; `nil` for good.
        public var expiresAt: Date?
        /// Whether it has lapsed.
        public var expired: Bool
    }

    /// For how long a site is allowlisted.
    public enum Duration: String, Sendable, Hashable, CaseIterable {
        /// Until removed.
        case forGood = "always"
        /// For 24 hours ("temporarily unprotected").
        case day = "24h"

        /// Seconds, or `nil` for good.
        public var seconds: TimeInterval? { self == .day ? 86_400 : nil }
    }

    /// The answer to "Check a URL".
    public struct CheckResult: Sendable, Hashable {
        /// The address checked.
        public var url: String
        /// The page it was checked from, when given.
        public var page: String?
        /// The request type used.
        public var type: String
        /// `BLOCKED`, `ALLOWED` or `NOMATCH`.
        public var decision: String
        /// The deciding rule as written, its list and line.
        public var rule: String?
        /// The list the rule is from.
        public var list: String?
        /// The line of the rule in its list.
        public var line: Int?
        /// A blocking rule that an exception overrode, as `rule (list:line)`.
        public var overridden: String?
        /// The sentence that explains it.
        public var explanation: String
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The allowlist, sorted by domain.
        public var entries: [Entry]
        /// The request types "Check a URL" offers.
        public var types: [String]
    }

    /// The request types offered to "Check a URL", in the order shown.
    public static let requestTypes = [
        "auto", "document", "script", "image", "stylesheet", "xmlhttprequest", "subdocument", "font", "media", "websocket", "ping", "other",
    ]

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads the allowlist.
    public func load(now: Date = Date()) async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                let entries = try state.allowlistEntries().map { entry in
                    let unicode = DomainName.toUnicode(entry.domain)
                    return Entry(
                        domain: entry.domain, unicode: unicode == entry.domain ? nil : unicode, expiresAt: entry.expiresAt,
                        expired: entry.expiresAt.map { $0 <= now } ?? false)
                }
                return State(entries: entries, types: Self.requestTypes)
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// Allowlists a site: a domain, or the host of a pasted web address.
    public func add(site: String, duration: Duration = .forGood) async -> Notice {
        do {
            let change = try await state.addAllowlist(site, for: duration.seconds)
            var text = change.added ? "Allowlisted \(change.domain)" : "\(change.domain) was already allowlisted"
            if change.fromAddress != nil { text += " (the site of the address you gave)" }
            if let until = change.expiresAt { text += " until \(Self.format(until))" }
            return .success(text + ": nothing is blocked or hidden there" + (change.outcome?.changed == false ? "." : " from now on."))
        } catch {
            return .failure(error, field: "site")
        }
    }

    /// Removes a site from the allowlist.
    public func remove(_ domain: String) async -> Notice {
        do {
            let change = try await state.removeAllowlist(domain)
            return .success("\(change.domain) is protected again.")
        } catch {
            return .failure(error)
        }
    }

    /// Which rule decides a request: `type` is one of ``requestTypes`` (`auto` guesses from the
    /// address).
    public func check(url: String, page: String? = nil, type: String = "auto") async -> Result<CheckResult, Notice> {
        await blocking { () -> Result<CheckResult, Notice> in
            let address = url.trimmingCharacters(in: .whitespacesAndNewlines)
            guard address.hasPrefix("http://") || address.hasPrefix("https://") || address.hasPrefix("ws://") || address.hasPrefix("wss://")
            else {
                return .failure(.error("Give a full address, starting with http:// or https://.", field: "url"))
            }
            let pageAddress = page?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
            if let pageAddress, !(pageAddress.hasPrefix("http://") || pageAddress.hasPrefix("https://")) {
                return .failure(.error("The page must be a full address, starting with http:// or https://.", field: "page"))
            }
            let resourceType: ResourceTypes
            if type == "auto" {
                resourceType = ResourceTypes.guess(forURL: address)
            } else if let known = ResourceTypes(requestTypeName: type) {
                resourceType = known
            } else {
                return .failure(.error("Unknown request type '\(type)'.", field: "type"))
            }
            let verdict: Verdict
            do throws(ActionError) {
                verdict = try state.check(address, page: pageAddress, type: resourceType)
            } catch {
                return .failure(.failure(error, field: "url"))
            }
            let typeName = type == "auto" ? Self.name(of: resourceType) : type
            var result = CheckResult(
                url: address, page: pageAddress, type: typeName, decision: verdict.decision.rawValue, rule: verdict.rule?.text,
                list: verdict.rule?.list, line: verdict.rule?.line,
                overridden: verdict.overridden.map { "\($0.text) (\($0.list):\($0.line))" },
                explanation: "")
            switch verdict.decision {
            case .blocked: result.explanation = "Blocked by this rule."
            case .allowed: result.explanation = "Allowed by this exception, although a blocking rule matches."
            case .noMatch: result.explanation = "No rule matches: the request goes through."
            }
            return .success(result)
        }
    }

    static func name(of type: ResourceTypes) -> String {
        requestTypes.dropFirst().first { ResourceTypes(requestTypeName: $0) == type } ?? "other"
    }

    static func format(_ date: Date) -> String {
        UTCDateTime.internetText(date)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
