import Storage

/// What the browsers show about the current site: the requests blocked on this page, and on
/// this site over the last days, each per list (``BrowserSession/siteSummary``).
public struct SiteBlockSummary: Hashable, Sendable, Codable {
    /// How many days the site's count covers (today and the days before).
    public static let days = 7

    /// The site (the page's host without `www.`).
    public var site: String
    /// Requests blocked on this page, per list (largest first).
    public var page: [SiteBlockCountStore.ListCount]
    /// Requests blocked on this site in the last ``days`` days (this page included), per list.
    public var recent: SiteBlockCountStore.SiteCount

    /// A summary with the given fields.
    public init(site: String, page: [SiteBlockCountStore.ListCount], recent: SiteBlockCountStore.SiteCount) {
        self.site = site
        self.page = page
        self.recent = recent
    }

    /// How many requests were blocked on this page.
    public var pageTotal: Int { page.reduce(0) { $0 + $1.count } }

    /// One line: `a.test: 2 blocked on this page (test trackers 2) · 6 in the last 7 days (test trackers 6)`.
    public var line: String {
        func lists(_ counts: [SiteBlockCountStore.ListCount]) -> String {
            counts.isEmpty ? "" : " (" + counts.map { "\($0.list) \($0.count)" }.joined(separator: ", ") + ")"
        }
        return
            "\(site): \(pageTotal) blocked on this page\(lists(page)) · \(recent.total) in the last \(Self.days) days\(lists(recent.lists))"
    }
}
