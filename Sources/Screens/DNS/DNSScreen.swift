import BlockingWork
import Foundation
import PepperActions
import Storage

/// The DNS screen: what `pepper dns serve` answered — queries and the blocked share over 24
/// hours, the names blocked most, the clients asking most — and the query log, searchable and
/// paged, with one click to allow a blocked name or block an answered one (the running server
/// reloads by itself after either). Client groups are shown as the server reads them.
public struct DNSScreen: Sendable {
    /// One hour of the chart.
    public struct Bar: Sendable, Hashable {
        /// The start of the hour.
        public var hour: Date
        /// Queries answered.
        public var total: Int
        /// Queries blocked.
        public var blocked: Int
    }

    /// What one click on a log row does.
    public enum RowAction: String, Sendable, Hashable {
        /// Allowlist the blocked name.
        case allow
        /// Add `||name^` to My rules.
        case block
        /// Nothing: the name is allowlisted now (it was blocked when logged).
        case allowedSince = "allowed-since"
        /// Nothing: My rules block it now (it was answered when logged).
        case blockedSince = "blocked-since"
    }

    /// One query of the log.
    public struct Row: Sendable, Hashable {
        /// Its row id (for paging and the live tail).
        public var id: Int64
        /// When it was answered.
        public var at: Date
        /// The client: its device name and address (`phone (203.0.113.5)`) when the query named
        /// a device, else its address.
        public var client: String
        /// The name asked about.
        public var name: String
        /// The record type.
        public var type: String
        /// What the filter did.
        public var outcome: DNSQueryOutcome
        /// The response code sent.
        public var responseCode: String
        /// Whether it was blocked (the outcome's own answer, kept for the faces' templates).
        public var blocked: Bool
        /// What one click does.
        public var action: RowAction
    }

    /// Which part of the log to show.
    public struct LogQuery: Sendable, Hashable {
        /// Rows older than this id (the next page); `nil` for the newest.
        public var before: Int64?
        /// Only names containing this text.
        public var search: String
        /// Only blocked queries.
        public var blockedOnly: Bool
        /// Rows per page.
        public var limit: Int

        /// A query with the given fields.
        public init(before: Int64? = nil, search: String = "", blockedOnly: Bool = false, limit: Int = 50) {
            self.before = before
            self.search = search.trimmingCharacters(in: .whitespaces).lowercased()
            self.blockedOnly = blockedOnly
            self.limit = min(max(limit, 1), 500)
        }
    }

