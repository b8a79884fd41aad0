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

            Tracker Radar and Disconnect lists have categories of trackers (Advertising,
            Analytics, ...): `pepper lists categories NAME` shows them and chooses which
            are blocked, by the content blocker and the DNS filter alike.
            """,
        subcommands: [List.self, Add.self, Remove.self, Enable.self, Disable.self, Categories.self],
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
                if let categories = source.categories { details.append("categories: \(categories.joined(separator: ","))") }
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
        @Option(help: ListsCommand.categoriesHelp) var categories: String?
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
        @Option(help: ListsCommand.categoriesHelp) var categories: String?
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

    /// The help of `--categories`, the same wherever categories are chosen.
    static let categoriesHelp = ArgumentHelp(
        "For Tracker Radar and Disconnect lists: the categories to block, comma-separated (names as `pepper lists categories NAME` shows them, in any case).",
        discussion: "Checked against what the list offers; a name it does not offer is refused and nothing changes.",
        valueName: "list")

    /// `a,b , c` → `["a", "b", "c"]`.
    static func categories(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    struct Categories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "categories",
            abstract: "Show or choose the tracker categories a Tracker Radar or Disconnect list blocks.",
            discussion: """
                Without --set or --default, lists the categories the list's downloaded copy
                offers, how many tracker domains each holds and whether it is blocked.
                Tracker Radar gives most trackers no category: they are the category
                "No category". A tracker in several categories is blocked when one of them
                is chosen. Trackers outside the chosen categories are blocked neither in web
                pages (the content blocker) nor by `pepper dns serve`.

                Default: every category of a Tracker Radar list; Disconnect's tracking
                categories (Advertising, Analytics, Cryptomining, Disconnect, the
                fingerprinting ones, Social), not Content. A list never downloaded has no
                categories to show yet:
                `pepper lists enable NAME --categories ...` downloads it and chooses at once.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Option(help: ArgumentHelp("The categories to block, comma-separated (any case).", valueName: "list")) var set: String?
        @Flag(name: .customLong("default"), help: "Go back to the list's default categories.") var useDefault = false
        @Flag(help: "Print the categories as JSON.") var json = false
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func validate() throws {
            if set != nil && useDefault { throw ValidationError("give --set or --default, not both") }
        }

        func run() async throws {
            let state = try homeOptions.openState()
            do {
                if set != nil || useDefault {
                    let change = try await state.chooseCategories(set.map(ListsCommand.categories), for: name, rebuild: !noCompile)
                    try show(state)
                    Terminal.compiled(change.outcome)
                } else {
                    try show(state)
                }
            } catch {
                throw ListsCommand.failure(error)
            }
        }

        private func show(_ state: PepperState) throws(ActionError) {
            guard let categories = try state.listCategories(name) else {
                throw .invalidCategories(list: name, problem: .noCategories(format: try state.list(named: name).format))
            }
            guard let offered = categories.offered else { throw .invalidCategories(list: name, problem: .notDownloaded(reason: nil)) }
            if json {
                let view = CategoriesView(
                    list: name, format: categories.format.rawValue, isDefault: categories.isDefault,
                    categories: offered.map { .init(name: $0.name, domains: $0.domains, chosen: $0.chosen) })
                do {
                    try Terminal.printJSON(view)
                } catch {
                    throw .storage("cannot print: \(error)")
                }
                return
            }
            let chosen = offered.filter(\.chosen).count
            print("\(name): \(chosen) of \(offered.count) categories blocked" + (categories.isDefault ? " (the default)" : ""))
            let width = max(offered.map(\.name.count).max() ?? 0, 8)
            for category in offered {
                print(
                    "  \(category.chosen ? "blocked" : "-      ")  \(Terminal.pad(category.name, width))  \(Terminal.count(category.domains)) domains"
                )
            }
        }

        /// The JSON shape of `pepper lists categories NAME --json`.
        struct CategoriesView: Encodable {
            struct Category: Encodable {
                var name: String
                var domains: Int
                var chosen: Bool
            }
            var list, format: String
            var isDefault: Bool
            var categories: [Category]
        }
    }

    /// An action's failure in the words of this command (an unknown or built-in list says how
    /// to go on); any other failure is the action's own.
    static func failure(_ error: ActionError) -> any Error {
        switch error {
        case .unknownList(let name): return CLIError("no list named '\(name)' (see `pepper lists`)")
        case .builtInList(let name): return CLIError("'\(name)' is built in; use `pepper lists disable \(name)`")
        case .invalidCategories(let name, .notDownloaded(nil)):
            return CLIError(
                "\(name) has not been downloaded yet, so its categories are not known: `pepper lists enable \(name)` downloads it"
                    + " (with --categories it chooses them too)")
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
            categories = source.categories
        }
    }
}
