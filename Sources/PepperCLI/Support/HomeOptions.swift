import ArgumentParser
import DesktopIntegration
import PepperActions
import Storage

/// `--home DIR`, accepted by every command.
struct HomeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Pepper's state folder (default: $PEPPER_HOME or ~/.local/share/pepper).", valueName: "dir"))
    var home: String?

    /// The resolved home.
    var pepperHome: PepperHome { PepperHome.resolve(explicit: home) }

    /// Opens the home's database, creating the home if needed.
    func openDatabase() throws -> PepperDatabase {
        try openState().database
    }

    /// Opens the home's state, creating the home if needed. Rebuilds keep GNOME Web's filters
    /// pointing at the output when the person asked for that (the console's setup).
    func openState() throws -> PepperState {
        do {
            return try PepperState(
                home: pepperHome, configuration: PepperState.Configuration(afterPublish: [GNOMEWebSettings.keepFiltersCurrent()]))
        } catch {
            throw CLIError("\(error)")
        }
    }
}
