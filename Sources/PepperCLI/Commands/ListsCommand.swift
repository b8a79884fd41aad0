import ArgumentParser
import FilterLists
import Foundation
import ListSync
import Picket
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
        static let configuration = CommandConfiguration(abstract: "Show every source with its state.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let sources = try ListSourceStore(database: homeOptions.openDatabase()).all()
            if json {
                try Terminal.printJSON(sources.map(SourceView.init))
                return
            }
            for source in sources {
                let state = source.enabled ? "enabled " : "disabled"
                print("\(Terminal.pad(source.name, 16)) \(state)  \(Terminal.pad(source.format, 10)) \(source.location)")
                var details: [String] = []
                if let success = source.lastSuccess {
                    details.append("updated \(Self.format(success))")
                } else {
                    details.append("never downloaded")
                }
                if let rulesIn = source.rulesIn { details.append("\(Terminal.count(rulesIn)) rules in") }
                if let rulesOut = source.rulesOut { details.append("\(Terminal.count(rulesOut)) out") }
                if let expires = source.expiresAt { details.append("next due \(Self.format(expires))") }
                if let categories = source.disconnectCategories { details.append("categories: \(categories.joined(separator: ","))") }
                print("                 " + details.joined(separator: ", "))
                if let error = source.lastError { print("                 last error: \(error)") }
            }
        }

        static func format(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.string(from: date)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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

        func validate() throws {
            if source.hasPrefix("picket:") {
                guard PicketListSource.serverURL(source) != nil else { throw ValidationError("\(source): expected picket:https://SERVER") }
                guard let key, APIKeyFormat.isWellFormed(key) else {
                    throw ValidationError("picket: sources need --key opl_… (an API key with read:mobile)")
                }
            } else if key != nil {
                throw ValidationError("--key is only for picket: sources")
            }
        }

        func run() async throws {
            let database = try homeOptions.openDatabase()
            let home = homeOptions.pepperHome
            let isPicket = source.hasPrefix("picket:")
            let isRemote = source.hasPrefix("http://") || source.hasPrefix("https://") || isPicket
            let location = isRemote ? source : URL(fileURLWithPath: source).standardizedFileURL.path
            if !isRemote && !FileManager.default.fileExists(atPath: location) { throw CLIError("\(source): no such file") }
            let derived = isPicket ? PicketListSource.defaultName(for: location) : Self.derivedName(from: location)
            let name = self.name ?? derived
            guard ListSource.isValidName(name) else {
                throw ValidationError("'\(name)' is not a valid name: use lower-case letters, digits, '.', '-' and '_' (--name)")
            }
            let store = ListSourceStore(database: database)
            if try store.source(named: name) != nil { throw CLIError("a list named '\(name)' exists already; choose another --name") }
            var entry = ListSource(name: name, location: location, format: isPicket ? PicketListSource.format : format.rawValue)
            if isPicket { entry.picketKey = key }
            if let categories {
                entry.disconnectCategories = categories.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }

            // Fetch first: a list that cannot be read or has no usable rule is not added.
            let updater = ListUpdater(home: home, database: database)
            try home.prepare()
            entry = try store.insert(entry)
            let bar = ProgressBar(label: name)
            let report = await updater.update(entry, force: true, progress: bar.update)
            bar.finish()
            if case .failed(let reason) = report.status {
                try store.remove(named: name)
                try? FileManager.default.removeItem(at: home.listsURL.appendingPathComponent(name))
                throw CLIError("\(source): \(reason); not added")
            }
            print("Added \(name) (\(Terminal.count(report.rules ?? 0)) rules)")
            if !noCompile { try Recompiler.recompile(home: home, database: database) }
        }

        static func derivedName(from location: String) -> String {
            let last = URL(string: location)?.lastPathComponent ?? URL(fileURLWithPath: location).lastPathComponent
            var base = last.lowercased()
            for suffix in [".txt", ".json", ".list", ".hosts"] where base.hasSuffix(suffix) { base = String(base.dropLast(suffix.count)) }
            let cleaned = String(base.map { ($0.isLetter && $0.isASCII) || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
            return cleaned.isEmpty || cleaned.hasPrefix(".") ? "list" : String(cleaned.prefix(64))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unsubscribe from a list (built-in lists can only be disabled).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let database = try homeOptions.openDatabase()
            let store = ListSourceStore(database: database)
            guard let source = try store.source(named: name) else { throw CLIError("no list named '\(name)' (see `pepper lists`)") }
            guard !source.builtIn else { throw CLIError("'\(name)' is built in; use `pepper lists disable \(name)`") }
            try store.remove(named: name)
            try? FileManager.default.removeItem(at: homeOptions.pepperHome.listsURL.appendingPathComponent(name))
            print("Removed \(name)")
            if !noCompile { try Recompiler.recompile(home: homeOptions.pepperHome, database: database) }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Use a list again (fetching it if it has no copy yet).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Option(help: ArgumentHelp("For Disconnect lists: categories to block, comma-separated.", valueName: "list"))
        var categories: String?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let database = try homeOptions.openDatabase()
            let home = homeOptions.pepperHome
            let store = ListSourceStore(database: database)
            guard var source = try store.source(named: name) else { throw CLIError("no list named '\(name)' (see `pepper lists`)") }
            source.enabled = true
            if let categories {
                source.disconnectCategories = categories.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            try store.update(source)
            print("Enabled \(name)")
            if !FileManager.default.fileExists(atPath: home.listsURL.appendingPathComponent(name).path) {
                try home.prepare()
                let bar = ProgressBar(label: name)
                let report = await ListUpdater(home: home, database: database).update(source, force: true, progress: bar.update)
                bar.finish()
                if case .failed(let reason) = report.status { Terminal.warning("\(name): \(reason); `pepper update` will retry") }
            }
            if !noCompile { try Recompiler.recompile(home: home, database: database) }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop using a list (its copy is kept).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The list's name.") var name: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let database = try homeOptions.openDatabase()
            let store = ListSourceStore(database: database)
            guard var source = try store.source(named: name) else { throw CLIError("no list named '\(name)' (see `pepper lists`)") }
            source.enabled = false
            try store.update(source)
            print("Disabled \(name)")
            if !noCompile { try Recompiler.recompile(home: homeOptions.pepperHome, database: database) }
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

/// Rebuilds `$PEPPER_HOME/out` after a change to the lists or the allowlist, so it takes effect at once.
enum Recompiler {
    static func recompile(home: PepperHome, database: PepperDatabase) throws {
        do {
            let (output, changed, _) = try BlockerBuilder.rebuild(home: home, database: database)
            Terminal.status(
                "Compiled \(Terminal.count(output.totalRules)) rules into \(home.outputURL.path)" + (changed ? "" : " (unchanged)"))
        } catch {
            throw CLIError("cannot compile \(home.outputURL.path): \(error)")
        }
    }
}
