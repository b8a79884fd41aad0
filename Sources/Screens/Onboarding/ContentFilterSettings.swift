import Foundation

/// What a browser tells about the content-filter files it loads: GNOME Web on Linux (its
/// settings), Safari on iPhone, iPad and Mac (which of Pepper's content blockers the person
/// turned on). The onboarding and the start screen confirm through it that the browser loads
/// Pepper's current output.
public protocol BrowserContentFilters: Sendable {
    /// The browser's name as people know it ("GNOME Web").
    var browserName: String { get }

    /// Whether the browser is installed here, and if not, why Pepper thinks so.
    func availability() -> BrowserAvailability

    /// The addresses of the filter files the browser loads.
    func contentFilters() throws -> [String]

    /// Whether the browser's ad blocking (which applies the filters) is on.
    func filteringEnabled() throws -> Bool

    /// What the person does to make the browser load Pepper's filters, when only they can
    /// (Safari's Settings); empty when Pepper sets them itself.
    var enableSteps: [String] { get }

    /// What the person does to make DuckDuckGo the browser's search engine, when only they can.
    var searchEngineSteps: [String] { get }
}

extension BrowserContentFilters {
    /// None: Pepper sets the filters itself.
    public var enableSteps: [String] { [] }
    /// None: Pepper sets the search engine itself.
    public var searchEngineSteps: [String] { [] }
}

/// A browser whose settings Pepper may change itself (GNOME Web): which filter files it loads,
/// and its search engine. Safari's are changed by the person only, so Safari offers
/// ``BrowserContentFilters`` alone.
public protocol ContentFilterSettings: BrowserContentFilters {
    /// Makes the browser load exactly these filter files, and turns its ad blocking on.
    func setContentFilters(_ addresses: [String]) throws

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
