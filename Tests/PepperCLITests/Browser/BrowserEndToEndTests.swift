import Foundation
import PepperTestSupport
import Testing

/// The real `pepper browse` (GTK + WebKitGTK) under Xvfb, its traffic through a local logging
/// proxy (`ListServer` answers absolute-URL requests, so test host names need no DNS).
@Suite("pepper browse end to end", .serialized, .enabled(if: WebKitJudge.enabled))
struct BrowserEndToEndTests {
    static let pageA = "http://a.test/"
    static let pageB = "http://b.test/"
    static let pageC = "http://c.test/"
    static let pixel = "http://tracker.test/pixel.gif"
    static let script = "http://tracker.test/t.js"

    static let routes: [String: ListServer.Route] = [
        pageA: .init(
            body: """
                <!doctype html><title>Page A</title>
                <h1>Page A</h1><p><a href="http://b.test/">to B</a></p>
                <img src="http://tracker.test/pixel.gif" width="1" height="1">
                <script src="http://tracker.test/t.js"></script>
                <img src="http://a.test/missing.png" alt="">
                """, contentType: "text/html; charset=utf-8"),
        pageB: .init(body: "<!doctype html><title>Page B</title><h1>Page B</h1>", contentType: "text/html; charset=utf-8"),
        pageC: .init(body: "<!doctype html><title>Page C</title><h1>Page C</h1>", contentType: "text/html; charset=utf-8"),
        pixel: .init(body: "GIF89a", contentType: "image/gif"),
        script: .init(body: "document.title += ' (tracked)';", contentType: "text/javascript"),
    ]

