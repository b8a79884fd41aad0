import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `pepper browse [URL]`: the WebKitGTK privacy browser (`docs/browser.md`).
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the web with Pepper's content blocker (WebKitGTK).",
        discussion: """
            Opens a browser window that blocks what $PEPPER_HOME/out blocks (run
            `pepper compile` or `pepper update` to change the rules; a fresh home
            uses the starter list). Back and forward history, the page zoom and
            the search engine are kept in pepper.sqlite, so they survive a relaunch.

            Controls: Back and Forward buttons, Alt+Left/Right, the mouse's side
            buttons and a two-finger swipe; Ctrl + and Ctrl - zoom, Ctrl 0 resets;
            Ctrl+L goes to the address bar, which takes addresses or search words
            (DuckDuckGo by default); the shield shows how many requests were blocked
            on the page, and a click turns blocking off or on for the site (it
            edits the allowlist and recompiles $PEPPER_HOME/out).

            Cookies and caches are forgotten when the window closes. The window is
            the pepper-browser program, installed beside pepper.
            """
    )

    @OptionGroup var homeOptions: HomeOptions
    @Argument(help: "An address or search words to open (default: the page open when the browser was last closed).")
    var url: String?
    @Option(help: ArgumentHelp("Send all traffic through this proxy (http:// or socks5://).", valueName: "url"))
    var proxy: String?
    @Option(help: ArgumentHelp("The window's size in pixels.", valueName: "WxH"))
    var windowSize: String = "1024x768"
    @Flag(help: "Read commands from standard input and answer in JSON lines (for tests and scripts; see docs/browser.md).")
    var automation = false

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--window-size takes WIDTHxHEIGHT, e.g. 1280x800") }
        if let proxy, !(proxy.hasPrefix("http://") || proxy.hasPrefix("socks5://") || proxy.hasPrefix("socks://")) {
            throw ValidationError("--proxy takes an http:// or socks5:// URL")
        }
    }

    private var parsedSize: (Int, Int)? {
        let parts = windowSize.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (200...10_000).contains(width),
            (150...10_000).contains(height)
        else { return nil }
        return (width, height)
    }

    func run() async throws {
        #if os(Linux)
        // The window is a program of its own (see Sources/pepper-browser), installed beside
        // `pepper`: this process becomes it, keeping its standard input, output and pid.
        let helper = Self.browserExecutable
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw CLIError(
                "pepper browse needs the pepper-browser program beside pepper (\(helper.path)); build it with `swift build --product pepper-browser`"
            )
        }
        var arguments = [helper.path, "--home", homeOptions.pepperHome.url.path, "--window-size", windowSize]
        if let proxy { arguments += ["--proxy", proxy] }
        if automation { arguments.append("--automation") }
        if let url { arguments += ["--", url] }
        let argv = arguments.map { strdup($0) } + [nil]
        execv(helper.path, argv)
        throw CLIError("cannot start \(helper.path): \(String(cString: strerror(errno)))")
        #else
        throw CLIError("pepper browse needs WebKitGTK and runs on Linux only")
        #endif
    }

    /// `pepper-browser` in the folder of the running `pepper`.
    static var browserExecutable: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("pepper-browser")
    }
}
