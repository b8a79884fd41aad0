import Foundation
import PepperTestSupport
import Testing

@testable import FilterLists

/// Parses the real lists of `Tests/Fixtures/filters`.
@Suite("Real filter lists")
struct RealListsTests {
    static let filters = TestData.filters

    @Test
    func easyListParsesWithEveryLineAccountedFor() throws {
        let data = try Data(contentsOf: Self.filters.appendingPathComponent("easylist.txt"))
        let list = try FilterListParser().parse(data, name: "easylist")
        #expect(list.format == .abp)
        #expect(list.ruleCount + list.skippedCount + list.commentCount == list.lineCount)
        #expect(list.networkRules.count > 40_000)
        #expect(list.cosmeticRules.count > 20_000)
        // Most of EasyList is usable; skips are the uBO/ABP extensions WebKit cannot run.
        #expect(Double(list.skippedCount) / Double(list.lineCount) < 0.02)
        #expect(list.skipped[.proceduralCosmetic, default: 0] > 0)
        #expect(list.metadata.title?.contains("EasyList") == true)
    }

    @Test
    func badwareListReportsUBlockExtensions() throws {
        let data = try Data(contentsOf: Self.filters.appendingPathComponent("ublock-badware.txt"))
        let list = try FilterListParser().parse(data, name: "badware")
        #expect(list.skipped[.unsupportedOption("to"), default: 0] > 0)
        #expect(list.ruleCount > 3_000)
    }
}
