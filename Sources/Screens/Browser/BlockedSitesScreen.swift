import Browsing
import Foundation
import PepperActions
import Storage

/// The browsers' per-site statistics, for the app's Web protection screen: the sites where the
/// content blocker stopped the most requests over the last days, each with the lists whose
/// rules did, from the counts both browsers store (``SiteBlockCountStore``, written as pages
/// are judged: docs/browser.md, "Blocked counts").
public struct BlockedSitesScreen: Sendable {
    /// One site's line.
    public struct Site: Sendable, Hashable {
        /// The site (a page's host without `www.`).
        public var site: String
        /// Requests blocked on it over the period.
        public var total: Int
        /// The same per list, largest first.
        public var lists: [SiteBlockCountStore.ListCount]

        /// `"test trackers 4, EasyPrivacy 2"`.
        public var listsText: String { lists.map { "\($0.list) \($0.count)" }.joined(separator: ", ") }
    }

    /// Everything the section shows.
    public struct State: Sendable, Hashable {
        /// How many days are counted (today and the days before).
        public var days: Int
        /// The sites, most blocked first (ties by name).
        public var sites: [Site]
        /// Requests blocked on every site over the period (not only the sites shown).
        public var total: Int

        /// The section's caption: `"Blocked in Pepper's browser, last 7 days"`.
        public var caption: String { "Blocked in Pepper's browser, last \(days) days" }
        /// What to show when nothing was blocked.
        public var emptyText: String { "Nothing was blocked in Pepper's browser in the last \(days) days." }
    }

    /// The state the counts are read from.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// The `limit` sites with the most blocked requests over the `days` days ending `now`
    /// (today included, UTC days as stored).
    public func load(days: Int = SiteBlockSummary.days, limit: Int = 10, now: Date = Date()) async throws(ScreenError) -> State {
        let database = state.database
        return try await blocking { () throws(ScreenError) -> State in
            let since = DecisionStore.day(of: now.addingTimeInterval(-Double(max(days, 1) - 1) * 86_400))
            do {
                let store = SiteBlockCountStore(database: database)
                let everything = try store.topSites(since: since, limit: Int.max)
                let sites = everything.prefix(max(limit, 0)).map { Site(site: $0.site, total: $0.total, lists: $0.lists) }
                return State(days: days, sites: Array(sites), total: everything.reduce(0) { $0 + $1.total })
            } catch {
                throw ScreenError("Cannot read the browser's counts: \(error).")
            }
        }
    }
}
