import ArgumentParser
import FilterLists
import Foundation
import ListSync
import PepperActions
import Storage

/// `pepper lists`: the catalogue of list sources.
struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Manage the filter lists Pepper subscribes to.",
        discussion: """
            Built in: easylist and easyprivacy (enabled), duckduckgo-tds (DuckDuckGo
            Tracker Radar) and disconnect (Disconnect's services.json), which can be
            enabled. Add your own lists by path or URL. Changes are compiled into
            $PEPPER_HOME/out at once; `pepper update` keeps the lists fresh.
            """,
        subcommands: [List.self, Add.self, Remove.self, Enable.self, Disable.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Show every source with its state.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let sources = try homeOptions.openState().lists()
            if json {
                try Terminal.printJSON(sources.map(SourceView.init))
                return
            }
            for source in sources {
                let state = source.enabled ? "enabled " : "disabled"
                print("\(Terminal.pad(source.name, 16)) \(state)  \(Terminal.pad(source.format, 10)) \(source.location)")
                var details: [String] = []
                if let success = source.lastSuccess {
                    details.append("updated \(Terminal.date(success))")
                } else {
                    details.append("never downloaded")
                }
                if let rulesIn = source.rulesIn { details.append("\(Terminal.count(rulesIn)) rules in") }
                if let rulesOut = source.rulesOut { details.append("\(Terminal.count(rulesOut)) out") }
                if let expires = source.expiresAt { details.append("next due \(Terminal.date(expires))") }
                if let categories = source.disconnectCategories { details.append("categories: \(categories.joined(separator: ","))") }
                print("                 " + details.joined(separator: ", "))
                if let error = source.lastError { print("                 last error: \(error)") }
            }
        }

    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Subscribe to a list by path or URL, fetch it and compile.",
            discussion: """
                The list is checked before it is kept: a file with no usable rule is
                refused. picket:https://SERVER --key KEY subscribes to an Online Picket
                Line server's blocklist (see `pepper picket policy`).
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "A file path, an http(s) URL or picket:https://SERVER.") var source: String
        @Option(help: ArgumentHelp("For picket: sources, the API key (read:mobile).", valueName: "key")) var key: String?
        @Option(help: "A short name (default: from the file name).") var name: String?
        @Option(help: "auto, abp, hosts, domains, tds or disconnect.") var format: CompileCommand.FormatOption = .auto
        @Option(help: ArgumentHelp("For Disconnect lists: categories to block, comma-separated.", valueName: "list"))
        var categories: String?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let request = ListRequest(
                source: source, name: name, format: format.rawValue, categories: categories.map(ListsCommand.categories), key: key)
            do {
                try request.validate()
            } catch {
                throw ValidationError(error.description + (error == .invalidListName(name ?? "") ? " (--name)" : ""))
            }
            let state = try homeOptions.openState()
            let bar = ProgressBar(label: name ?? ListRequest.derivedName(from: source))
            let change: ListChange
            do {
                change = try await state.addList(request, progress: bar.update, rebuild: !noCompile)
            } catch .listExists(let existing) {
                bar.finish()
                throw CLIError("a list named '\(existing)' exists already; choose another --name")
            } catch .invalidListName(let derived) {
                bar.finish()
                throw ValidationError("'\(derived)' is not a valid name: use lower-case letters, digits, '.', '-' and '_' (--name)")
            } catch {
                bar.finish()
                throw error
            }
            bar.finish()
            print("Added \(change.name) (\(Terminal.count(change.rules ?? 0)) rules)")
            Terminal.compiled(change.outcome)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Unsubscribe from a list (built-in lists can only be disabled).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            do {
                let change = try await homeOptions.openState().removeList(name, rebuild: !noCompile)
                print("Removed \(name)")
                Terminal.compiled(change.outcome)
            } catch {
                throw ListsCommand.failure(error)
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable", abstract: "Use a list again (fetching it if it has no copy yet).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Option(help: ArgumentHelp("For Disconnect lists: categories to block, comma-separated.", valueName: "list"))
        var categories: String?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let state = try homeOptions.openState()
            let bar = ProgressBar(label: name)
            do {
                let change = try await state.enableList(
                    name, categories: categories.map(ListsCommand.categories), progress: bar.update, rebuild: !noCompile)
                bar.finish()
                print("Enabled \(name)")
                if let problem = change.fetchProblem { Terminal.warning("\(name): \(problem); `pepper update` will retry") }
                Terminal.compiled(change.outcome)
            } catch {
                bar.finish()
                throw ListsCommand.failure(error)
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Stop using a list (its copy is kept).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            do {
                let change = try await homeOptions.openState().disableList(name, rebuild: !noCompile)
                print("Disabled \(name)")
                Terminal.compiled(change.outcome)
            } catch {
                throw ListsCommand.failure(error)
            }
        }
    }

    /// `a,b , c` → `["a", "b", "c"]`.
    static func categories(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// An action's failure in the words of this command (an unknown or built-in list says how
    /// to go on); any other failure is the action's own.
    static func failure(_ error: ActionError) -> any Error {
        switch error {
        case .unknownList(let name): return CLIError("no list named '\(name)' (see `pepper lists`)")
        case .builtInList(let name): return CLIError("'\(name)' is built in; use `pepper lists disable \(name)`")
        default: return error
        }
    }

    /// The JSON shape of a source in `pepper lists list --json`.
    struct SourceView: Encodable {
        var name, location, format: String
        var enabled, builtIn: Bool
        var etag, lastModified, lastError, sha256: String?
        var lastSuccess, lastAttempt, expiresAt: Date?
        var rulesIn, rulesOut: Int?
        var categories: [String]?

        init(_ source: ListSource) {
            name = source.name
            location = source.location
            format = source.format
            enabled = source.enabled
            builtIn = source.builtIn
            etag = source.etag
            lastModified = source.lastModified
            lastError = source.lastError
            sha256 = source.sha256
            lastSuccess = source.lastSuccess
            lastAttempt = source.lastAttempt
            expiresAt = source.expiresAt
            rulesIn = source.rulesIn
            rulesOut = source.rulesOut
            categories = source.disconnectCategories
        }
    }
}
