import Foundation
import PepperActions
import Storage

/// "My rules": the person's own rules in Adblock Plus syntax, one per line, edited in place.
/// Saving checks every line with the same parser and compiler as every list; when a line
/// cannot be used, nothing is saved and each bad line comes back with its reason.
public struct MyRulesScreen: Sendable {
    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The rules as the editor shows them, one per line.
        public var text: String
        /// Each line and its problem (after a failed save; all without problems otherwise).
        public var lines: [RuleLine]
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// The saved rules.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                let rules = try state.userRules().map(\.text)
                return State(
                    text: rules.joined(separator: "\n"), lines: rules.map { RuleLine(text: $0, problem: nil, isComment: $0.hasPrefix("!")) }
                )
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// Saves the editor's text: every line is checked; with one bad line nothing changes and the
    /// returned state shows the text as typed with each line's problem.
    public func save(_ text: String) async -> (Notice, State) {
        do {
            let (lines, saved) = try await state.saveRules(text)
            let shown = State(text: lines.map(\.text).joined(separator: "\n"), lines: lines)
            guard saved else {
                let bad = lines.filter { $0.problem != nil }
                return (
                    .error(
                        "\(Text.plural(bad.count, "line")) cannot be used, so nothing was saved: fix or remove \(bad.count == 1 ? "it" : "them").",
                        field: "rules"), State(text: text, lines: lines)
                )
            }
            let rules = lines.filter { !$0.isComment }.count
            return (.success("Saved \(Text.plural(rules, "rule")); the content blocker and the DNS filter use them now."), shown)
        } catch {
            return (.failure(error, field: "rules"), State(text: text, lines: PepperState.checkRules(text)))
        }
    }

    /// Adds one rule (the DNS screen's "Block this domain" adds `||domain^`).
    public func add(_ rule: String) async -> Notice {
        do {
            let added = try await state.addRule(rule)
            return added ? .success("Added \(rule) to My rules.") : Notice(.info, "\(rule) is already in My rules.")
        } catch {
            return .failure(error, field: "rule")
        }
    }
}
