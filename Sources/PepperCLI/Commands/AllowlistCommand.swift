import ArgumentParser
import FilterLists
import Foundation
import Storage

/// `pepper allowlist`: sites where nothing is blocked or hidden.
struct AllowlistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allowlist",
        abstract: "Manage the sites where Pepper blocks and hides nothing.",
        discussion: """
            An allowlisted domain covers its subdomains. `add --for 7d` allowlists
            a site for a while (a "temporarily unprotected" site). Changes are
            compiled into $PEPPER_HOME/out at once.
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the allowlisted domains.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let entries = try AllowlistStore(database: homeOptions.openDatabase()).entries()
            if json {
                try Terminal.printJSON(entries)
            } else {
                let now = Date()
                for entry in entries {
                    let unicode = DomainName.toUnicode(entry.domain)
                    var line = unicode == entry.domain ? entry.domain : "\(entry.domain)\t(\(unicode))"
                    if let expiresAt = entry.expiresAt {
                        line += expiresAt > now ? "\tuntil \(ListsCommand.List.format(expiresAt))" : "\texpired"
                    }
                    print(line)
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allowlist a domain and its subdomains.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "A domain such as example.com (not a URL).") var domain: String
        @Option(name: .customLong("for"), help: ArgumentHelp("Only for this long (e.g. 24h, 7d).", valueName: "duration"))
        var duration: DurationArgument?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func validate() throws {
            do {
                _ = try DomainName.normalize(domain)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() async throws {
            let database = try homeOptions.openDatabase()
            let expiresAt = duration.map { Date().addingTimeInterval($0.seconds) }
            let (stored, added) = try AllowlistStore(database: database).add(domain, expiresAt: expiresAt)
            let until = expiresAt.map { " until \(ListsCommand.List.format($0))" } ?? ""
            print(added ? "Added \(stored)\(until)" : "\(stored) is already allowlisted\(until.isEmpty ? "" : "; now\(until)")")
            if !noCompile { try Recompiler.recompile(home: homeOptions.pepperHome, database: database) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a domain from the allowlist.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The domain to remove.") var domain: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let database = try homeOptions.openDatabase()
            guard try AllowlistStore(database: database).remove(domain) else {
                throw CLIError("\(domain) is not allowlisted")
            }
            print("Removed \(domain)")
            if !noCompile { try Recompiler.recompile(home: homeOptions.pepperHome, database: database) }
        }
    }
}
