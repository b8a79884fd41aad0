import ArgumentParser
import Storage

/// `--home DIR`, accepted by every command.
struct HomeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Pepper's state folder (default: $PEPPER_HOME or ~/.local/share/pepper).", valueName: "dir"))
    var home: String?

    /// The resolved home.
    var pepperHome: PepperHome { PepperHome.resolve(explicit: home) }

    /// Opens the home's database, creating the home if needed.
    func openDatabase() throws -> PepperDatabase {
        let home = pepperHome
        do {
            try home.prepare()
            return try PepperDatabase(home: home)
        } catch {
            throw CLIError("cannot open Pepper's state in \(home.url.path): \(error)")
        }
    }
}
