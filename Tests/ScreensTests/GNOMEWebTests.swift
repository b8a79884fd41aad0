import DesktopIntegration
import Foundation
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Screens

/// GNOME Web itself loading a page with the filters the onboarding set: under Xvfb, in a
/// session bus of its own, with a throwaway settings store and profile. GNOME Web's
/// `--automation-mode` turns its ad blocking off, so the test drives nothing: it watches which
/// requests reach the page's server.
@Suite("GNOME Web with Pepper's filters", .serialized)
struct GNOMEWebTests {
    static let tools = ["/usr/bin/epiphany", "/usr/bin/xvfb-run", "/usr/bin/dbus-run-session"]

    @Test(
        .enabled(
            if: GNOMEWebTests.tools.allSatisfy(FileManager.default.isExecutableFile)
                || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_BROWSER"] == "1",
            "GNOME Web (epiphany-browser), xvfb-run or dbus-run-session is not installed"))
    func blockedRequestsNeverReachThePageServer() async throws {
        for tool in Self.tools { try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is needed") }
        let (settings, folder) = try #require(throwawayGNOMEWeb(), "a throwaway GNOME Web settings store")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await BrowserTurn.shared.run { try await Self.walk(settings, folder) }
    }

    private static func walk(_ settings: GNOMEWebSettings, _ folder: URL) async throws {
        let page = """
            <!doctype html><html><head><title>Shop</title><script src="/blocked-banner.js"></script></head>
            <body><p>Shop</p><img src="/allowed.png" alt=""><img src="/ads/pixel.png" alt=""></body></html>
            """
        let server = try ListServer(routes: [
            "/page.html": .init(body: page, contentType: "text/html"), "/allowed.png": .init(body: "png", contentType: "image/png"),
            "/blocked-banner.js": .init(body: "1", contentType: "text/javascript"),
            "/ads/pixel.png": .init(body: "png", contentType: "image/png"),
        ])
        let temporary = TemporaryState()
        let state = try PepperState(
            home: temporary.home, configuration: .init(afterPublish: [GNOMEWebSettings.keepFiltersCurrent(settings: settings)]))

        // With GNOME Web's ad blocking off, the page asks for all three. (With it on and no filter
        // file, GNOME Web 43 holds the page forever.)
        try Self.gsettings(["set", "org.gnome.Epiphany.web:/org/gnome/epiphany/web/", "enable-adblock", "false"], settings: folder)
        try await Task.sleep(for: .milliseconds(1_100))  // Pepper keeps what it read for a second.
        #expect(try !settings.filteringEnabled())
        let unfiltered = try await Self.load(server.url("/page.html"), settings: folder, server: server)
        #expect(Set(unfiltered).isSuperset(of: ["/page.html", "/allowed.png", "/blocked-banner.js", "/ads/pixel.png"]), "\(unfiltered)")

        // My rules, then the onboarding's button.
        _ = try await state.saveRules("/blocked-banner.js\n/ads/*")
        let notice = await OnboardingScreen(state: state, browser: settings).installInBrowser()
        #expect(notice.kind == .success, "\(notice)")
        server.clearLog()
        let cache = folder.appendingPathComponent("cache")
        let filtered = try await Self.load(server.url("/page.html"), settings: folder, server: server, cache: cache)
        #expect(filtered.contains("/page.html") && filtered.contains("/allowed.png"), "\(filtered)")
        #expect(!filtered.contains("/blocked-banner.js"), "blocked by Pepper's filters in GNOME Web: \(filtered)")
        #expect(!filtered.contains("/ads/pixel.png"), "\(filtered)")

        // A rule removed: the rebuild points GNOME Web at the new output, which it compiles anew
        // (with the same cache, where the old filters are compiled already).
        _ = try await state.saveRules("/blocked-banner.js")
        server.clearLog()
        let changed = try await Self.load(server.url("/page.html"), settings: folder, server: server, cache: cache)
        #expect(changed.contains("/ads/pixel.png"), "no longer blocked: \(changed)")
        #expect(!changed.contains("/blocked-banner.js"), "\(changed)")
    }

    static func gsettings(_ arguments: [String], settings: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gsettings")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": settings.path]) { $1 }
        try process.run()
        process.waitUntilExit()
    }

    /// Runs GNOME Web on `url` until the page's image arrived (plus a moment for the rest),
    /// and returns the paths the server saw.
    static func load(_ url: String, settings: URL, server: ListServer, cache: URL? = nil) async throws -> [String] {
        let profile = settings.appendingPathComponent("profile-\(UUID())")
        let cache = cache ?? settings.appendingPathComponent("cache-\(UUID())")
        for folder in [profile, cache] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let process = Process()
        // Foundation starts the child in a process group of its own, which GNOME Web, its web
        // processes, Xvfb and the bus all stay in: stopped together below. (Not `setsid`: in a
        // group leader it forks, and the group to stop would no longer be this process's.)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xvfb-run")
        process.arguments = [
            "-a", "/usr/bin/dbus-run-session", "--", "/usr/bin/epiphany", "--private-instance", "--profile=\(profile.path)", url,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["GSETTINGS_BACKEND"] = "keyfile"
        environment["XDG_CONFIG_HOME"] = settings.path
        environment["XDG_CACHE_HOME"] = cache.path
        // GNOME Web sandboxes its web processes with bubblewrap, which a container does not allow.
        environment["WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS"] = "1"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let group = process.processIdentifier
        defer {
            kill(-group, SIGTERM)
            usleep(500_000)
            kill(-group, SIGKILL)
            process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !server.requests.contains(where: { $0.path == "/allowed.png" }) {
            try await Task.sleep(for: .milliseconds(200))
        }
        // The page's other requests, if any were going to come, come with the image.
        try await Task.sleep(for: .seconds(2))
        return server.requests.map(\.path)
    }
}
