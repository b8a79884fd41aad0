import ContentBlocker
import FilterLists
import Foundation
import Picket
import Storage

/// The Picket blocklist as a list source (`pepper lists add picket:https://SERVER --key KEY`).
///
/// - Fetching goes through `PicketClient` like the apps: `GET /api/mobile/data` at 0,0 with
///   the smallest radius (the blocklist is global; no geofence is wanted), sending the hash of
///   the stored copy, so an unchanged list costs a 304. The hash is kept as the source's ETag,
///   the server's `suggestedRefreshInterval` as its expiry. On a change the active strikes are
///   fetched too, so the DNS block page and the browser can show the action behind a domain.
/// - The stored copy in `lists/NAME` is the `data` payload as the server sent it; the strikes
///   go to `lists/.picket-NAME.strikes.json` (list names cannot start with a dot).
/// - Compiling turns the employers' domains into `||domain^` rules when the policy is `block`
///   or `ask` (a content blocker cannot ask, so it blocks), and into nothing under `allow`.
public enum PicketListSource {
    /// The `format` of Picket list sources.
    public static let format = "picket"

    /// The radius asked for when only the blocklist is wanted (the API's minimum).
    static let blocklistRadius = 100

    /// The server URL of a `picket:https://SERVER` location, if it is one.
    public static func serverURL(_ location: String) -> URL? {
        guard ListSource.isPicket(location) else { return nil }
        let address = String(location.dropFirst("picket:".count))
        guard ListSource.isWeb(address), let url = URL(string: address), url.host != nil else {
            return nil
        }
        return url
    }

    /// A default list name for a server: `picket-HOST`.
    public static func defaultName(for location: String) -> String {
        let host = serverURL(location)?.host?.lowercased() ?? "server"
        let cleaned = String(host.map { ($0.isLetter && $0.isASCII) || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "-" })
        return String(("picket-" + cleaned).prefix(64))
    }

    /// Where the active strikes of source `name` are kept.
    public static func strikesURL(home: PepperHome, name: String) -> URL {
        home.listsURL.appendingPathComponent(".picket-\(name).strikes.json")
    }

    /// What a fetch brought.
    public enum Fetched: Sendable {
        /// 304: the stored copy is current; the server suggests asking again after `refresh`.
        case unchanged(refresh: TimeInterval?)
        /// 200: a new payload (as received), its hash, and the active strikes (if they could be read).
        case new(body: Data, data: MobileData, hash: String, strikes: Data?)
    }

    /// Fetches the blocklist of `server` with `key`, conditionally on `lastHash`.
    public static func fetch(
        server: URL, key: String, lastHash: String?, timeout: TimeInterval = 30
    ) async throws(PicketClientError) -> Fetched {
        let client = PicketClient(server: server, apiKey: key, timeout: timeout)
        switch try await client.mobileData(at: GeoCoordinate(latitude: 0, longitude: 0), radius: blocklistRadius, lastHash: lastHash) {
        case .notModified:
            return .unchanged(refresh: nil)
        case .updated(let data, let hash, let body):
            // The strikes are a bonus for block pages: a failure here does not fail the update.
            let strikes = try? await client.activeStrikes()
            let strikesData = try? strikes.map { strikes in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return try encoder.encode(strikes)
            }
            return .new(body: body, data: data, hash: hash, strikes: strikesData)
        }
    }

    /// The filter-list text for a stored payload under `policy`: `||domain^` per distinct
    /// employer domain (punycode, sorted), or no rules under `PicketPolicy.allow`.
    public static func filterList(from payload: Data, policy: PicketPolicy, server: String) throws -> (text: String, domains: Int) {
        let data: MobileData
        do {
            data = try JSONDecoder().decode(MobileData.self, from: payload)
        } catch {
            throw PicketListError.unreadable("the stored copy is not a Picket data payload: \(error)")
        }
        var domains = Set<String>()
        for entry in data.blocklist.urls {
            guard let host = BlocklistMatcher.normalizedHost(entry.url), let domain = try? DomainName.normalize(host) else { continue }
            domains.insert(domain)
        }
        var text = "[Adblock Plus 2.0]\n! Title: Online Picket Line blocklist (\(server))\n! Picket policy: \(policy.rawValue)\n"
        if policy.blocksInContentBlocker {
            for domain in domains.sorted() { text += "||\(domain)^\n" }
        }
        return (text, domains.count)
    }

