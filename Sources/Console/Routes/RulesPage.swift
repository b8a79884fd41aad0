import Foundation
import Hummingbird
import PepperActions
import Screens

/// My rules: the editor, each bad line shown with its reason.
struct RulesPage: ConsoleArea {
    static let path: RouterPath = "/rules"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose screens the area shows.
    let state: PepperState

    private struct RulesView {
        struct Problem {
            var text: String
            var problem: String
        }
        var text: String
        var problems: [Problem]
        var hasProblems: Bool
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        let screen = MyRulesScreen(state: state)
        routes.get { request, context in
            do {
                return rulesPage(try await screen.load(), request: request, context: context)
            } catch {
                return failure(error, title: "My rules", request: request, context: context)
            }
        }
        routes.post { request, context in
            let (notice, shown) = await screen.save(form(context)["rules"] ?? "")
            guard notice.isError else { return redirect("/rules", notice, context: context) }
            return rulesPage(shown, request: request, context: context, notice: notice)
        }
        return routes
    }

    private func rulesPage(_ shown: MyRulesScreen.State, request: Request, context: ConsoleContext, notice: Notice? = nil) -> Response {
        let problems = shown.lines.compactMap { line in line.problem.map { RulesView.Problem(text: line.text, problem: "\($0)") } }
        return renderer.page(
            .rules, title: "My rules", view: RulesView(text: shown.text, problems: problems, hasProblems: !problems.isEmpty),
            chrome: chrome(request, context, notices: notice.map { [$0] } ?? []),
            status: .form(refused: notice?.isError == true))
    }
}
