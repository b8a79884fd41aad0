import Foundation
import GRDB

/// How many requests the browsers' content blocker stopped on each site, per day and per list
/// (table `browserSiteBlockDaily`, migration `v-browser-2-site-block-counts`): the per-site
/// statistics the browsers show for the current site and the app's Web protection screen shows
/// for the top sites of the last days.
///
/// A site is a page's site as the shield names it (its host without `www.`); the list is the
/// one whose rule blocked the request, as the filter engine names it. Days are UTC
/// (`yyyy-MM-dd`, as ``DecisionStore`` keeps its daily counts); rows older than
/// ``retentionDays`` are removed as new ones are written.
public struct SiteBlockCountStore: Sendable {
    /// One blocked request to count.
    public struct Increment: Sendable, Hashable {
        /// The site of the page that made the request.
        public var site: String
        /// The list whose rule blocked it.
        public var list: String
        /// When.
        public var at: Date

        /// An increment with the given fields.
        public init(site: String, list: String, at: Date = Date()) {
            self.site = site
            self.list = list
            self.at = at
        }
    }

    /// Requests one list blocked.
    public struct ListCount: Sendable, Hashable, Codable {
        /// The list's name.
        public var list: String
        /// How many requests it blocked.
        public var count: Int

        /// A count with the given fields.
        public init(list: String, count: Int) {
            self.list = list
            self.count = count
        }
    }

    /// Requests blocked on one site, in all and per list (largest first, then by name).
    public struct SiteCount: Sendable, Hashable, Codable {
        /// The site.
        public var site: String
        /// How many requests were blocked on it.
        public var total: Int
        /// The same, per list.
        public var lists: [ListCount]

        /// A count with the given fields.
        public init(site: String, total: Int, lists: [ListCount]) {
            self.site = site
            self.total = total
            self.lists = lists
        }
    }

    /// How many days of counts are kept.
    public static let retentionDays = 400

    private let database: PepperDatabase

    /// The per-site counts of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Adds `increments` to the counts, in one transaction.
    public func record(_ increments: [Increment]) throws {
        guard !increments.isEmpty else { return }
        // One row update per (day, site, list), not per request.
        var grouped: [Key: Int] = [:]
        for increment in increments {
            grouped[Key(day: StoredDate.day(increment.at), site: increment.site, list: increment.list), default: 0] += 1
        }
        try database.writer.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO browserSiteBlockDaily (day, site, list, count) VALUES (?, ?, ?, ?)
                    ON CONFLICT (day, site, list) DO UPDATE SET count = count + excluded.count
                    """)
            for (key, count) in grouped.sorted(by: { ($0.key.day, $0.key.site, $0.key.list) < ($1.key.day, $1.key.site, $1.key.list) }) {
                try statement.execute(arguments: [key.day, key.site, key.list, count])
            }
            let oldest = StoredDate.day(Date().addingTimeInterval(-Double(Self.retentionDays) * 86_400))
            try db.execute(sql: "DELETE FROM browserSiteBlockDaily WHERE day < ?", arguments: [oldest])
        }
    }

    /// The sites with the most blocked requests from `firstDay` (`yyyy-MM-dd`, UTC) on, most
    /// first (ties by name), at most `limit` of them.
    public func topSites(since firstDay: String, limit: Int) throws -> [SiteCount] {
        let rows = try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT site, list, SUM(count) FROM browserSiteBlockDaily
                    WHERE day >= ?1 AND site IN (
                        SELECT site FROM browserSiteBlockDaily WHERE day >= ?1
                        GROUP BY site ORDER BY SUM(count) DESC, site LIMIT ?2)
                    GROUP BY site, list
                    """,
                arguments: [firstDay, max(limit, 0)]
            ).map { row in (site: row[0] as String, list: row[1] as String, count: row[2] as Int) }
        }
        return Self.summed(rows).sorted { ($1.total, $0.site) < ($0.total, $1.site) }
    }

    /// The blocked requests of `site` from `firstDay` on; a count of 0 when there were none.
    public func counts(for site: String, since firstDay: String) throws -> SiteCount {
        let rows = try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT site, list, SUM(count) FROM browserSiteBlockDaily WHERE site = ? AND day >= ? GROUP BY list",
                arguments: [site, firstDay]
            ).map { row in (site: row[0] as String, list: row[1] as String, count: row[2] as Int) }
        }
        return Self.summed(rows).first ?? SiteCount(site: site, total: 0, lists: [])
    }

    private static func summed(_ rows: [(site: String, list: String, count: Int)]) -> [SiteCount] {
        Dictionary(grouping: rows, by: \.site).map { site, rows in
            let lists = rows.map { ListCount(list: $0.list, count: $0.count) }.sorted { ($1.count, $0.list) < ($0.count, $1.list) }
            return SiteCount(site: site, total: lists.reduce(0) { $0 + $1.count }, lists: lists)
        }
    }

    private struct Key: Hashable {
        var day: String
        var site: String
        var list: String
    }

    /// Creates the table (migration `v-browser-2-site-block-counts`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "browserSiteBlockDaily") { table in
            table.column("day", .text).notNull()
            table.column("site", .text).notNull()
            table.column("list", .text).notNull()
            table.column("count", .integer).notNull()
            table.primaryKey(["day", "site", "list"])
        }
        try db.create(index: "browserSiteBlockDailyBySite", on: "browserSiteBlockDaily", columns: ["site", "day"])
    }
}
