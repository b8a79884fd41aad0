import ArgumentParser
import FilterLists
import Storage

/// `pepper allowlist`: sites where nothing is blocked or hidden.
struct AllowlistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allowlist",
        abstract: "Manage the sites where Pepper blocks and hides nothing.",
        discussion: "An allowlisted domain covers its subdomains. Run `pepper compile` afterwards to update the output.",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the allowlisted domains.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let domains = try AllowlistStore(database: homeOptions.openDatabase()).domains()
            if json {
                try Terminal.printJSON(domains)
            } else {
                for domain in domains {
                    let unicode = DomainName.toUnicode(domain)
                    print(unicode == domain ? domain : "\(domain)\t(\(unicode))")
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allowlist a domain and its subdomains.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "A domain such as example.com (not a URL).") var domain: String

        func validate() throws {
            do {
                _ = try DomainName.normalize(domain)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() async throws {
            let (stored, added) = try AllowlistStore(database: homeOptions.openDatabase()).add(domain)
            print(added ? "Added \(stored)" : "\(stored) is already allowlisted")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a domain from the allowlist.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The domain to remove.") var domain: String

        func run() async throws {
            guard try AllowlistStore(database: homeOptions.openDatabase()).remove(domain) else {
                throw CLIError("\(domain) is not allowlisted")
            }
            print("Removed \(domain)")
        }
    }
}
