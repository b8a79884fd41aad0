import Foundation
import PepperActions
import Screens
import Storage

/// GNOME Web's settings, through the `gsettings` tool: the content filters it loads
/// (`org.gnome.Epiphany content-filters`, a list of filter-file addresses), whether its ad
/// blocking applies them (`org.gnome.Epiphany.web enable-adblock`) and its search engine.
///
/// `gsettings` writes wherever the session's settings live (dconf), or, with
/// `GSETTINGS_BACKEND=keyfile`, to `$XDG_CONFIG_HOME/glib-2.0/settings/keyfile` (the tests'
/// throwaway store). Measured with GNOME Web 43.1: see `docs/console.md`.
public struct GNOMEWebSettings: ContentFilterSettings {
    static let schema = "org.gnome.Epiphany"
    /// Relocatable: GNOME Web keeps it at `web/` under its own path.
    static let webSchema = "org.gnome.Epiphany.web:/org/gnome/epiphany/web/"

    public var browserName: String { "GNOME Web" }

    /// The `gsettings` program.
    public let tool: String?
    /// The environment `gsettings` runs with (by default this process's).
    public let environment: [String: String]

    private var snapshots: SnapshotCache { SnapshotCache.shared }

    /// Settings read and written with the `gsettings` found on `PATH` (or at `tool`).
    public init(tool: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.tool = tool ?? Self.find("gsettings", path: environment["PATH"] ?? "/usr/bin:/bin")
    }

    public func availability() -> BrowserAvailability {
        guard tool != nil else { return .notInstalled("the gsettings tool is not installed") }
        guard (try? snapshot()) != nil else { return .notInstalled("its settings schema \(Self.schema) is not installed") }
        return .available
    }

    public func contentFilters() throws -> [String] {
        GVariantText.strings(try value(Self.schema, "content-filters"))
    }

    public func setContentFilters(_ addresses: [String]) throws {
        defer { snapshots.clear() }
        try run(["set", Self.schema, "content-filters", GVariantText.stringArray(addresses)])
        try run(["set", Self.webSchema, "enable-adblock", "true"])
    }

    public func filteringEnabled() throws -> Bool {
        try value("org.gnome.Epiphany.web", "enable-adblock") == "true"
    }

    public func defaultSearchEngine() throws -> String {
        GVariantText.strings(try value(Self.schema, "default-search-engine")).first ?? ""
    }

    /// Every key of GNOME Web's settings (its child schemas included) as `gsettings` prints
    /// them, read with one `gsettings` run and kept for a second by every instance of this
    /// process with the same settings store (a page shows several of them); a write through
    /// any of them clears it. A change made by another program shows a second later at most.
    func snapshot() throws -> [String: String] {
        if let cached = snapshots.current(store) { return cached }
        var values: [String: String] = [:]
        for line in try run(["list-recursively", Self.schema]).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3 else { continue }
            values["\(parts[0]) \(parts[1])"] = String(parts[2])
        }
        snapshots.store(values, for: store)
        return values
    }

    /// Which settings store `gsettings` uses with this environment.
    private var store: String {
        ["GSETTINGS_BACKEND", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS", "HOME"].map { environment[$0] ?? "" }.joined(separator: "|")
    }

    private func value(_ schema: String, _ key: String) throws -> String {
        guard let value = try snapshot()["\(schema) \(key)"] else { throw ToolError(description: "\(schema) has no key \(key)") }
        return value
    }

    public func useDuckDuckGo() throws {
        defer { snapshots.clear() }
        let providers = try value(Self.schema, "search-engine-providers").trimmingCharacters(in: .whitespacesAndNewlines)
        if !providers.contains("'name': <'DuckDuckGo'>") {
            let entry = "{'name': <'DuckDuckGo'>, 'url': <'https://duckduckgo.com/?q=%s&t=epiphany'>, 'bang': <'!ddg'>}"
            let list = providers.replacingOccurrences(of: "@aa{sv} ", with: "")
            let updated = list == "[]" ? "[\(entry)]" : "[\(entry), " + list.dropFirst()
            try run(["set", Self.schema, "search-engine-providers", updated])
        }
        try run(["set", Self.schema, "default-search-engine", GVariantText.quote("DuckDuckGo")])
    }

    /// After each rebuild: when the person asked Pepper to keep GNOME Web's filters (the
    /// onboarding), points them at the new output if its files changed (their number does).
    public static func keepFiltersCurrent(
        settings: GNOMEWebSettings = GNOMEWebSettings()
    ) -> @Sendable (PepperState, RebuildOutcome) -> Void {
        { state, outcome in
            guard (try? state.onboardingProgress())?.browserFiltersKept == true else { return }
            let expected = state.outputFileAddresses(outcome.manifest)
            guard case .available = settings.availability(), (try? settings.contentFilters()) != expected else { return }
            try? settings.setContentFilters(expected)
        }
    }

    /// The error of a `gsettings` run.
    public struct ToolError: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        guard let tool else { throw ToolError(description: "the gsettings tool is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw ToolError(description: "gsettings \(arguments.first ?? ""): " + (text.isEmpty ? "failed" : text))
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func find(_ name: String, path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// The last settings read per settings store, for a second.
private final class SnapshotCache: @unchecked Sendable {
    static let shared = SnapshotCache()

    private let lock = NSLock()
    private var entries: [String: (values: [String: String], readAt: Date)] = [:]

    func current(_ store: String) -> [String: String]? {
        lock.withLock {
            guard let entry = entries[store], Date().timeIntervalSince(entry.readAt) < 1 else { return nil }
            return entry.values
        }
    }

    func store(_ values: [String: String], for store: String) {
        lock.withLock { entries[store] = (values, Date()) }
    }

    func clear() {
        lock.withLock { entries = [:] }
    }
}

/// The text form of GVariant values that `gsettings` reads and prints: strings and arrays of
/// strings (`['a', 'b']`, `@as []`).
enum GVariantText {
    /// `text` as a GVariant string literal.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// An array of strings.
    static func stringArray(_ items: [String]) -> String {
        items.isEmpty ? "@as []" : "[" + items.map(quote).joined(separator: ", ") + "]"
    }

    /// Every string literal in `text`, in order (single or double quoted, with escapes).
    static func strings(_ text: String) -> [String] {
        var result: [String] = []
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "'" || character == "\"" else { continue }
            var value = ""
            while let next = iterator.next(), next != character {
                if next == "\\", let escaped = iterator.next() {
                    value.append(escaped)
                } else {
                    value.append(next)
                }
            }
            result.append(value)
        }
        return result
    }
}
