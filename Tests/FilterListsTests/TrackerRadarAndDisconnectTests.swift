import Foundation
import PepperTestSupport
import Testing

@testable import FilterLists

/// Reads the fixtures written for Pepper (in the published formats).
func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)"))
}

@Suite("Tracker Radar and Disconnect")
struct TrackerRadarAndDisconnectTests {
    func rules(_ list: ParsedFilterList, containing text: String) -> [NetworkRule] {
        list.networkRules.filter { $0.text.contains(text) }
    }

    @Test func formatsAreDetectedFromJSONKeys() throws {
        #expect(try FilterListParser().parse(fixture("tds-fixture.json"), name: "t").format == .tds)
        #expect(try FilterListParser().parse(fixture("disconnect-fixture.json"), name: "d").format == .disconnect)
    }

    @Test func defaultBlockTrackerIsThirdPartyExceptOnItsEntitySites() throws {
        let list = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        let block = try #require(list.networkRules.first { $0.anchor == .host && $0.pattern == "tracker.test^" })
        #expect(block.party == .third)
        #expect(block.domains.excluded == ["tracker.test", "trackerco.test"])
        #expect(!block.isException)
    }

    @Test func rulesKeepTheirFirstMatchOrder() throws {
        let list = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        // tracker.test: the ignore rule comes first, so it must beat the later block rule.
        let allowed = try #require(rules(list, containing: "allowed").first)
        #expect(allowed.isException)
        #expect(allowed.isImportant, "an ignore rule listed before a block rule wins over it")
        let pixel = try #require(rules(list, containing: "pixel").first)
        #expect(!pixel.isException && !pixel.isImportant)
        #expect(pixel.domains.excluded.contains("partner.test"))
        // The rule's exception beats the tracker's default block too: the rule matched first
        // and lets the request through on partner.test (DuckDuckGo's first-match semantics).
        let pixelException = try #require(
            rules(list, containing: "pixel").first { $0.isException && $0.pattern.contains("tracker\\.test") })
        #expect(pixelException.domains.included == ["partner.test"] && pixelException.party == .third && !pixelException.isImportant)
        #expect(pixelException.text.hasPrefix("@@/") && pixelException.text.contains("$third-party,domain=partner.test"))
        // order.test: the block rule comes first, so it must beat the later ignore rule.
        let first = try #require(rules(list, containing: "blocked-first").first)
        #expect(first.isImportant && !first.isException)
        let ignore = try #require(list.networkRules.first { $0.isException && $0.pattern.hasSuffix("order\\.test\\/") })
        #expect(!ignore.isImportant)
    }

    @Test func ignoreTrackersBlockOnlyTheirRulesWithOptions() throws {
        let list = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        #expect(!list.networkRules.contains { $0.anchor == .host && $0.pattern.hasPrefix("widgets.test") })
        let script = try #require(rules(list, containing: "track\\.js").first)
        #expect(script.resourceTypes == .script)
        let ads = try #require(rules(list, containing: "ads").first)
        #expect(ads.domains.included == ["news.test"])
        // Owned by Tracker Co: first party on Tracker Co's sites too.
        #expect(ads.domains.excluded.contains("trackerco.test"))
    }

    @Test func cnameCloakedHostsGetTheTrackerRules() throws {
        let list = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        let cloaked = try #require(list.networkRules.first { $0.anchor == .host && $0.pattern == "metrics.site.test^" })
        #expect(cloaked.party == .any, "a cloaked host looks first-party, so the rule is not third-party only")
        #expect(cloaked.domains.excluded == ["tracker.test", "trackerco.test"])
        #expect(list.networkRules.contains { $0.isRegex && $0.pattern.contains("metrics\\.site\\.test") && $0.pattern.contains("pixel") })
    }

    @Test func conversionIsDeterministic() throws {
        let first = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        let second = try FilterListParser().parse(fixture("tds-fixture.json"), name: "tds", format: .tds)
        #expect(first.networkRules == second.networkRules)
    }

    @Test func invalidTDSIsAClearError() {
        #expect(throws: FilterListError.self) {
            try FilterListParser().parse(#"{"trackers": 5, "entities": {}}"#, name: "bad", format: .tds)
        }
    }

    @Test func disconnectDefaultCategoriesSkipContentAndExemptEntitySites() throws {
        let list = try FilterListParser().parse(fixture("disconnect-fixture.json"), name: "d", format: .disconnect)
        let blocked = Set(list.networkRules.map(\.pattern))
        #expect(blocked == ["adnetwork.test^", "adcdn.test^", "socialads.test^", "counter.test^", "social.test^", "socialcdn.test^"])
        let ads = try #require(list.networkRules.first { $0.pattern == "socialads.test^" })
        #expect(ads.party == .third)
        // Social Giant's sites are all its domains across categories, plus its homepage.
        #expect(ads.domains.excluded == ["social.test", "socialads.test", "socialcdn.test"])
    }

    /// The current services.json has `FingerprintingGeneral` and `FingerprintingInvasive` where
    /// older ones had `Fingerprinting`: all are tracking, blocked by default; `Email` is not.
    @Test func disconnectsFingerprintingCategoriesAreBlockedByDefault() throws {
        let services = """
            {"categories": {
              "FingerprintingGeneral": [{"A": {"https://a.test/": ["fp-general.test"]}}],
              "FingerprintingInvasive": [{"B": {"https://b.test/": ["fp-invasive.test"]}}],
              "Fingerprinting": [{"C": {"https://c.test/": ["fp-old.test"]}}],
              "Email": [{"D": {"https://d.test/": ["mail-pixel.test"]}}]
            }}
            """
        let list = try FilterListParser().parse(services, name: "d", format: .disconnect)
        #expect(Set(list.networkRules.map(\.pattern)) == ["fp-general.test^", "fp-invasive.test^", "fp-old.test^"])
    }

    @Test func disconnectCategoriesCanBeChosen() throws {
        let parser = FilterListParser(categories: ["content", "Analytics"])
        let list = try parser.parse(fixture("disconnect-fixture.json"), name: "d", format: .disconnect)
        #expect(Set(list.networkRules.map(\.pattern)) == ["video.test^", "counter.test^"])
        #expect(
            DisconnectConverter.categories(in: try fixture("disconnect-fixture.json")) == ["Advertising", "Analytics", "Content", "Social"])
    }

    @Test func realTrackerRadarDataset() throws {
        let list = try FilterListParser().parse(Data(contentsOf: Self.realTDS), name: "tds")
        #expect(list.format == .tds)
        #expect(list.networkRules.count > 4_000)
        let analytics = try #require(list.networkRules.first { $0.anchor == .host && $0.pattern == "google-analytics.com^" })
        #expect(analytics.party == .third)
        #expect(analytics.domains.excluded.contains("google.com"), "owned by Google LLC: first party on google.com")
    }

    /// Tracker Radar's categories, read from the real dataset: each tracker's `categories`, and
    /// "No category" for the most of them that have none.
    @Test func trackerRadarOffersEachTrackersCategoriesAndNoCategory() throws {
        let data = try Data(contentsOf: Self.realTDS)
        let offered = try #require(try FilterListParser.categories(in: data, name: "tds"))
        let counts = Dictionary(uniqueKeysWithValues: offered.map { ($0.name, $0.domains) })
        // The figures of the 2,951 trackers, counted from the JSON by hand (python3's json).
        #expect(counts["Advertising"] == 247 && counts["Analytics"] == 182 && counts["Session Replay"] == 27)
        #expect(counts[TrackerRadarConverter.noCategory] == 2_549)
        #expect(offered.count == 23, "22 named categories and No category")
        #expect(offered.last?.name == TrackerRadarConverter.noCategory)
        #expect(Array(offered.dropLast().map(\.name)) == offered.dropLast().map(\.name).sorted())
        // Lists of lines have none; Disconnect's are its sections, with their domains counted.
        #expect(try FilterListParser.categories(in: Data("||ads.example^\n".utf8), name: "abp") == nil)
        #expect(
            try FilterListParser.categories(in: fixture("disconnect-fixture.json"), name: "d") == [
                TrackerCategory(name: "Advertising", domains: 3), TrackerCategory(name: "Analytics", domains: 1),
                TrackerCategory(name: "Content", domains: 1), TrackerCategory(name: "Social", domains: 2),
            ])
        #expect(throws: FilterListError.self) {
            try FilterListParser.categories(in: Data(#"{"trackers": 5}"#.utf8), name: "bad", format: .tds)
        }
    }

    /// Choosing categories of the real dataset keeps the trackers of those categories (a tracker
    /// in several is kept when one is chosen), with the hosts that CNAME-cloak them, and leaves
    /// out every other tracker whole.
    @Test func choosingTrackerRadarCategoriesKeepsOnlyTheirTrackers() throws {
        let data = try Data(contentsOf: Self.realTDS)
        func blocked(_ categories: [String]?) throws -> Set<String> {
            let list = try FilterListParser(categories: categories).parse(data, name: "tds", format: .tds)
            return Set(list.networkRules.filter { $0.anchor == .host && !$0.isException }.map(\.pattern))
        }
        let all = try blocked(nil)
        // adthrive.com: Advertising; amplitude.com: Analytics; 6sc.co: none; 33across.com: both and
        // more; dtm.academy.com cloaks dotomi.com (Advertising), customersurveys.intuit.com
        // cloaks qualtrics.com (Analytics and others, not Advertising).
        let sample = [
            "adthrive.com^", "amplitude.com^", "6sc.co^", "33across.com^", "dtm.academy.com^", "customersurveys.intuit.com^",
        ]
        #expect(sample.allSatisfy(all.contains), "every tracker by default")
        let advertising = try blocked(["advertising"])
        #expect(advertising.intersection(sample) == ["adthrive.com^", "33across.com^", "dtm.academy.com^"])
        let analyticsAndNone = try blocked(["Analytics", TrackerRadarConverter.noCategory])
        #expect(analyticsAndNone.intersection(sample) == ["amplitude.com^", "6sc.co^", "33across.com^", "customersurveys.intuit.com^"])
        #expect(advertising.count < all.count && analyticsAndNone.count < all.count)
        // Every category chosen is every tracker.
        let everything = try #require(try FilterListParser.categories(in: data, name: "tds")).map(\.name)
        #expect(try blocked(everything) == all)
    }

    static let realTDS = TestData.trackerRadar
}
