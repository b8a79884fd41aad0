import ContentBlocker
import DNSFilter
import FilterEngine
import FilterLists
import Foundation
import ListSync
import PepperTestSupport
import Storage
import Testing

@testable import PepperActions

/// The categories of Tracker Radar and Disconnect lists, chosen through the one decision every
/// face calls (`ListCategories`, `chooseCategories`): what a list offers, the default, a name
/// refused, and a choice followed by the compiled content blocker, the filter engine's verdicts
/// and the DNS filter's decisions alike.
@Suite("Tracker categories")
struct ListCategoryTests {
    /// What the state blocks for `host`, seen three ways: a WebKit rule in the published output
    /// whose `url-filter` names the host, the engine's verdict on a third-party script from it,
    /// and the DNS filter's decision on its name.
    struct Blocking: Equatable, CustomStringConvertible {
        var compiled: Bool
        var engine: Bool
        var dns: Bool

        static let yes = Blocking(compiled: true, engine: true, dns: true)
        static let no = Blocking(compiled: false, engine: false, dns: false)
        var description: String { "compiled \(compiled), engine \(engine), dns \(dns)" }
    }

    static func blocking(_ host: String, in state: PepperState) throws -> Blocking {
        let manifest = try #require(state.manifest())
        var filters: [String] = []
        for file in manifest.files {
            let data = try Data(contentsOf: state.home.outputURL.appendingPathComponent(file.path))
            let rules = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
            for rule in rules where (rule["action"] as? [String: Any])?["type"] as? String == "block" {
                if let filter = (rule["trigger"] as? [String: Any])?["url-filter"] as? String { filters.append(filter) }
            }
        }
        let escaped = host.replacingOccurrences(of: ".", with: "\\.")
        let engine = try state.engine()
        let verdict = try engine.match(FilterRequest(url: "https://\(host)/t.js", sourceURL: "https://news.example/", type: .script))
        let dns = DNSQueryFilter(engine: try DNSEngines(state: state).engine()).decision(for: try DNSName(host))
        return Blocking(
            compiled: filters.contains { $0.contains(escaped) }, engine: verdict.decision == .blocked, dns: dns == .block)
    }

    /// A home whose only list is `source` (the built-in EasyList and EasyPrivacy are turned off,
    /// so that what is blocked comes from that list alone).
    static func state(with request: ListRequest, temporary: TemporaryState) async throws -> PepperState {
        let state = temporary.state
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        _ = try await state.addList(request)
        return state
    }

    @Test func choosingTrackerRadarCategoriesChangesTheContentBlockerTheEngineAndTheDNSFilter() async throws {
        let temporary = TemporaryState()
        let state = try await Self.state(
            with: ListRequest(source: TestData.trackerRadar.path, name: "tds", format: "tds"), temporary: temporary)
        // adthrive.com is Advertising, amplitude.com Analytics, 6sc.co has no category.
        let categories = try #require(try state.listCategories("tds"))
        #expect(categories.isDefault && categories.format == .tds)
        let offered = try #require(categories.offered)
        #expect(offered.count == 23 && offered.allSatisfy(\.chosen), "the default: every category")
        #expect(offered.first { $0.name == "Advertising" }?.domains == 247)
        for host in ["adthrive.com", "amplitude.com", "6sc.co"] { #expect(try Self.blocking(host, in: state) == .yes, "\(host)") }

        let change = try await state.chooseCategories(["advertising", " Analytics "], for: "tds")
        #expect(change.outcome?.changed == true)
        #expect(try state.list(named: "tds").categories == ["Advertising", "Analytics"], "stored as the list spells them")
        #expect(try Self.blocking("adthrive.com", in: state) == .yes)
        #expect(try Self.blocking("amplitude.com", in: state) == .yes)
        #expect(try Self.blocking("6sc.co", in: state) == .no, "no category is not chosen: neither compiled nor answered by DNS")

        _ = try await state.chooseCategories(["Advertising"], for: "tds")
        #expect(try Self.blocking("amplitude.com", in: state) == .no)
        #expect(try Self.blocking("adthrive.com", in: state) == .yes)
        let chosen = try #require(try state.listCategories("tds"))
        #expect(chosen.chosen == ["Advertising"] && !chosen.isDefault)

        // A name the list does not offer, or none: refused, and nothing changes.
        let before = try #require(state.manifest()).identifier
        await #expect {
            try await state.chooseCategories(["Advertising", "Weather"], for: "tds")
        } throws: { error in
            guard case .invalidCategories("tds", .unknown("Weather", let names))? = error as? ActionError else { return false }
            return names.count == 23 && names.contains("Session Replay")
        }
        await #expect(throws: ActionError.invalidCategories(list: "tds", problem: .noneChosen)) {
            try await state.chooseCategories([" ", ""], for: "tds")
        }
        #expect(try state.list(named: "tds").categories == ["Advertising"])
        #expect(try #require(state.manifest()).identifier == before)

