import Foundation
import Testing

@testable import FilterLists

/// Parses the real lists under `../shared/data/filters` when they are present.
@Suite("Real filter lists")
struct RealListsTests {
    static let filters = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/data/filters").standardizedFileURL
    static let available = FileManager.default.fileExists(atPath: filters.appendingPathComponent("easylist.txt").path)

    @Test(.enabled(if: available, "../shared/data/filters is absent"))
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

    @Test(.enabled(if: available, "../shared/data/filters is absent"))
    func badwareListReportsUBlockExtensions() throws {
        let data = try Data(contentsOf: Self.filters.appendingPathComponent("ublock-badware.txt"))
        let list = try FilterListParser().parse(data, name: "badware")
        #expect(list.skipped[.unsupportedOption("to"), default: 0] > 0)
        #expect(list.ruleCount > 3_000)
    }
}
