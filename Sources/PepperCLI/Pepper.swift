import ArgumentParser
import PicketServer
import Storage

/// The `pepper` command: block what people don't want reaching them.
public struct Pepper: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pepper",
        abstract: "Block ads, trackers, boycotted domains, spam calls and junk texts.",
        discussion: """
            State lives in $PEPPER_HOME (default ~/.local/share/pepper):
            pepper.sqlite, lists/ and out/. Every command accepts --home DIR.
            Exit status: 0 success, 1 failure, 64 usage error.

            Start with `pepper console` (the screens, in your web browser) or
            `pepper compile`: on a fresh home it compiles the embedded starter list
            into WebKit content-blocker JSON under $PEPPER_HOME/out.
            """,
        version: PepperVersion.withSchemas,
        subcommands: [
            ConsoleCommand.self, CompileCommand.self, CheckCommand.self, ListsCommand.self, UpdateCommand.self, AllowlistCommand.self,
            RulesCommand.self, DNSCommand.self, CallsCommand.self, SmsCommand.self, PicketCommand.self, BrowseCommand.self,
            BackupCommand.self, SyncCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line. Parsing fails as swift-argument-parser reports it (the usage,
    /// exit 64); a command's failure is one line on stderr and exit 1, whatever threw it
    /// (``CLIError/reported(_:)``), so commands need not wrap the actions' errors.
    public static func main() async {
        let parsed: any ParsableCommand
        do {
            parsed = try await asyncParseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            var command = parsed
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Built-in commands (help, version, completions) end by throwing what
            // swift-argument-parser prints itself, with exit status 0: only a failure is reworded.
            exit(withError: exitCode(for: error) == .failure ? CLIError.reported(error) : error)
        }
    }
}

/// Pepper's release and the schema versions it writes.
public enum PepperVersion {
    /// The release (what the console's pages show).
    public static let current = "0.1.0"

    /// What `pepper --version` prints: the release first (packaging scripts take the first
    /// word), then the schema versions, counted from the migrations themselves, so that a
    /// person can tell whether this Pepper can open a state another one wrote:
    /// `0.1.0 (state schema 12, Picket PostgreSQL schema 3)`.
    public static var withSchemas: String {
        "\(current) (state schema \(PepperDatabase.schemaVersion), Picket PostgreSQL schema \(PostgresPicketStore.schemaVersion))"
    }
}
