import CallFilter
import Foundation
import GRDB

/// What call and message filtering decided, kept as counters per action and rule (for good) and
/// as a history of the most recent decisions (bounded), so stats are real counts, not estimates.
public struct DecisionStore: Sendable {
    /// Calls or messages.
    public enum Domain: String, Sendable, Codable {
        /// Call decisions (`pepper calls check`).
        case call
        /// Message decisions (`pepper sms check`, `pepper sms classify`, the message-filter extension).
        case message
        /// Requests the browser's content blocker blocked (`pepper browse`).
        case web
    }

    /// What was decided, stored as its raw value. The raw values are the texts stored since
    /// decisions were first counted, so old databases read as they are: never change one.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// A call that does not ring, or a request the browser blocked.
        case block
        /// A call that rings with a label.
        case identify
        /// A call that rings, or a message shown normally.
        case allow
        /// A message filed as junk.
        case junk
        /// A message filed under promotions.
        case promotion
        /// A message filed under transactions.
        case transaction

        /// The call decision's action.
        public init(_ action: CallScreening.Action) {
            switch action {
            case .block: self = .block
            case .identify: self = .identify
            case .allow: self = .allow
            }
        }

        /// The message decision's action.
        public init(_ action: MessageAction) {
            switch action {
            case .allow: self = .allow
            case .junk: self = .junk
            case .promotion: self = .promotion
            case .transaction: self = .transaction
            }
        }

        /// The message actions that take a message out of the inbox (the "filtered" count).
        public static let filteredMessages: Set<Action> = [.junk, .promotion, .transaction]

        /// The stored text, as stats show it.
        public var description: String { rawValue }
    }

    /// One decision.
    public struct Decision: Sendable, Hashable, Codable {
        /// Calls or messages.
        public var domain: Domain
        /// The caller or sender.
        public var subject: String
        /// What was decided.
        public var action: Action
        /// The kind of rule that decided (`word`, `sender`, `block-list`, …).
        public var ruleKind: String
        /// The rule itself (the word, the number), if any.
        public var rule: String?
        /// When.
        public var at: Date

        /// A decision made now.
        public init(domain: Domain, subject: String, action: Action, ruleKind: String, rule: String?, at: Date = Date()) {
            self.domain = domain
            self.subject = subject
            self.action = action
            self.ruleKind = ruleKind
            self.rule = rule
            self.at = at
        }
    }

    /// A counter.
    public struct Count: Sendable, Hashable, Codable {
        /// The action.
        public var action: Action
        /// The kind of rule.
        public var ruleKind: String
        /// The rule ("" when none).
        public var rule: String
        /// How many decisions.
        public var count: Int
        /// The latest one.
        public var lastAt: Date
    }

    /// Decisions of one action on one day (UTC, `yyyy-MM-dd`).
    public struct DailyCount: Sendable, Hashable, Codable {
        /// The day.
        public var day: String
        /// The action.
        public var action: Action
        /// How many decisions.
        public var count: Int
    }

    /// How many recent decisions are kept per domain.
    public static let historyLimit = 1_000
    /// How many days of daily counts are kept.
    public static let dailyRetentionDays = 400

    private let database: PepperDatabase

    /// The decisions of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Records decisions in one transaction.
    public func record(_ decisions: [Decision]) throws {
        guard !decisions.isEmpty else { return }
        try database.writer.write { db in
            let count = try db.cachedStatement(
                sql: """
                    INSERT INTO decisionCount (domain, action, ruleKind, rule, count, lastAt) VALUES (?, ?, ?, ?, 1, ?)
                    ON CONFLICT (domain, action, ruleKind, rule) DO UPDATE SET count = count + 1, lastAt = excluded.lastAt
                    """)
            let log = try db.cachedStatement(
                sql: "INSERT INTO decisionLog (domain, at, subject, action, ruleKind, rule) VALUES (?, ?, ?, ?, ?, ?)")
            let daily = try db.cachedStatement(
                sql: """
                    INSERT INTO decisionDaily (day, domain, action, count) VALUES (?, ?, ?, 1)
                    ON CONFLICT (day, domain, action) DO UPDATE SET count = count + 1
                    """)
            // Only the newest `historyLimit` can survive, so older ones in a big batch are not logged.
            for (index, decision) in decisions.enumerated() {
                try count.execute(arguments: [
                    decision.domain.rawValue, decision.action.rawValue, decision.ruleKind, decision.rule ?? "", decision.at.stored,
                ])
                try daily.execute(arguments: [Self.day(of: decision.at), decision.domain.rawValue, decision.action.rawValue])
                if index >= decisions.count - Self.historyLimit {
                    try log.execute(
                        arguments: [
                            decision.domain.rawValue, decision.at.stored, decision.subject, decision.action.rawValue, decision.ruleKind,
                            decision.rule,
                        ])
                }
            }
            for domain in Set(decisions.map(\.domain)) {
                try db.execute(
                    sql: """
                        DELETE FROM decisionLog WHERE domain = ?1 AND id <= (
                            SELECT id FROM decisionLog WHERE domain = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                        """, arguments: [domain.rawValue, Self.historyLimit])
            }
            let oldest = Self.day(of: Date().addingTimeInterval(-Double(Self.dailyRetentionDays) * 86_400))
            try db.execute(sql: "DELETE FROM decisionDaily WHERE day < ?", arguments: [oldest])
        }
    }

    /// The daily counts of `domain` from `firstDay` (`yyyy-MM-dd`, UTC) on, oldest first.
    public func dailyCounts(_ domain: Domain, since firstDay: String) throws -> [DailyCount] {
        try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT day, action, count FROM decisionDaily WHERE domain = ? AND day >= ? ORDER BY day, action",
                arguments: [domain.rawValue, firstDay]
            ).compactMap { row in Action(rawValue: row[1]).map { DailyCount(day: row[0], action: $0, count: row[2]) } }
        }
    }

    /// The UTC day of a date, as daily counts store it.
    public static func day(of date: Date) -> String { DNSQueryLogStore.day(of: date) }

    /// Creates the daily counts (migration `v-console-1`).
    static func migrateDaily(_ db: Database) throws {
        try db.create(table: "decisionDaily") { table in
            table.column("day", .text).notNull()
            table.column("domain", .text).notNull()
            table.column("action", .text).notNull()
            table.column("count", .integer).notNull()
            table.primaryKey(["day", "domain", "action"])
        }
    }

    /// The counters of `domain`, largest first. (Here and below, a row whose action this version
    /// does not know, written by a newer Pepper, is left out.)
    public func counts(_ domain: Domain) throws -> [Count] {
        try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT action, ruleKind, rule, count, lastAt FROM decisionCount WHERE domain = ? ORDER BY count DESC, action, rule",
                arguments: [domain.rawValue]
            ).compactMap { row in
                Action(rawValue: row[0]).map {
                    Count(action: $0, ruleKind: row[1], rule: row[2], count: row[3], lastAt: (row[4] as StoredDate).date)
                }
            }
        }
    }

    /// The most recent decisions of `domain`, newest first.
    public func recent(_ domain: Domain, limit: Int = 20) throws -> [Decision] {
        try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT subject, action, ruleKind, rule, at FROM decisionLog WHERE domain = ? ORDER BY id DESC LIMIT ?",
                arguments: [domain.rawValue, limit]
            ).compactMap { row in
                Action(rawValue: row[1]).map {
                    Decision(domain: domain, subject: row[0], action: $0, ruleKind: row[2], rule: row[3], at: (row[4] as StoredDate).date)
                }
            }
        }
    }
}
