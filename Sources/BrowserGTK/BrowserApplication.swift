#if os(Linux)
import Browsing
import CWebKitGTK
import FilterEngine
import Foundation
import Picket
import Storage

/// How to run the browser (the options of `pepper browse`).
public struct BrowserConfiguration: Sendable {
    /// Pepper's state folder: the history and settings in `pepper.sqlite`, the rules in `out/`.
    public var home: PepperHome
    /// An address or search words to open after the restored page; `nil` restores only.
    public var initialURL: String?
    /// An HTTP proxy for all of the browser's traffic (`http://127.0.0.1:8080`), or `nil`.
    public var proxy: String?
    /// The window's width in pixels.
    public var width: Int
    /// The window's height in pixels.
    public var height: Int
    /// Whether to read automation commands from standard input (see ``AutomationChannel``).
    public var automation: Bool
    /// Rebuilds `$PEPPER_HOME/out` from the state (after the shield changes the allowlist, or
    /// at launch when there is no output yet).
    public var rebuild: @Sendable () throws -> Void
    /// Loads the filter engine for the rules in `$PEPPER_HOME/out` (it tells which failed
    /// requests were blocked and by which rule); `nil` when it cannot be had.
    public var loadEngine: @Sendable () -> FilterEngine?
    /// Loads the lookup of struck employers' sites (the enabled Picket sources under the Picket
    /// policy); `nil` when there is none or the policy only logs.
    public var loadPicketLookup: @Sendable () -> (@Sendable (String) -> PicketNotice?)?

    /// A configuration with the given fields.
    public init(
        home: PepperHome, initialURL: String? = nil, proxy: String? = nil, width: Int = 1024, height: Int = 768, automation: Bool = false,
        rebuild: @escaping @Sendable () throws -> Void, loadEngine: @escaping @Sendable () -> FilterEngine? = { nil },
        loadPicketLookup: @escaping @Sendable () -> (@Sendable (String) -> PicketNotice?)? = { nil }
    ) {
        self.home = home
        self.initialURL = initialURL
        self.proxy = proxy
        self.width = width
        self.height = height
        self.automation = automation
        self.rebuild = rebuild
        self.loadEngine = loadEngine
        self.loadPicketLookup = loadPicketLookup
    }
}

/// Why the browser could not start.
public enum BrowserError: Error, Hashable, Sendable, CustomStringConvertible {
    /// GTK could not open a display.
    case noDisplay
    /// Pepper's state could not be opened or read.
    case state(String)
    /// There is no content blocker and none could be built.
    case contentBlocker(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .noDisplay: return "cannot open a display: pepper browse needs a graphical session (DISPLAY or WAYLAND_DISPLAY; Xvfb works)"
        case .state(let reason): return "cannot open Pepper's state: \(reason)"
        case .contentBlocker(let reason): return "no content blocker: \(reason)"
        }
    }
}

/// The `pepper browse` application: one window, until it is closed.
public enum BrowserApplication {
    /// Opens the window and runs GTK's main loop until the window closes.
    ///
    /// Must be called on the main thread. Returns the exit status (0 after a normal close).
    @MainActor
    public static func run(_ configuration: BrowserConfiguration) throws(BrowserError) -> Int32 {
        guard gtk_init_check(nil, nil) != 0 else { throw .noDisplay }
        let database: PepperDatabase
        do {
            try configuration.home.prepare()
            database = try PepperDatabase(home: configuration.home)
        } catch {
            throw .state("\(error)")
        }
        // No output yet (a fresh home): build it now, from the state's lists or the starter list.
        let manifest = configuration.home.outputURL.appendingPathComponent("manifest.json")
        if !FileManager.default.fileExists(atPath: manifest.path) {
            do {
                try configuration.rebuild()
            } catch {
                throw .contentBlocker("\(error)")
            }
        }
        let window: BrowserWindow
        do {
            window = try BrowserWindow(configuration: configuration, database: database)
        } catch {
            throw .state(error.description)
        }
        var automation: AutomationChannel?
        if configuration.automation {
            automation = AutomationChannel(window: window)
            automation?.start()
        }
        window.start()
        gtk_main()
        withExtendedLifetime(automation) {}
        return 0
    }
}
#endif
