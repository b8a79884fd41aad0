import Foundation

/// The folder that holds Pepper's state (`docs/architecture.md`): `pepper.sqlite`, `lists/` (downloaded
/// lists in their original format) and `out/` (compiled output).
public struct PepperHome: Sendable, Hashable {
    /// The folder itself.
    public let url: URL

    /// A home at `url`.
    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// The home chosen by `--home`, else `$PEPPER_HOME`, else `$XDG_DATA_HOME/pepper`,
    /// else `~/.local/share/pepper`.
    public static func resolve(explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> PepperHome {
        if let explicit, !explicit.isEmpty { return PepperHome(url: URL(fileURLWithPath: explicit)) }
        if let home = environment["PEPPER_HOME"], !home.isEmpty { return PepperHome(url: URL(fileURLWithPath: home)) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return PepperHome(url: URL(fileURLWithPath: data).appendingPathComponent("pepper"))
        }
        // NSHomeDirectory, not `homeDirectoryForCurrentUser`: iOS has only the former (the app's sandbox).
        let user = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: NSHomeDirectory())
        return PepperHome(url: user.appendingPathComponent(".local/share/pepper"))
    }

    /// `pepper.sqlite`.
    public var databaseURL: URL { url.appendingPathComponent("pepper.sqlite") }
    /// `lists/`: raw downloaded lists.
    public var listsURL: URL { url.appendingPathComponent("lists", isDirectory: true) }
    /// `out/`: compiled content blocker.
    public var outputURL: URL { url.appendingPathComponent("out", isDirectory: true) }
    /// `sync.lock`: held by the one process that keeps the home's sync replica in memory (a
    /// serving console, a following `pepper sync`), and by a restore that replaces the state.
    public var syncLockURL: URL { url.appendingPathComponent("sync.lock") }

    /// Creates the folder and its subfolders if needed.
    public func prepare() throws {
        for folder in [url, listsURL, outputURL] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }
}
