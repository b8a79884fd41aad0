import Foundation
import Storage
import Testing

@testable import Screens

/// The app's Web protection section of the browsers' per-site counts.
@Suite("Blocked sites")
struct BlockedSitesScreenTests {
    @Test func theTopSitesOfTheLastDaysWithTheirLists() async throws {
        let temporary = TemporaryState()
        let store = SiteBlockCountStore(database: temporary.state.database)
        let now = Date()
        func at(daysAgo: Double) -> Date { now.addingTimeInterval(-daysAgo * 86_400) }
        var increments: [SiteBlockCountStore.Increment] = []
        func block(_ site: String, _ list: String, _ count: Int, daysAgo: Double) {
            increments += Array(repeating: .init(site: site, list: list, at: at(daysAgo: daysAgo)), count: count)
        }
        block("news.test", "EasyPrivacy", 5, daysAgo: 0)
        block("news.test", "EasyList", 2, daysAgo: 3)
        block("shop.test", "EasyList", 4, daysAgo: 1)
        block("blog.test", "EasyList", 4, daysAgo: 6)
        block("quiet.test", "EasyList", 1, daysAgo: 2)
        block("old.test", "EasyList", 50, daysAgo: 9)
        try store.record(increments)

        let state = try await BlockedSitesScreen(state: temporary.state).load(days: 7, limit: 3, now: now)
        #expect(state.sites.map(\.site) == ["news.test", "blog.test", "shop.test"], "most first, ties by name; older days left out")
        #expect(state.sites.first?.total == 7)
        #expect(state.sites.first?.lists == [.init(list: "EasyPrivacy", count: 5), .init(list: "EasyList", count: 2)])
        #expect(state.sites.first?.listsText == "EasyPrivacy 5, EasyList 2")
        #expect(state.total == 7 + 4 + 4 + 1, "every site of the period, not only those shown")
        #expect(state.caption == "Blocked in Pepper's browser, last 7 days")

        let lastTen = try await BlockedSitesScreen(state: temporary.state).load(days: 10, limit: 1, now: now)
        #expect(lastTen.sites.map(\.site) == ["old.test"])

        let fresh = TemporaryState()
        let empty = try await BlockedSitesScreen(state: fresh.state).load(now: now)
        #expect(empty.sites.isEmpty && empty.total == 0)
        #expect(empty.emptyText.contains("Nothing was blocked"))
    }
}