    /// A client group as the running server reads it.
    public struct Group: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Its clients (CIDR blocks, then device names).
        public var clients: [String]
        /// Its lists; `nil` for the default ones.
        public var lists: [String]?
        /// Its own allowlist.
        public var allowlist: [String]
    }

    /// The totals and the chart.
    public struct Summary: Sendable, Hashable {
        /// Queries in the last 24 hours.
        public var total: Int
        /// Of which blocked.
        public var blocked: Int
        /// One bar per hour, oldest first (24).
        public var chart: [Bar]
        /// The names blocked most in the last 24 hours (from the log).
        public var topBlocked: [DNSQueryLogStore.NameCount]
        /// The clients asking most in the last 24 hours (from the log).
        public var topClients: [DNSQueryLogStore.NameCount]
        /// When the two top lists were counted: they are kept a while (see `init`), so they can
        /// lag the totals, and a face says as of when.
        public var topListsCountedAt: Date

        /// The blocked share, 0–100.
        public var blockedPercent: Double { total == 0 ? 0 : Double(blocked) * 100 / Double(total) }
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The running server, when one runs.
        public var server: DNSServerStatus?
        /// The totals and the chart.
        public var summary: Summary
        /// The page of the log asked for.
        public var log: [Row]
        /// The query that gave it.
        public var query: LogQuery
        /// The id to ask for the next (older) page with, when there is one.
        public var nextBefore: Int64?
        /// The client groups of the running server.
        public var groups: [Group]
        /// Why the groups file cannot be read, when it cannot.
        public var groupsProblem: String?
        /// The newest row of the whole log when it was read: the live log goes on after it.
        public var latestID: Int64
    }

    /// The state.
    public let state: PepperState
    /// The log as it grows, for the live views (one reader for all of them).
    public let live: DNSLiveTail
    private let tops: TopListsCache

    /// The screen over `state`. The names blocked most and the clients asking most count the
    /// whole day's log (a million rows take a second or more): they are kept for
    /// `topListsLifetime` seconds and then recomputed in the background while the last ones are
    /// shown, so a page never waits for them but the first time. The live views (``live``) read
    /// the log every `liveInterval`.
    public init(state: PepperState, topListsLifetime: TimeInterval = 30, liveInterval: Duration = .seconds(1)) {
        self.state = state
        tops = TopListsCache(lifetime: topListsLifetime)
        live = DNSLiveTail(
            interval: liveInterval, read: { after, limit in try await Self.tail(state, after: after, limit: limit) },
            latest: { await Self.latestID(state) })
    }

    /// Reads the summary, one page of the log and the groups.
    public func load(_ query: LogQuery = LogQuery(), now: Date = Date()) async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            let server = DNSServerStatus.current(home: state.home)
            var groups: [Group] = []
            var groupsProblem: String?
            if let file = server?.groupsFile {
                do throws(ActionError) {
                    groups = try DNSClientGroupsFile.load(file).map { group in
                        Group(
                            name: group.name, clients: group.clients.map(\.description) + group.devices.map(\.value), lists: group.lists,
                            allowlist: group.allowlist)
                    }
                } catch {
                    groupsProblem = Text.sentence(error.description)
                }
            }
            let store = DNSQueryLogStore(database: state.database)
            do {
                let page = try store.page(
                    before: query.before, limit: query.limit + 1, search: query.search, blockedOnly: query.blockedOnly)
                let shown = Array(page.prefix(query.limit))
                return State(
                    server: server, summary: try readSummary(now: now), log: try Self.rows(shown, state: state), query: query,
                    nextBefore: page.count > query.limit ? shown.last?.id : nil, groups: groups, groupsProblem: groupsProblem,
                    latestID: try store.latestID())
            } catch let error as ScreenError {
                throw error
            } catch {
                throw ScreenError("Cannot read the DNS log: \(error).")
            }
        }
    }

    /// Starts counting the top lists in the background, so that the first page that shows
    /// them need not count them itself (a day's log takes a second or more): the console calls it
    /// when it starts. A load that comes while they are counted waits for that count.
    public func prepare(now: Date = Date()) {
        tops.prime(now: now, compute: Self.countTops(DNSQueryLogStore(database: state.database), now: now))
    }

    /// The names blocked most and the clients asking most over the chart's 24 hours.
    private static func countTops(_ store: DNSQueryLogStore, now: Date) -> @Sendable () throws -> TopListsCache.Value {
        {
            let since = chartStart(now: now)
            // The newest row first: rows logged during the count are after it, so they count as new.
            let through = try store.latestID()
            return (try store.topBlocked(limit: 10, since: since), try store.topClients(limit: 10, since: since), through)
        }
    }

    /// The start of the page's "last 24 hours", for the chart, its counts and the top lists
    /// alike: the hour 23 hours before the current one.
    static func chartStart(now: Date) -> Date {
        Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600 - 23 * 3_600)
    }

    /// The totals, the 24-hour chart and the top lists.
    public func summary(now: Date = Date()) async throws(ScreenError) -> Summary {
        try await blocking { () throws(ScreenError) -> Summary in try readSummary(now: now) }
    }

    private func readSummary(now: Date) throws(ScreenError) -> Summary {
        let store = DNSQueryLogStore(database: state.database)
        let firstHour = Self.chartStart(now: now)
        do {
            let counts = try store.hourlyCounts(since: firstHour)
            var bars = (0..<24).map { Bar(hour: firstHour.addingTimeInterval(Double($0) * 3_600), total: 0, blocked: 0) }
            for count in counts {
                let index = Int(count.hour.timeIntervalSince(firstHour) / 3_600)
                guard bars.indices.contains(index) else { continue }
                bars[index].total += count.count
                if count.outcome.isBlocked { bars[index].blocked += count.count }
            }
            let total = bars.reduce(0) { $0 + $1.total }
            let blocked = bars.reduce(0) { $0 + $1.blocked }
            // Lists counted when nothing was blocked yet (a fresh console) say "nothing blocked"
            // beside a count that says otherwise: once rows came after that count, they are
            // counted again without waiting out their lifetime (and not again while none come).
            let latest = try store.latestID()
            let (tops, countedAt) = try tops.value(
                now: now,
                outdated: { ($0.blocked.isEmpty && blocked > 0 || $0.clients.isEmpty && total > 0) && latest > $0.through },
                compute: Self.countTops(store, now: now))
            return Summary(
                total: total, blocked: blocked, chart: bars, topBlocked: tops.blocked, topClients: tops.clients,
                topListsCountedAt: countedAt)
        } catch {
            throw ScreenError("Cannot read the DNS counts: \(error).")
        }

    }

    /// The rows logged after `id`, oldest first.
    public func tail(after id: Int64, limit: Int = 100) async throws(ScreenError) -> [Row] {
        try await Self.tail(state, after: id, limit: limit)
    }

    private static func tail(_ state: PepperState, after id: Int64, limit: Int) async throws(ScreenError) -> [Row] {
        try await blocking { () throws(ScreenError) -> [Row] in
            do {
                return try rows(DNSQueryLogStore(database: state.database).entries(after: id, limit: limit), state: state)
            } catch let error as ScreenError {
                throw error
            } catch {
                throw ScreenError("Cannot read the DNS log: \(error).")
            }
        }
    }

    /// The newest row id of the log.
    public func latestID() async -> Int64 {
        await Self.latestID(state)
    }

    private static func latestID(_ state: PepperState) async -> Int64 {
        await blocking { () -> Int64 in
            (try? DNSQueryLogStore(database: state.database).latestID()) ?? 0
        }
    }

    private static func rows(_ logged: [DNSQueryLogStore.LoggedQuery], state: PepperState) throws -> [Row] {
        let allowlist = try AllowlistStore(database: state.database).domains()
        let rules = Set(try state.userRules().map(\.text))
        return logged.map { item in
            let entry = item.entry
            let blocked = entry.outcome.isBlocked
            let action: RowAction
            if blocked {
                let allowed = allowlist.contains { AllowlistSnapshot.domain($0, covers: entry.name) }
                action = allowed ? .allowedSince : .allow
            } else {
                action = rules.contains(Self.blockRule(for: entry.name)) ? .blockedSince : .block
            }
            return Row(
                id: item.id, at: entry.at, client: entry.clientShown, name: entry.name, type: entry.type, outcome: entry.outcome,
                responseCode: entry.responseCode, blocked: blocked, action: action)
        }
    }

    /// The rule "Block this domain" adds to My rules.
    public static func blockRule(for name: String) -> String { "||\(name)^" }

    // MARK: Actions

    /// Allowlists a name blocked in the log; the running server reloads within seconds.
    public func allow(_ name: String) async -> Notice {
        do {
            let change = try await state.addAllowlist(name)
            return .success("Allowed \(change.domain): the DNS filter answers it again within a few seconds.")
        } catch {
            return .failure(error)
        }
    }

    /// Blocks a name answered in the log (adds `||name^` to My rules); the running server reloads
    /// within seconds.
    public func block(_ name: String) async -> Notice {
        let rule = Self.blockRule(for: name.trimmingCharacters(in: .whitespaces).lowercased())
        do {
            try await state.addRule(rule)
            return .success("Blocked \(name) (added \(rule) to My rules): the DNS filter blocks it within a few seconds.")
        } catch {
            return .failure(error)
        }
    }
}

