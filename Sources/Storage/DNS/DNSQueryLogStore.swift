import Foundation
import GRDB

/// What the DNS filter answered: counters per day and outcome (exact), and a log of recent
/// queries with bounded retention (the newest ``retention`` rows and at most ``maximumAge``).
public struct DNSQueryLogStore: Sendable {
    /// One logged query.
    public struct Entry: Sendable, Hashable, Codable {
        /// When it was answered.
        public var at: Date
        /// The client's address.
        public var client: String
        /// The device the query named (DNS over TLS or HTTPS), if any.
        public var device: String?
        /// The name asked about (lower case, no final dot).
        public var name: String
        /// The record type (`A`, `AAAA`, …).
        public var type: String
        /// What was done.
        public var outcome: DNSQueryOutcome
        /// The response code sent (`NOERROR`, `NXDOMAIN`, …).
        public var responseCode: String

        /// An entry with the given fields.
        public init(
            at: Date, client: String, device: String? = nil, name: String, type: String, outcome: DNSQueryOutcome, responseCode: String
        ) {
            self.at = at
            self.client = client
            self.device = device
            self.name = name
            self.type = type
            self.outcome = outcome
            self.responseCode = responseCode
        }

        /// Whether the query was blocked (by name or by CNAME).
        public var isBlocked: Bool { outcome.isBlocked }

        /// The client as people read it: `phone (203.0.113.5)` when the query named a device,
        /// else the address.
        public var clientShown: String { device.map { "\($0) (\(client))" } ?? client }
    }

    /// A counter: queries with one outcome on one day (UTC, `yyyy-MM-dd`).
    public struct Count: Sendable, Hashable, Codable {
        /// The day.
        public var day: String
        /// The outcome.
        public var outcome: DNSQueryOutcome
        /// How many queries.
        public var count: Int

        /// A counter with the given fields.
        public init(day: String, outcome: DNSQueryOutcome, count: Int) {
            self.day = day
            self.outcome = outcome
            self.count = count
        }
    }

    /// A logged query with its row id (ids grow with time, so they page the log).
    public struct LoggedQuery: Sendable, Hashable {
        /// The row id.
        public var id: Int64
        /// The query.
        public var entry: Entry
    }

    /// Queries with one outcome in one hour (UTC), exact like the daily counters.
    public struct HourCount: Sendable, Hashable, Codable {
        /// The start of the hour.
        public var hour: Date
        /// The outcome.
        public var outcome: DNSQueryOutcome
        /// How many queries.
        public var count: Int
    }

    /// A name and how often it appears in the log.
    public struct NameCount: Sendable, Hashable, Codable {
        /// The name.
        public var name: String
        /// Queries for it in the log.
        public var count: Int

        /// A name count with the given fields.
        public init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    /// Log rows kept at most.
    public let retention: Int
    /// The oldest log row kept.
    public let maximumAge: TimeInterval
    private let database: PepperDatabase

    /// The DNS log of `database`: by default the newest 100,000 queries of the last 7 days.
    public init(database: PepperDatabase, retention: Int = 100_000, maximumAge: TimeInterval = 7 * 86_400) {
        self.database = database
        self.retention = retention
        self.maximumAge = maximumAge
    }

    static func migrate(_ db: Database) throws {
        try db.create(table: "dnsQueryLog") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("at", .datetime).notNull().indexed()
            table.column("client", .text).notNull()
            table.column("name", .text).notNull()
            table.column("type", .text).notNull()
            table.column("outcome", .text).notNull()
            table.column("responseCode", .text).notNull()
        }
        try db.create(table: "dnsCounter") { table in
            table.column("day", .text).notNull()
            table.column("outcome", .text).notNull()
            table.column("count", .integer).notNull()
            table.primaryKey(["day", "outcome"])
        }
    }

    /// Hourly counters for the 24-hour chart, and an index for the log's search by name
    /// (migration `v-console-1`).
    static func migrateHourly(_ db: Database) throws {
        try db.create(table: "dnsHourCounter") { table in
            table.column("hour", .integer).notNull()
            table.column("outcome", .text).notNull()
            table.column("count", .integer).notNull()
            table.primaryKey(["hour", "outcome"])
        }
    }

