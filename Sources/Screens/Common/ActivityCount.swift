import Foundation
import Storage

/// A line of a counts table: what was counted today and over the last 7 days.
public struct ActivityCount: Sendable, Hashable {
    /// What is counted.
    public var label: String
    /// Today (UTC).
    public var today: Int
    /// The last 7 days, today included.
    public var week: Int
    /// A detail, such as the blocked share.
    public var detail: String?

    /// A count.
    public init(label: String, today: Int, week: Int, detail: String? = nil) {
        self.label = label
        self.today = today
        self.week = week
        self.detail = detail
    }

    /// The decisions of `domain` whose action is one of `actions`, today and over the 7 days
    /// ending `now`, from the daily counters (every face records there).
    static func decisions(
        _ label: String, _ domain: DecisionStore.Domain, _ actions: Set<DecisionStore.Action>, database: PepperDatabase, now: Date
    ) throws -> ActivityCount {
        let today = DNSQueryLogStore.day(of: now)
        let weekStart = DNSQueryLogStore.day(of: now.addingTimeInterval(-6 * 86_400))
        let rows = try DecisionStore(database: database).dailyCounts(domain, since: weekStart).filter { actions.contains($0.action) }
        return ActivityCount(
            label: label, today: rows.filter { $0.day == today }.reduce(0) { $0 + $1.count }, week: rows.reduce(0) { $0 + $1.count })
    }
}