/// The top lists of the DNS screen, computed at most once per lifetime: a stale value is shown
/// while a fresh one is computed in the background.
final class TopListsCache: @unchecked Sendable {
    // `@unchecked`: every stored `var` is only touched with `condition` locked.
    /// The lists, and the newest log row when they were counted.
    typealias Value = (blocked: [DNSQueryLogStore.NameCount], clients: [DNSQueryLogStore.NameCount], through: Int64)

    private let condition = NSCondition()
    private let lifetime: TimeInterval
    private var value: Value?
    private var computedAt = Date.distantPast
    private var refreshing = false

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// Computes the first value in the background, unless there is one or one is being computed.
    /// At normal priority: a load that comes meanwhile waits for it, and a wait for work at the
    /// lowest priority would last as long as the processor is busy with anything else.
    func prime(now: Date, compute: @escaping @Sendable () throws -> Value) {
        let start = condition.withLock {
            guard value == nil && !refreshing else { return false }
            refreshing = true
            return true
        }
        if start { refresh(now: now, lowestPriority: false, compute: compute) }
    }

    /// The least time between two counts when `outdated` asks for one early.
    static let earliestRecount: TimeInterval = 2

    /// The value and when it was computed (`now` for one computed by this call). A value past
    /// its lifetime, or one `outdated` rejects (at most every ``earliestRecount`` seconds), is
    /// returned and recomputed in the background.
    func value(
        now: Date, outdated: (Value) -> Bool = { _ in false }, compute: @escaping @Sendable () throws -> Value
    ) throws -> (Value, computedAt: Date) {
        let (cached, cachedAt, stale) = condition.withLock { () -> (Value?, Date, Bool) in
            // The first value is being computed (``prime(now:compute:)``): wait for it rather
            // than count the same day twice at once.
            while value == nil && refreshing { condition.wait() }
            let age = now.timeIntervalSince(computedAt)
            let stale = age >= lifetime || (age >= Self.earliestRecount && value.map(outdated) == true)
            let start = stale && value != nil && !refreshing
            if start { refreshing = true }
            return (value, computedAt, start)
        }
        guard let cached else {
            let fresh = try compute()
            condition.withLock {
                value = fresh
                computedAt = now
            }
            return (fresh, now)
        }
        // Nobody waits for a recount (the kept value is shown meanwhile): at the lowest priority.
        if stale { refresh(now: now, lowestPriority: true, compute: compute) }
        return (cached, cachedAt)
    }

    /// Computes a value on a thread of its own, at the lowest priority when nobody waits for it
    /// (the pages asked for meanwhile keep the processor); `refreshing` is set by the caller.
    private func refresh(now: Date, lowestPriority: Bool, compute: @escaping @Sendable () throws -> Value) {
        BackgroundWork.start(named: "pepper.dns-top-lists", lowestPriority: lowestPriority) { [self] in
            let fresh = try? compute()
            condition.withLock {
                if let fresh {
                    value = fresh
                    computedAt = now
                }
                refreshing = false
                condition.broadcast()
            }
        }
    }
}