    /// The device name a query carried (migration `v-dns-2-device-names`); older rows have none.
    static func addDevices(_ db: Database) throws {
        try db.alter(table: "dnsQueryLog") { table in
            table.add(column: "device", .text)
        }
    }

    /// Hourly counters are kept this long.
    public static let hourlyRetention: TimeInterval = 8 * 86_400

    /// Adds counts and log rows in one transaction, then trims the log to its retention.
    /// `counts` are exact; `entries` may be a sample when the server answers faster than it logs.
    public func record(counts: [Count], entries: [Entry], now: Date = Date()) throws {
        guard !counts.isEmpty || !entries.isEmpty else { return }
        try database.writer.write { db in
            let count = try db.cachedStatement(
                sql: """
                    INSERT INTO dnsCounter (day, outcome, count) VALUES (?, ?, ?)
                    ON CONFLICT (day, outcome) DO UPDATE SET count = count + excluded.count
                    """)
            for item in counts { try count.execute(arguments: [item.day, item.outcome.rawValue, item.count]) }
            // The same counts for the hour they were made in (the chart's bars).
            let hour = Int64(now.timeIntervalSince1970 / 3_600) * 3_600
            let hourly = try db.cachedStatement(
                sql: """
                    INSERT INTO dnsHourCounter (hour, outcome, count) VALUES (?, ?, ?)
                    ON CONFLICT (hour, outcome) DO UPDATE SET count = count + excluded.count
                    """)
            for item in counts { try hourly.execute(arguments: [hour, item.outcome.rawValue, item.count]) }
            if !counts.isEmpty {
                try db.execute(
                    sql: "DELETE FROM dnsHourCounter WHERE hour < ?", arguments: [hour - Int64(Self.hourlyRetention)])
            }
            let insert = try db.cachedStatement(
                sql: "INSERT INTO dnsQueryLog (at, client, device, name, type, outcome, responseCode) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for entry in entries.suffix(retention) {
                try insert.execute(arguments: [
                    entry.at.stored, entry.client, entry.device, entry.name, entry.type, entry.outcome.rawValue,
                    entry.responseCode,
                ])
            }
            try db.execute(
                sql: "DELETE FROM dnsQueryLog WHERE id <= (SELECT MAX(id) FROM dnsQueryLog) - ? OR at < ?",
                arguments: [retention, now.addingTimeInterval(-maximumAge).stored])
        }
    }

    /// The newest log entries first, blocked ones only when asked.
    public func recent(limit: Int = 100, blockedOnly: Bool = false) throws -> [Entry] {
        try database.writer.read { db in
            let filter = "WHERE " + (blockedOnly ? DNSQueryOutcome.blockedCondition : DNSQueryOutcome.knownCondition)
            return try Row.fetchAll(
                db, sql: "SELECT at, client, device, name, type, outcome, responseCode FROM dnsQueryLog \(filter) ORDER BY id DESC LIMIT ?",
                arguments: [limit]
            ).compactMap(Self.entry)
        }
    }

    /// A page of the log, newest first: rows older than `before` (all when `nil`), only blocked
    /// ones when asked, only names containing `search` when given.
    public func page(before: Int64? = nil, limit: Int = 50, search: String? = nil, blockedOnly: Bool = false) throws -> [LoggedQuery] {
        var conditions = [DNSQueryOutcome.knownCondition]
        var arguments: [any DatabaseValueConvertible] = []
        if let before {
            conditions.append("id < ?")
            arguments.append(before)
        }
        if blockedOnly { conditions.append(DNSQueryOutcome.blockedCondition) }
        if let search, !search.isEmpty {
            conditions.append("instr(name, ?) > 0")
            arguments.append(search.lowercased())
        }
        arguments.append(limit)
        let filter = "WHERE " + conditions.joined(separator: " AND ")
        return try database.writer.read { db in
            try Self.logged(
                Row.fetchAll(
                    db,
                    sql:
                        "SELECT id, at, client, device, name, type, outcome, responseCode FROM dnsQueryLog \(filter) ORDER BY id DESC LIMIT ?",
                    arguments: StatementArguments(arguments)))
        }
    }

