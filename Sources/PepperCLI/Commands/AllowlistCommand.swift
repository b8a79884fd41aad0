import ArgumentParser
import FilterLists
import Foundation
import PepperActions
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
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the allowlisted domains.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let entries = try homeOptions.openState().allowlistEntries()
            if json {
                try Terminal.printJSON(entries)
                return
            }
            let now = Date()
            for entry in entries {
                let unicode = DomainName.toUnicode(entry.domain)
                var line = unicode == entry.domain ? entry.domain : "\(entry.domain)\t(\(unicode))"
                if let expiresAt = entry.expiresAt {
                    line += expiresAt > now ? "\tuntil \(Terminal.date(expiresAt))" : "\texpired"
                }
                print(line)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Allowlist a site and its subdomains.",
            discussion: """
                Give a domain (example.com) or paste a web address: its host is taken, without
                a leading www. (https://www.example.com/page allowlists example.com).
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "A domain such as example.com, or a web address.") var site: String
        @Option(name: .customLong("for"), help: ArgumentHelp("Only for this long (e.g. 24h, 7d).", valueName: "duration"))
        var duration: DurationArgument?
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let state = try homeOptions.openState()
            let change: AllowlistChange
            do {
                change = try await state.addAllowlist(site, for: duration?.seconds, rebuild: !noCompile)
            } catch .notADomain(let input, let problem) {
                throw ValidationError("'\(input)' is not a domain or a web address: \(problem)")
            } catch {
                // Spelled out: Swift 6.3's SIL verifier crashes on an async typed-throws `do`
                // whose catches leave errors to propagate on their own.
                throw error
            }
            let until = change.expiresAt.map { " until \(Terminal.date($0))" } ?? ""
            let source = change.fromAddress.map { " (the host of \($0))" } ?? ""
            print(
                change.added
                    ? "Added \(change.domain)\(source)\(until)"
                    : "\(change.domain) is already allowlisted\(source)\(until.isEmpty ? "" : "; now\(until)")")
            Terminal.compiled(change.outcome)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a domain from the allowlist.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The domain to remove.") var domain: String
        @Flag(help: "Do not recompile $PEPPER_HOME/out.") var noCompile = false

        func run() async throws {
            let change = try await homeOptions.openState().removeAllowlist(domain, rebuild: !noCompile)
            print("Removed \(change.domain)")
            Terminal.compiled(change.outcome)
        }
    }
}
