import ArgumentParser
import Foundation
import PepperActions

/// `pepper rules`: the person's own rules ("My rules").
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Manage your own filter rules (\"My rules\").",
        discussion: """
            Rules in Adblock Plus syntax, one per argument: ||ads.example^ blocks a
            domain (also in `pepper dns serve`), @@||example.com^ allows it,
            example.com##.banner hides elements. They are kept in the state and
            compiled with the enabled lists into $PEPPER_HOME/out at once; the
            console's My rules page edits the same rules. A rule Pepper cannot use is
            refused with the reason.
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print your rules, one per line, in the order added.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array of {text, addedAt}.") var json = false

        func run() async throws {
            let rules = try homeOptions.openState().userRules()
            if json {
                try Terminal.printJSON(rules)
            } else {
                for rule in rules { print(rule.text) }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add rules (each checked first) and compile.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: ArgumentHelp("Rules in Adblock Plus syntax (quote them for the shell).", valueName: "rule")) var rules: [String]
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func validate() throws {
            guard !rules.isEmpty else { throw ValidationError("give at least one rule") }
        }

        func run() async throws {
            // Every rule is checked before any is added: one bad rule changes nothing.
            for rule in rules {
                let line = PepperState.checkRule(rule)
                if line.isComment { throw ValidationError("'\(line.text)' is a comment, not a rule") }
                if let problem = line.problem { throw ValidationError("'\(line.text)' cannot be used: \(problem)") }
            }
            let state = try homeOptions.openState()
            var added = 0
            for rule in rules {
                let new = try await state.addRule(rule, rebuild: false)
                print(new ? "Added \(rule)" : "\(rule) is already one of your rules")
                if new { added += 1 }
            }
            if added > 0 && !noCompile { Terminal.compiled(try await state.rebuild()) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove rules and compile.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: ArgumentHelp("Rules as listed by `pepper rules list`.", valueName: "rule")) var rules: [String]
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let state = try homeOptions.openState()
            for rule in rules {
                try await state.removeRule(rule, rebuild: false)
                print("Removed \(rule)")
            }
            if !rules.isEmpty && !noCompile { Terminal.compiled(try await state.rebuild()) }
        }
    }
}
