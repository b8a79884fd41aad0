import Foundation
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Console

/// The Lists page's categories: a checkbox per category of a Tracker Radar or Disconnect list,
/// saved through the same action as `pepper lists categories` and `pepper lists enable
/// --categories`, so both faces read and write the same stored choice.
@Suite("Console: list categories", .serialized)
struct ConsoleCategoriesTests {
    static let services = """
        {"categories": {
          "Advertising": [{"AdCo": {"https://adco.example/": ["adco.example"]}}],
          "Analytics": [{"StatsCo": {"https://stats.example/": ["stats.example"]}}],
          "Content": [{"VideoCo": {"https://video.example/": ["video.example"]}}]
        }}
        """

    /// What `pepper lists categories services --json` says is chosen, and whether it is the default.
    static func cliChoice(_ home: URL) async throws -> (chosen: [String], isDefault: Bool) {
        let shown = try await PepperProcess.run(["lists", "categories", "services", "--json"], home: home)
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let categories = try #require(object["categories"] as? [[String: Any]])
        return (
            categories.filter { $0["chosen"] as? Bool == true }.compactMap { $0["name"] as? String }, object["isDefault"] as? Bool ?? false
        )
    }

    @Test func theListsPageAndTheCommandLineChooseTheSameCategories() async throws {
        let console = try await ConsoleHarness()
        let state = console.state
        let home = console.home.url
        let (cookie, csrf) = try await console.signIn()
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        _ = try await state.addUploadedList(Data(Self.services.utf8), fileName: "services.json")
        func page() async throws -> String { try await console.request(.get, "/lists", cookie: cookie).text }
        func post(_ path: String, _ form: [(String, String)]) async throws -> ConsoleResponse {
            try await console.request(.post, path, cookie: cookie, form: form + [("csrf", csrf)])
        }

        // The default: the tracking categories checked, Content not.
        var lists = try await page()
        #expect(lists.contains(#"name="categories[]" value="Advertising" checked>"#), "\(lists)")
        #expect(lists.contains(#"name="categories[]" value="Content">"#))
        #expect(lists.contains("Categories: 2 of 3 blocked (the default)"))
        #expect(!lists.contains("Use the default categories"))

        // Chosen on the page: stored, and the command line reads the same choice.
        let saved = try await post("/lists/categories", [("name", "services"), ("categories[]", "Content"), ("categories[]", "Analytics")])
        #expect(saved.location == "/lists")
        #expect(try state.list(named: "services").categories == ["Analytics", "Content"])
        var cli = try await Self.cliChoice(home)
        #expect(cli.chosen == ["Analytics", "Content"] && !cli.isDefault)
        lists = try await page()
        #expect(lists.contains("services blocks 2 of its 3 categories: Analytics, Content."), "the notice after the redirect")
        #expect(lists.contains(#"value="Content" checked>"#) && lists.contains(#"value="Advertising">"#))
        #expect(lists.contains("Use the default categories"))

        // Chosen on the command line: the page shows it.
        let set = try await PepperProcess.run(["lists", "categories", "services", "--set", "advertising"], home: home)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try state.list(named: "services").categories == ["Advertising"])
        lists = try await page()
        #expect(lists.contains(#"value="Advertising" checked>"#) && lists.contains(#"value="Analytics">"#))
        // `enable --categories` stores what the page stores for the same names.
        let enabled = try await PepperProcess.run(["lists", "enable", "services", "--categories", "Content,Analytics"], home: home)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try state.list(named: "services").categories == ["Analytics", "Content"])

        // Nothing chosen: the form comes back with the field's error, and nothing changes.
        let none = try await post("/lists/categories", [("name", "services")])
        #expect(none.status == .unprocessableContent)
        #expect(
            none.text.contains(#"<p class="field-error" id="categories-services-error">"#) && none.text.contains("at least one category"))
        #expect(none.text.contains(#"<details class="categories" open>"#), "the refused list's categories are shown open")
        #expect(try state.list(named: "services").categories == ["Analytics", "Content"])
        let unknown = try await post("/lists/categories", [("name", "services"), ("categories[]", "Weather")])
        #expect(unknown.status == .unprocessableContent && unknown.text.contains("&#39;Weather&#39; is not one of its categories"))
        let filterList = try await post("/lists/categories", [("name", "easylist"), ("categories[]", "Advertising")])
        #expect(filterList.status == .unprocessableContent && filterList.text.contains("has no categories"))

        // Back to the default, from the page; the command line agrees.
        #expect(try await post("/lists/categories/default", [("name", "services")]).location == "/lists")
        #expect(try state.list(named: "services").categories == nil)
        cli = try await Self.cliChoice(home)
        #expect(cli.chosen == ["Advertising", "Analytics"] && cli.isDefault)
    }
}
