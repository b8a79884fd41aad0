/// The settings of a browser that loads WebKit content-filter files by address, such as GNOME
/// Web (`org.gnome.Epiphany` in GSettings). The onboarding sets them and reads them back to
/// confirm; the implementation is platform code (`DesktopIntegration` on Linux).
public protocol ContentFilterSettings: Sendable {
    /// The browser's name as people know it ("GNOME Web").
    var browserName: String { get }

    /// Whether the browser is installed here, and if not, why Pepper thinks so.
    func availability() -> BrowserAvailability

    /// The addresses of the filter files the browser loads.
    func contentFilters() throws -> [String]

    /// Makes the browser load exactly these filter files, and turns its ad blocking on.
    func setContentFilters(_ addresses: [String]) throws

    /// Whether the browser's ad blocking (which applies the filters) is on.
    func filteringEnabled() throws -> Bool

    /// The name of the browser's default search engine.
    func defaultSearchEngine() throws -> String

    /// Makes DuckDuckGo the browser's default search engine (adding it when missing).
    func useDuckDuckGo() throws
}

/// Whether a browser is there to set up.
public enum BrowserAvailability: Sendable, Hashable {
    /// Installed.
    case available
    /// Not installed, with what was looked for.
    case notInstalled(String)
}