    /// Rows newer than `after`, oldest first (the live tail of the log). Rows with an outcome
    /// this version does not know are skipped in the query, so a run of them cannot fill a whole
    /// page and stall the tail.
    public func entries(after: Int64, limit: Int = 200) throws -> [LoggedQuery] {
        try database.writer.read { db in
            try Self.logged(
                Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, at, client, device, name, type, outcome, responseCode FROM dnsQueryLog
                        WHERE id > ? AND \(DNSQueryOutcome.knownCondition) ORDER BY id LIMIT ?
                        """,
                    arguments: [after, limit]))
        }
    }

    /// The newest row id (0 for an empty log).
    public func latestID() throws -> Int64 {
        try database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM dnsQueryLog") ?? 0 }
    }

    private static func logged(_ rows: [Row]) -> [LoggedQuery] {
        rows.compactMap { row in entry(row).map { LoggedQuery(id: row["id"], entry: $0) } }
    }

    /// A log row as an entry; `nil` for an outcome this version does not know (written by a
    /// newer Pepper), which no reader here could judge.
    private static func entry(_ row: Row) -> Entry? {
        guard let outcome = DNSQueryOutcome(rawValue: row["outcome"]) else { return nil }
        return Entry(
            at: (row["at"] as StoredDate).date, client: row["client"], device: row["device"], name: row["name"], type: row["type"],
            outcome: outcome, responseCode: row["responseCode"])
    }

    /// The hourly counters from `since` on, oldest first.
    public func hourlyCounts(since: Date) throws -> [HourCount] {
        try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT hour, outcome, count FROM dnsHourCounter WHERE hour >= ? ORDER BY hour, outcome",
                arguments: [Int64(since.timeIntervalSince1970 / 3_600) * 3_600]
            ).compactMap { row in
                DNSQueryOutcome(rawValue: row["outcome"]).map { outcome in
                    HourCount(hour: Date(timeIntervalSince1970: TimeInterval(row["hour"] as Int64)), outcome: outcome, count: row["count"])
                }
            }
        }
    }

    /// The names blocked most often in the log since `since`.
    public func topBlocked(limit: Int = 10, since: Date) throws -> [NameCount] {
        try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, COUNT(*) AS count FROM dnsQueryLog WHERE at >= ? AND \(DNSQueryOutcome.blockedCondition)
                    GROUP BY name ORDER BY count DESC, name LIMIT ?
                    """, arguments: [since.stored, limit]
            ).map { NameCount(name: $0["name"], count: $0["count"]) }
        }
    }

    /// The clients that asked most often in the log since `since` (the name is the device name the
    /// queries carried, else the client's address).
    public func topClients(limit: Int = 10, since: Date) throws -> [NameCount] {
        try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(device, client) AS client, COUNT(*) AS count FROM dnsQueryLog WHERE at >= ?
                    GROUP BY 1 ORDER BY count DESC, client LIMIT ?
                    """,
                arguments: [since.stored, limit]
            ).map { NameCount(name: $0["client"], count: $0["count"]) }
        }
    }

    /// Every counter, oldest day first.
    public func counts() throws -> [Count] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT day, outcome, count FROM dnsCounter ORDER BY day, outcome").compactMap { row in
                DNSQueryOutcome(rawValue: row["outcome"]).map { Count(day: row["day"], outcome: $0, count: row["count"]) }
            }
        }
    }

    /// The names blocked most often in the log.
    public func topBlocked(limit: Int = 10) throws -> [NameCount] {
        try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, COUNT(*) AS count FROM dnsQueryLog WHERE \(DNSQueryOutcome.blockedCondition)
                    GROUP BY name ORDER BY count DESC, name LIMIT ?
                    """, arguments: [limit]
            ).map { NameCount(name: $0["name"], count: $0["count"]) }
        }
    }

    /// The UTC day of a date, as counters store it (`yyyy-MM-dd`).
    public static func day(of date: Date) -> String {
        StoredDate.day(date)
    }
}
