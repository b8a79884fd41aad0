import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import Screens
import Testing

@testable import Console

/// A name a template uses and its view lacks would render as nothing with status 200: debug
/// builds (the tests) check every render, so such a page fails instead.
@Suite("Console templates: every name has a value")
struct TemplateKeyCheckTests {
    struct Row {
        var label: String
        var note: String?
    }
    struct View {
        var title: String
        var rows: [Row]
        var tags: [String]
        var flag: Bool
        var missingValue: String?
        var nested: Row
    }

    static let view = View(
        title: "T", rows: [Row(label: "a", note: nil), Row(label: "b", note: "n")], tags: ["x", "y"], flag: true, missingValue: nil,
        nested: Row(label: "inner", note: nil))

    private func check(_ text: String) throws -> (html: String?, plain: String?, missing: [String]) {
        let template = try MustacheTemplate(string: text)
        let check = TemplateKeyCheck()
        return (template.render(check.root(Self.view)), template.render(Self.view), check.missing)
    }

    @Test func everyNameTheViewHasRendersAsWithoutTheCheck() throws {
        let text = """
            {{title}}|{{#rows}}{{label}}:{{note}}{{^note}}-{{/note}}:{{title}};{{/rows}}|{{#tags}}{{.}},{{/tags}}|\
            {{#flag}}on{{/flag}}{{^flag}}off{{/flag}}|{{missingValue}}{{^missingValue}}none{{/missingValue}}|\
            {{#nested}}{{label}}{{/nested}}|{{nested.label}}|{{{title}}}
            """
        let (checked, plain, missing) = try check(text)
        #expect(missing == [])
        #expect(checked == plain)
        #expect(checked == "T|a:-:T;b:n:T;|x,y,|on|none|inner|inner|T")
    }

    @Test func aNameNoViewHasIsFound() throws {
        #expect(try check("{{titel}}").missing == ["titel"])
        #expect(try check("{{#rows}}{{lable}}{{/rows}}").missing == ["lable"])
        #expect(try check("{{#missing}}x{{/missing}}{{^gone}}y{{/gone}}").missing == ["gone", "missing"])
        #expect(try check("{{#nested}}{{nope}}{{/nested}}").missing == ["nope"])
    }

    /// The root every page template is rendered with.
    private struct PageContext {
        var csrf: String
        var page: Any
    }

    private struct WrongRulesView {
        var txt: String
        var problems: [String]
        var hasProblems: Bool
    }

    @Test func aPageWhoseViewLacksANameFailsWithTheName() throws {
        let chrome = PageRenderer.Chrome(path: "/rules", csrf: "t", notices: [], signedIn: true)
        let checking = try PageRenderer(home: "/h", version: "0", checksKeys: true)
        let response = checking.page(
            .rules, title: "My rules", view: WrongRulesView(txt: "", problems: [], hasProblems: false), chrome: chrome)
        #expect(response.status == .internalServerError)
        let context = PageContext(csrf: "t", page: WrongRulesView(txt: "", problems: [], hasProblems: false))
        #expect(throws: PageRenderer.MissingTemplateKeys.self) { try checking.render(context, with: .rules) }
        do {
            _ = try checking.render(context, with: .rules)
        } catch {
            #expect(error.template == .rules)
            #expect(error.names == ["text"])
            #expect("\(error)".contains("{{text}}"))
        }

        // Without the check (release builds) the same page renders, with a hole.
        let trusting = try PageRenderer(home: "/h", version: "0", checksKeys: false)
        #expect(
            trusting.page(.rules, title: "My rules", view: WrongRulesView(txt: "", problems: [], hasProblems: false), chrome: chrome).status
                == .ok)
    }

    @Test func testsRunWithTheCheck() {
        #expect(PageRenderer.isDebugBuild)
    }
}