        // Every category chosen is the default, stored as no choice; so is going back to it.
        _ = try await state.chooseCategories(offered.map(\.name), for: "tds")
        #expect(try state.list(named: "tds").categories == nil)
        _ = try await state.chooseCategories(["Advertising"], for: "tds")
        _ = try await state.chooseCategories(nil, for: "tds")
        #expect(try state.list(named: "tds").categories == nil)
        #expect(try Self.blocking("6sc.co", in: state) == .yes)
    }

    /// A Disconnect `services.json` with a tracker in each of three categories, Content among them.
    static let services = """
        {"categories": {
          "Advertising": [{"AdCo": {"https://adco.example/": ["adco.example", "adcdn.example"]}}],
          "Analytics": [{"StatsCo": {"https://stats.example/": ["stats.example"]}}],
          "Content": [{"VideoCo": {"https://video.example/": ["video.example"], "dnt": "w3c"}}]
        }}
        """

    @Test func choosingDisconnectCategoriesChangesTheContentBlockerTheEngineAndTheDNSFilter() async throws {
        let temporary = TemporaryState()
        let file = temporary.home.url.appendingPathComponent("services.json")
        try FileManager.default.createDirectory(at: temporary.home.url, withIntermediateDirectories: true)
        try Self.services.write(to: file, atomically: true, encoding: .utf8)
        // Format auto: the copy says it is Disconnect's.
        let state = try await Self.state(with: ListRequest(source: file.path, name: "services"), temporary: temporary)
        let categories = try #require(try state.listCategories("services"))
        #expect(categories.format == .disconnect && categories.isDefault)
        #expect(
            categories.offered == [
                .init(name: "Advertising", domains: 2, chosen: true), .init(name: "Analytics", domains: 1, chosen: true),
                .init(name: "Content", domains: 1, chosen: false),
            ], "the default: the tracking categories, not Content")
        #expect(try Self.blocking("adco.example", in: state) == .yes)
        #expect(try Self.blocking("stats.example", in: state) == .yes)
        #expect(try Self.blocking("video.example", in: state) == .no)

        _ = try await state.chooseCategories(["content", "ANALYTICS"], for: "services")
        #expect(try state.list(named: "services").categories == ["Analytics", "Content"])
        #expect(try Self.blocking("adco.example", in: state) == .no)
        #expect(try Self.blocking("adcdn.example", in: state) == .no)
        #expect(try Self.blocking("stats.example", in: state) == .yes)
        #expect(try Self.blocking("video.example", in: state) == .yes)

        // The choice of the tracking categories is the default.
        _ = try await state.chooseCategories(["Advertising", "Analytics"], for: "services")
        #expect(try state.list(named: "services").categories == nil)
        #expect(try Self.blocking("video.example", in: state) == .no)
    }

    @Test func categoriesGivenWhenAddingOrEnablingAreCheckedAgainstTheListsCopy() async throws {
        let server = try ListServer(routes: [
            "/services.json": .init(body: Self.services, contentType: "application/json"), "/plain.txt": .init(body: "||plain.example^\n"),
        ])
        let temporary = TemporaryState()
        let state = temporary.state
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }

        // Adding with a name the copy does not offer: refused once fetched, nothing kept.
        await #expect {
            try await state.addList(ListRequest(source: server.url("/services.json"), name: "d", categories: ["Adverts"]))
        } throws: { error in
            guard case .invalidCategories("d", .unknown("Adverts", _))? = error as? ActionError else { return false }
            return true
        }
        #expect(try state.lists().allSatisfy(\.builtIn))
        #expect(!FileManager.default.fileExists(atPath: ListCopies.url("d", home: temporary.home).path))
        // A list of lines has no categories: refused before anything is fetched.
        await #expect(throws: ActionError.invalidCategories(list: "p", problem: .noCategories(format: "abp"))) {
            try await state.addList(ListRequest(source: server.url("/plain.txt"), name: "p", format: "abp", categories: ["Advertising"]))
        }
        let added = try await state.addList(ListRequest(source: server.url("/services.json"), name: "d", categories: ["content"]))
        #expect(added.outcome?.manifest.sources.map(\.name) == ["d"])
        #expect(try state.list(named: "d").categories == ["Content"])
        #expect(try Self.blocking("video.example", in: state) == .yes)

        // Enabling a list never downloaded, with categories: fetched first, then checked.
        let source = ListSource(name: "later", location: server.url("/services.json"), format: "disconnect", enabled: false)
        try ListSourceStore(database: state.database).insert(source)
        #expect(try state.listCategories("later")?.offered == nil, "no copy: nothing to choose from yet")
        await #expect(throws: ActionError.invalidCategories(list: "later", problem: .notDownloaded(reason: nil))) {
            try await state.chooseCategories(["Advertising"], for: "later")
        }
        await #expect(throws: ActionError.self) { try await state.enableList("later", categories: ["Nope"]) }
        #expect(try state.list(named: "later").enabled == false, "a refused choice leaves the list as it was")
        _ = try await state.enableList("later", categories: ["Analytics"])
        let later = try state.list(named: "later")
        #expect(later.enabled && later.categories == ["Analytics"])
        // An unreachable list: the choice cannot be checked, so nothing is enabled.
        try ListSourceStore(database: state.database).insert(
            ListSource(name: "gone", location: server.url("/missing.json"), format: "tds", enabled: false))
        await #expect {
            try await state.enableList("gone", categories: ["Advertising"])
        } throws: { error in
            guard case .invalidCategories("gone", .notDownloaded(reason: _?))? = error as? ActionError else { return false }
            return true
        }
        #expect(try state.list(named: "gone").enabled == false)
        await #expect(throws: ActionError.invalidCategories(list: "easylist", problem: .noCategories(format: "abp"))) {
            try await state.enableList("easylist", categories: ["Advertising"])
        }
    }

    @Test func theDecisionResolvesNamesAndTogglesOneCategory() throws {
        let offered = [TrackerCategory(name: "Advertising", domains: 2), TrackerCategory(name: "Content", domains: 1)]
        #expect(try ListCategories.resolve(["content", "CONTENT", "advertising"], list: "d", format: .tds, offered: offered) == nil)
        #expect(try ListCategories.resolve(["content"], list: "d", format: .tds, offered: offered) == ["Content"])
        #expect(
            try ListCategories.resolve(["advertising"], list: "d", format: .disconnect, offered: offered) == nil, "Disconnect's default")
        #expect(throws: ActionError.self) {
            try ListCategories.resolve([String(repeating: "x", count: 101)], list: "d", format: .tds, offered: offered)
        }
        let shown = ListCategories.make(list: "d", format: .disconnect, offered: offered, choice: nil)
        #expect(shown.chosen == ["Advertising"])
        #expect(shown.choice(toggling: "Content") == ["Advertising", "Content"])
        #expect(shown.choice(toggling: "Advertising") == [])
        #expect(ListCategories.make(list: "d", format: .tds, offered: nil, choice: ["Content"]).choice(toggling: "Content") == [])
        // Which lists have categories: by their format, or for `auto` by their copy.
        let auto = ListSource(name: "x", location: "/x", format: "auto")
        #expect(ListCategories.format(of: auto, copyStart: Data(Self.services.utf8)) == .disconnect)
        #expect(ListCategories.format(of: auto, copyStart: Data("! \"categories\"\n||a.example^\n".utf8)) == nil)
        #expect(ListCategories.format(of: auto, copyStart: nil) == nil)
        #expect(ListCategories.format(of: ListSource(name: "t", location: "/t", format: "tds"), copyStart: nil) == .tds)
        #expect(
            ListCategories.format(of: ListSource(name: "p", location: "picket:https://p.example", format: "picket"), copyStart: nil) == nil)
    }
}
