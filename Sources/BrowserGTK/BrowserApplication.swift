#if os(Linux)
import Browsing
import CWebKitGTK
import FilterEngine
import Foundation
import PepperActions
import Picket
import Storage

/// How to run the browser (the options of `pepper browse`).
public struct BrowserConfiguration: Sendable {
    /// The state's folder.
    public var home: PepperHome { state.home }

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
    /// Pepper's state: the browser's history and settings, the allowlist the shield changes,
    /// and the rebuild of `$PEPPER_HOME/out` that follows (the same actions as every face).
    public var state: PepperState
    /// Loads the lookup of struck employers' sites (the enabled Picket sources under the Picket
    /// policy); `nil` when there is none or the policy only logs.
    public var loadPicketLookup: @Sendable () -> (@Sendable (String) -> PicketNotice?)?

    /// A configuration with the given fields.
    public init(
        state: PepperState, initialURL: String? = nil, proxy: String? = nil, width: Int = 1024, height: Int = 768,
        automation: Bool = false, loadPicketLookup: @escaping @Sendable () -> (@Sendable (String) -> PicketNotice?)? = { nil }
    ) {
        self.state = state
        self.initialURL = initialURL
        self.proxy = proxy
        self.width = width
        self.height = height
        self.automation = automation
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

/// Waits on this (non-cooperative) thread for async work.
enum Blocking {
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task.detached {
            box.value = await work()
            semaphore.signal()
        }
        semaphore.wait()
        return box.value!
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }
}

/// The `pepper browse` application: one window, until it is closed.
public enum BrowserApplication {
    /// Runs the filter compiler when `arguments` (after the program) ask for it
    /// (`--compile-filters STORE GENERATION PREFIX [--without-allowlist]`, started by the
    /// window so that WebKit's parser never runs on its thread); `nil` when they do not.
    @MainActor
    public static func compileFilters(arguments: [String]) -> Int32? {
        guard let job = FilterStoreCompiler.Job(arguments: arguments) else { return nil }
        return FilterStoreCompiler.run(job)
    }

    /// Opens the window and runs GTK's main loop until the window closes.
    ///
    /// Must be called on the main thread. Returns the exit status (0 after a normal close).
    @MainActor
    public static func run(_ configuration: BrowserConfiguration) throws(BrowserError) -> Int32 {
        guard gtk_init_check(nil, nil) != 0 else { throw .noDisplay }
        // No output yet (a fresh home): build it now, from the state's lists or the starter list.
        if configuration.state.manifest() == nil {
            let state = configuration.state
            let built = Blocking.wait { () async -> String? in
                do {
                    try await state.rebuild()
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            if let built { throw .contentBlocker("\(built)") }
        }
        let window: BrowserWindow
        do {
            window = try BrowserWindow(configuration: configuration)
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