    @Test(BrowserDriver.trait) func blocksNavigatesRestoresZoomsAndToggles() async throws {
        let display = try #require(try BrowserDriver.virtualDisplay(), "WebKitGTK and Xvfb are needed")
        let proxy = try ListServer(routes: Self.routes)
        let home = TestPaths.temporaryDirectory("browse-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let artifacts = TestPaths.artifacts.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        var transcript: [String] = []
        defer { try? Data(transcript.joined(separator: "\n").utf8).write(to: artifacts.appendingPathComponent("transcript.txt")) }

        // The rules come from the state, as a person's would: a list of one tracker.
        let list = home.appendingPathComponent("trackers.txt")
        try Data("! Title: test trackers\n||tracker.test^\n".utf8).write(to: list)
        let added = try await PepperProcess.run(["lists", "add", list.path], home: home)
        #expect(added.status == 0, "\(added.stderr)")

        func launch() throws -> BrowserDriver {
            try BrowserDriver(home: home, display: display, proxy: proxy)
        }
        func requested(_ url: String) -> Bool { proxy.requests.contains { $0.path == url } }

        // First launch: the start page, then A → B → C.
        do {
            let browser = try launch()
            defer { transcript += browser.transcript }
            let start = try await browser.waitForPage()
            #expect(start.startPage)
            #expect(!start.backEnabled && !start.forwardEnabled)
            #expect(start.suggestionVisible, "the one-time search suggestion")
            #expect(start.rulesCompiled == true, "first launch: WebKit compiles the rules")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("start-page.png").path)")
            try await browser.send("suggestion duckduckgo")

            try await browser.send("open \(Self.pageA)")
            let onA = try await browser.waitForPage()
            #expect(onA.url == Self.pageA)
            #expect(onA.title == "Page A", "the blocked script did not run")
            #expect(onA.blocked == 2)
            #expect(Set(onA.blockedURLs) == [Self.pixel, Self.script])
            #expect(onA.blockedRules == ["||tracker.test^", "||tracker.test^"], "the filter engine names the rule")
            #expect(onA.shield == "Shield: 2 blocked")
            #expect(!onA.backEnabled)
            #expect(requested("http://a.test/missing.png"), "page resources go through the proxy")
            #expect(!requested(Self.pixel) && !requested(Self.script), "blocked resources are never fetched")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("page-with-shield.png").path)")

            try await browser.send("open \(Self.pageB)")
            let onB = try await browser.waitForPage()
            #expect(onB.blocked == 0 && onB.backEnabled && !onB.forwardEnabled)
            try await browser.send("open \(Self.pageC)")
            _ = try await browser.waitForPage()

            // Within one run, back and forward use WebKit's own list.
            try await browser.send("key alt+Left")
            let backToB = try await browser.waitForPage()
            #expect(backToB.url == Self.pageB && backToB.forwardEnabled)
            try await browser.send("key alt+Left")
            let backToA = try await browser.waitForPage()
            #expect(backToA.url == Self.pageA && !backToA.backEnabled)
            #expect(backToA.blocked == 2, "a page back from WebKit's page cache reports its blocked requests again")
            try await browser.send("key alt+Right")
            _ = try await browser.waitForPage()
            try await browser.send("key alt+Right")
            let forwardToC = try await browser.waitForPage()
            #expect(forwardToC.url == Self.pageC && !forwardToC.forwardEnabled)

            try await browser.send("key ctrl+plus")
            try await browser.send("key ctrl+plus")
            let zoomed = try await browser.state()
            #expect(zoomed.zoom == 125 && zoomed.engineZoom == 125)
            #expect(try await browser.quit() == 0)
        }

        // Second launch: C is back, WebKit's list is empty, and Back still works twice, to A.
        do {
            let browser = try launch()
            defer { transcript += browser.transcript }
            let restored = try await browser.waitForPage()
            #expect(restored.url == Self.pageC && restored.address == Self.pageC)
            #expect(restored.historyEntries == [Self.pageA, Self.pageB, Self.pageC])
            #expect(restored.backEnabled && !restored.forwardEnabled)
            #expect(!restored.engineCanGoBack, "WebKit's own list starts empty")
            #expect(restored.zoom == 125 && restored.engineZoom == 125, "zoom restored and applied to the page")
            #expect(!restored.suggestionVisible, "the suggestion was answered")
            #expect(restored.rulesCompiled == false, "same manifest identifier: the stored filters are loaded")

            try await browser.send("click back")
            let onB = try await browser.waitForPage()
            #expect(onB.url == Self.pageB)
            try await browser.send("click back")
            let onA = try await browser.waitForPage()
            #expect(onA.url == Self.pageA && onA.address == Self.pageA)
            #expect(!onA.backEnabled && onA.forwardEnabled)
            #expect(onA.engineZoom == 125, "zoom applied after each load")
            #expect(onA.blocked == 2)

            // A swipe goes forward and back again.
            try await browser.send("swipe forward")
            #expect(try await browser.waitForPage().url == Self.pageB)
            try await browser.send("swipe back")
            #expect(try await browser.waitForPage().url == Self.pageA)
            try await browser.send("key ctrl+0")
            #expect(try await browser.state().engineZoom == 100)

            // The shield: blocking off for a.test, the tracker loads; on again, it does not.
            try await browser.send("click shield")
            let unprotected = try await browser.waitForPage()
            #expect(!unprotected.blocking)
            #expect(unprotected.shield == "Shield off")
            #expect(unprotected.title == "Page A (tracked)", "the tracker script ran")
            #expect(requested(Self.pixel) && requested(Self.script), "allowlisted: the resources are fetched")
            let allowlist = try await PepperProcess.run(["allowlist", "list"], home: home)
            #expect(allowlist.stdout.contains("a.test"))
            try await browser.send("screenshot \(artifacts.appendingPathComponent("shield-off.png").path)")

            proxy.clearLog()
            try await browser.send("click shield")
            let protected = try await browser.waitForPage()
            #expect(protected.blocking && protected.blocked == 2)
            #expect(requested(Self.pageA), "the page reloaded")
            #expect(!requested(Self.pixel) && !requested(Self.script))
            #expect(try await PepperProcess.run(["allowlist", "list"], home: home).stdout.isEmpty)
            #expect(try await browser.quit() == 0)
        }
    }

    /// A struck employer's site, from a real Picket server's blocklist: the notice takes the
    /// page's place (nothing is fetched), and "Proceed anyway" lets the site through for a day.
    @Test(BrowserDriver.trait) func aStruckEmployersSiteShowsTheActionAndProceedAnywayLetsItThrough() async throws {
        let display = try #require(try BrowserDriver.virtualDisplay(), "WebKitGTK and Xvfb are needed")
        let employerPage = "http://seedco.example/shop"
        let proxy = try ListServer(routes: [
            employerPage: .init(body: "<!doctype html><title>Seed Co shop</title><h1>Shop</h1>", contentType: "text/html; charset=utf-8"),
            Self.pageB: Self.routes[Self.pageB]!,
        ])
        let home = TestPaths.temporaryDirectory("browse-picket")
        defer { try? FileManager.default.removeItem(at: home) }
        let artifacts = TestPaths.artifacts.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        func requested(_ url: String) -> Bool { proxy.requests.contains { $0.path == url } }

        // The home subscribes to a Picket server's blocklist (one struck employer), as a person would.
        let seed = home.appendingPathComponent("seed.json")
        try Data(PicketCommandTests.seed.utf8).write(to: seed)
        #expect(try await PepperProcess.run(["picket", "import", seed.path], home: home).status == 0)
        let key =
            try await PepperProcess.run(["picket", "keys", "create", "--scope", "read:mobile"], home: home).stdout
            .split(separator: "\n").last.map(String.init) ?? ""
        do {
            let server = try await ServerProcess(["picket", "serve", "--listen", "127.0.0.1:0"], home: home)
            defer { server.kill() }
            let added = try await PepperProcess.run(["lists", "add", "picket:http://127.0.0.1:\(server.port)", "--key", key], home: home)
            #expect(added.status == 0, "\(added.stderr)")
        }

        let browser = try BrowserDriver(home: home, display: display, proxy: proxy)
        defer { try? Data(browser.transcript.joined(separator: "\n").utf8).write(to: artifacts.appendingPathComponent("picket.txt")) }
        _ = try await browser.waitForPage()
        try await browser.send("open \(Self.pageB)")
        _ = try await browser.waitForPage()
        try await browser.send("open \(employerPage)")
        let notice = try await browser.waitForPage()
        #expect(notice.picketNotice == "Seed Co" && notice.picketCanProceed == true)
        #expect(notice.url == employerPage && notice.title == "Seed Co: strike in progress")
        #expect(!requested(employerPage), "the employer's page is not fetched")
        try await browser.send("screenshot \(artifacts.appendingPathComponent("picket-notice.png").path)")

        try await browser.send("click proceed")
        let through = try await browser.waitForPage()
        #expect(through.picketNotice == nil)
        #expect(through.url == employerPage && through.title == "Seed Co shop")
        #expect(requested(employerPage))
        let allowlist = try await PepperProcess.run(["allowlist", "list"], home: home).stdout
        #expect(allowlist.hasPrefix("seedco.example\tuntil "), "let through for a day: \(allowlist)")

        // The notice and the page it let through are one step of the history: Back leads to B.
        #expect(through.historyEntries == [Self.pageB, employerPage], "\(through.historyEntries)")
        try await browser.send("click back")
        let back = try await browser.waitForPage()
        #expect(back.url == Self.pageB && back.picketNotice == nil, "\(back)")
        #expect(try await browser.quit() == 0)
    }

    @Test func refusesToStartWithoutADisplay() async throws {
        let home = TestPaths.temporaryDirectory("browse-nodisplay")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(["browse"], home: home, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot open a display"))
    }
}

@Suite("pepper browse without its window program")
struct BrowserHelperTests {
    @Test func saysWhereItLookedForPepperBrowser() async throws {
        let directory = TestPaths.temporaryDirectory("lonely-pepper")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lonely = directory.appendingPathComponent("pepper")
        // Copied by `cp`, not in this process: a program another test starts while this
        // process holds the copy open for writing inherits that descriptor, and running the
        // copy then fails with "Text file busy" (ETXTBSY) for as long as that program lives.
        let copy = try await Subprocess.run(URL(fileURLWithPath: "/bin/cp"), [PepperProcess.executable.path, lonely.path])
        try #require(copy.status == 0, "cp: \(copy.stderr)")
        let outcome = try await Subprocess.run(lonely, ["browse", "--home", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("pepper-browser"))
        #expect(outcome.stderr.contains(directory.path))
    }

    @Test func rejectsABadWindowSize() async throws {
        let home = TestPaths.temporaryDirectory("browse-size")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(["browse", "--window-size", "huge"], home: home)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--window-size"))
    }
}
