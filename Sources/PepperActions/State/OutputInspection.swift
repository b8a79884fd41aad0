import ContentBlocker
import Foundation
import ListSync

extension PepperState {
    /// The manifest of the output in place (`$PEPPER_HOME/out/manifest.json`), or `nil` when
    /// nothing was compiled yet.
    public func manifest() -> Manifest? {
        guard let data = try? Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")) else { return nil }
        return try? Manifest.decode(data)
    }

    /// Whether the output was compiled from the allowlist and "My rules" as they are now.
    public func outputIsCurrent() -> Bool {
        BlockerBuilder.outputIsCurrent(home: home, database: database)
    }

    /// The `file://` addresses of the output files, as browsers that load WebKit filter files by
    /// address (GNOME Web) take them. They name the output's generation folder (`.out.<identifier>`,
    /// where the `out` link points), not the link: GNOME Web compiles a filter file once per
    /// address and never notices that the file behind an address changed, so each new output
    /// must have new addresses. A rebuild keeps the previous generation for readers still using
    /// it, so the settings can be switched after it.
    public func outputFileAddresses(_ manifest: Manifest) -> [String] {
        let folder = home.outputURL.resolvingSymlinksInPath()
        return manifest.files.map { folder.appendingPathComponent($0.path).absoluteString }
    }
}