    /// The compiler input for a stored Picket source, or `nil` under `PicketPolicy.allow`
    /// (the domains are then only logged by the DNS filter and the browser).
    public static func input(for source: ListSource, payload: Data, policy: PicketPolicy) throws -> ListInput? {
        guard policy.blocksInContentBlocker else { return nil }
        let (text, _) = try filterList(from: payload, policy: policy, server: source.location)
        return ListInput(name: source.name, location: source.location, etag: source.etag, data: Data(text.utf8), format: .abp)
    }
}

/// Why a Picket list source cannot be used.
public enum PicketListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `picket:` is not followed by an http(s) URL.
    case badLocation(String)
    /// The source has no API key.
    case missingKey(String)
    /// The stored copy cannot be read.
    case unreadable(String)

    public var description: String {
        switch self {
        case .badLocation(let location): return "\(location): expected picket:https://SERVER"
        case .missingKey(let name): return "\(name): no API key"
        case .unreadable(let details): return details
        }
    }
}

/// What the DNS filter and the browser need to know about a host: whether a struck employer
/// owns it, the action behind it, and the policy (`docs/dns.md` and `docs/browser.md`).
///
/// ```swift
/// let index = try PicketBlocklistIndex.load(home: home, database: database)
/// if let match = index.lookup("www.acme.example") {
///     // index.policy == .ask: show match.entry.employer, match.action?.description, "Proceed anyway"
/// }
/// ```
public struct PicketBlocklistIndex: Sendable {
    /// A host's match.
    public struct Match: Sendable, Hashable {
        /// The blocklist entry (employer, action type and identifier).
        public var entry: BlocklistEntry
        /// The action's details, from the source's stored active strikes.
        public var action: ActiveStrike?
        /// The list source it came from.
        public var source: String
    }

    /// What to do with matches.
    public let policy: PicketPolicy
    /// The enabled Picket sources read.
    public let sources: [String]
    private let matchers: [(source: String, matcher: BlocklistMatcher, strikes: [String: ActiveStrike])]

    /// An index over `payloads` (source name → stored `data` payload and active strikes).
    public init(policy: PicketPolicy, payloads: [(source: String, data: MobileData, strikes: ActiveStrikes?)]) {
        self.policy = policy
        sources = payloads.map(\.source)
        matchers = payloads.map { payload in
            let strikes = Dictionary(
                (payload.strikes?.strikes ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return (payload.source, BlocklistMatcher(entries: payload.data.blocklist.urls), strikes)
        }
    }

    /// The index of a home: its enabled Picket sources' stored copies and the policy.
    public static func load(home: PepperHome, database: PepperDatabase) throws -> PicketBlocklistIndex {
        let policy = try PicketPolicyStore(database: database).policy()
        var payloads: [(String, MobileData, ActiveStrikes?)] = []
        for source in try ListSourceStore(database: database).enabled() where source.format == PicketListSource.format {
            guard let body = ListCopies.read(source, home: home),
                let data = try? JSONDecoder().decode(MobileData.self, from: body)
            else { continue }
            let strikes = (try? Data(contentsOf: PicketListSource.strikesURL(home: home, name: source.name))).flatMap {
                try? JSONDecoder().decode(ActiveStrikes.self, from: $0)
            }
            payloads.append((source.name, data, strikes))
        }
        return PicketBlocklistIndex(policy: policy, payloads: payloads)
    }

    /// The struck employer's entry a host (or URL) falls under, with its action, if any.
    public func lookup(_ hostOrURL: String) -> Match? {
        for (source, matcher, strikes) in matchers {
            if let entry = matcher.match(hostOrURL) { return Match(entry: entry, action: strikes[entry.actionId], source: source) }
        }
        return nil
    }

    /// The notice the browser and the DNS block page show for `url` (a URL or a host name): the
    /// employer, the action's details, and whether the policy lets the person proceed; `nil`
    /// when no struck employer owns it or the policy is `PicketPolicy.allow`.
    public func notice(for url: String) -> PicketNotice? {
        guard policy != .allow, let match = lookup(url) else { return nil }
        return PicketNotice(
            url: url, employer: match.entry.employer, employerId: match.entry.employerId,
            actionType: match.action?.actionType ?? match.entry.actionType, organization: match.action?.organization,
            location: match.action?.location, startDate: match.action?.startDate, endDate: match.action?.endDate,
            details: match.action?.description, source: match.source, canProceed: policy == .ask)
    }

    /// Every distinct domain of every source, sorted.
    public var domains: [String] { Array(Set(matchers.flatMap(\.matcher.hosts))).sorted() }
}
