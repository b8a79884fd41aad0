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

    /// Opens the home's state, creating the home if needed: a command calls it once and passes
    /// the state down (one connection pool per database file per process, as GRDB asks; the
    /// rebuild sharing also works only within one state). Rebuilds keep GNOME Web's filters
    /// pointing at the output when the person asked for that (the console's setup).
    func openState() throws(ActionError) -> PepperState {
        try PepperState(home: pepperHome, configuration: PepperState.Configuration(afterPublish: [GNOMEWebSettings.keepFiltersCurrent()]))
    }
}
