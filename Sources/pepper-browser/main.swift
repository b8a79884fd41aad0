// `pepper-browser`: the WebKitGTK window behind `pepper browse`.
//
// `pepper browse` checks its options and then replaces itself with this program (exec), so
// that only the browser loads GTK and WebKit — every other `pepper` command starts without
// them. It takes the options `pepper browse` passes on, already validated:
//
//     pepper-browser --home DIR [--proxy URL] [--window-size WxH] [--automation] [-- URL]
//
// The window starts it again to compile content filters off its own thread:
//
//     pepper-browser --compile-filters STORE GENERATION PREFIX [--without-allowlist]

import Foundation

#if os(Linux)
import BrowserGTK
import DesktopIntegration
import ListSync
import PepperActions
import Storage

/// Reads the arguments `pepper browse` passes on.
func browserConfiguration(_ arguments: [String]) -> BrowserConfiguration? {
    var home: String?
    var proxy: String?
    var size = (1024, 768)
    var automation = false
    var url: String?
    var index = 0
    func value() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }
    while index < arguments.count {
        switch arguments[index] {
        case "--home": home = value()
        case "--proxy": proxy = value()
        case "--window-size":
            let parts = (value() ?? "").split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { return nil }
            size = (parts[0], parts[1])
        case "--automation": automation = true
        case "--": url = value()
        default: return nil
        }
        index += 1
    }
    guard let home else { return nil }
    // The same state, actions and rebuilds as every other face (GNOME Web's filters kept current too).
    guard
        let state = try? PepperState(
            home: PepperHome(url: URL(fileURLWithPath: home)),
            configuration: PepperState.Configuration(afterPublish: [GNOMEWebSettings.keepFiltersCurrent()]))
    else {
        FileHandle.standardError.write(Data("Error: cannot open Pepper's state in \(home)\n".utf8))
        exit(1)
    }
    return BrowserConfiguration(
        state: state, initialURL: url, proxy: proxy, width: size.0, height: size.1, automation: automation,
        loadPicketLookup: {
            guard let index = try? PicketBlocklistIndex.load(home: state.home, database: state.database), !index.sources.isEmpty,
                index.policy != .allow
            else { return nil }
            return { url in index.notice(for: url) }
        })
}

if let status = BrowserApplication.compileFilters(arguments: Array(CommandLine.arguments.dropFirst())) {
    exit(status)
}
guard let configuration = browserConfiguration(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data("Error: pepper-browser is started by `pepper browse` (see `pepper help browse`)\n".utf8))
    exit(64)
}
do {
    exit(try BrowserApplication.run(configuration))
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
#else
FileHandle.standardError.write(Data("Error: the browser needs WebKitGTK and runs on Linux only\n".utf8))
exit(1)
#endif
