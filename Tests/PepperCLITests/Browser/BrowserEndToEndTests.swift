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
            #expect(start.startPage && start.screen == "starter" && start.visibleView == "start")
            #expect(!start.backEnabled && !start.forwardEnabled)
            #expect(start.suggestionVisible, "the one-time search suggestion")
            #expect(start.rulesCompiled == true, "first launch: WebKit compiles the rules")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("start-page.png").path)")
            try await browser.send("suggestion duckduckgo")

            try await browser.send("open \(Self.pageA)")
            let onA = try await browser.waitForPage()
            #expect(onA.url == Self.pageA)
            #expect(onA.screen == "page" && onA.visibleView == "web")
            #expect(onA.lastTransition == "slideInFromTrailing" && onA.transitionsRun >= 1, "the page slid in over the starter")
            #expect(onA.title == "Page A", "the blocked script did not run")
            #expect(onA.blocked == 2)
            #expect(Set(onA.blockedURLs) == [Self.pixel, Self.script])
            #expect(onA.blockedRules == ["||tracker.test^", "||tracker.test^"], "the filter engine names the rule")
            #expect(onA.shield == "Shield: 2 blocked")
            // The per-site count, by list, in the bar under the page.
            #expect(onA.siteSummary?.site == "a.test")
            #expect(onA.siteSummary?.page == [.init(list: Self.listName, count: 2)])
            #expect(onA.countsLine == "a.test: 2 blocked on this page (\(Self.listName) 2) · 2 in the last 7 days (\(Self.listName) 2)")
            #expect(onA.backEnabled && !onA.canGoBack, "Back leads to the starter from the first page")
            #expect(requested("http://a.test/missing.png"), "page resources go through the proxy")
            #expect(!requested(Self.pixel) && !requested(Self.script), "blocked resources are never fetched")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("page-with-shield.png").path)")

            try await browser.send("open \(Self.pageB)")
            let onB = try await browser.waitForPage()
            #expect(onB.blocked == 0 && onB.backEnabled && !onB.forwardEnabled)
            try await browser.send("open \(Self.pageC)")
            _ = try await browser.waitForPage()

            // A, B and C are three sites, each shown in a web view of its own store (first-party
            // isolation): back and forward load the stored entries in the site's new view.
            try await browser.send("key alt+Left")
            let backToB = try await browser.waitForPage()
            #expect(backToB.url == Self.pageB && backToB.forwardEnabled)
            try await browser.send("key alt+Left")
            let backToA = try await browser.waitForPage()
            #expect(backToA.url == Self.pageA && !backToA.canGoBack)
            #expect(backToA.blocked == 2, "a page loaded again in its site's view counts its blocked requests again")
            #expect(backToA.dataStore == "a.test" && backToA.dataStores == 4, "no site, a.test, b.test, c.test")

            // Back from the first page: the starter slides in over it (its own view), and its
            // own swipe brings the page back, without loading it again.
            let requestsOfA = proxy.requests.filter { $0.path == Self.pageA }.count
            try await browser.send("swipe back")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("starter-sliding-in.png").path)")
            let starter = try await browser.waitForPage()
            #expect(starter.screen == "starter" && starter.visibleView == "start" && starter.startPage)
            #expect(starter.lastTransition == "slideInFromLeading" && starter.transitionsRun > onA.transitionsRun, "GTK ran the slide")
            #expect(starter.url == Self.pageA, "the page stays loaded behind the starter")
            #expect(!starter.backEnabled && starter.forwardEnabled)
            #expect(starter.countsLine.isEmpty, "no page counts on the starter")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("starter.png").path)")
            try await browser.send("swipe forward")
            let pageAgain = try await browser.waitForPage()
            #expect(pageAgain.screen == "page" && pageAgain.visibleView == "web" && pageAgain.lastTransition == "slideInFromTrailing")
            #expect(pageAgain.url == Self.pageA && pageAgain.blocked == 2)
            #expect(proxy.requests.filter { $0.path == Self.pageA }.count == requestsOfA, "the page was not loaded again")
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

            // A swipe goes back through the restored history (WebKit's own list is empty), and the
            // Back button, the same function, on to A.
            try await browser.send("swipe back")
            let onB = try await browser.waitForPage()
            #expect(onB.url == Self.pageB && onB.historyIndex == 1)
            try await browser.send("click back")
            let onA = try await browser.waitForPage()
            #expect(onA.url == Self.pageA && onA.address == Self.pageA)
            #expect(onA.backEnabled && !onA.canGoBack && onA.forwardEnabled, "behind A, only the starter")
            #expect(onA.engineZoom == 125, "zoom applied after each load")
            #expect(onA.blocked == 2)
            #expect(
                onA.siteSummary?.recent.total == 6,
                "the site's count of the last days: this load and the first launch's two (Back from B loaded A again in a.test's view)")
            try await browser.send("screenshot \(artifacts.appendingPathComponent("page-counts.png").path)")

            // Past the first page, the starter; forward from it, the page again.
            try await browser.send("swipe back")
            #expect(try await browser.waitForPage().screen == "starter")
            try await browser.send("click forward")
            #expect(try await browser.waitForPage().screen == "page")

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

    /// The name `pepper lists add` gives the test list (its file's name, `trackers.txt`).
    static let listName = "trackers"

    /// A rule WebKit refuses (an action type it does not know), slipped into the first list of a
    /// new output generation that `out` then points to, as a broken compile or a hand edit
    /// would leave it. Returns the good and the broken manifest identifiers.
    static func slipRefusedRule(into home: URL) throws -> (good: String, broken: String) {
        let out = home.appendingPathComponent("out")
        let good = out.resolvingSymlinksInPath()
        let manifestData = try Data(contentsOf: good.appendingPathComponent("manifest.json"))
        var manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let identifier = try #require(manifest["identifier"] as? String)
        let broken = String("0badbad" + identifier.dropFirst(7))
        let folder = home.appendingPathComponent(".out.\(broken)")
        try FileManager.default.copyItem(at: good, to: folder)
        let list = folder.appendingPathComponent("blocker-1.json")
        let json = try String(contentsOf: list, encoding: .utf8)
        let refused = #"{"trigger":{"url-filter":"tracker"},"action":{"type":"explode"}}"#
        try Data(json.replacingOccurrences(of: "[", with: "[" + refused + ",", options: [], range: json.range(of: "[")).utf8).write(
            to: list)
        var files = try #require(manifest["files"] as? [[String: Any]])
        files[0]["rules"] = (files[0]["rules"] as? Int ?? 0) + 1
        manifest["files"] = files
        manifest["identifier"] = broken
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(
            to: folder.appendingPathComponent("manifest.json"))
        try point(out, at: folder)
        return (identifier, broken)
    }

    /// Points the `out` link at `folder`, atomically.
    static func point(_ out: URL, at folder: URL) throws {
        let link = out.deletingLastPathComponent().appendingPathComponent(".out.link-test")
        try? FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.lastPathComponent)
        guard rename(link.path, out.path) == 0 else { throw DriverError(message: "cannot point \(out.path) at \(folder.path)") }
    }

    /// Never fail open, in real WebKitGTK: a new output WebKit refuses leaves the last good rules
    /// in force (pages stay protected) and the failure is shown with the file and rule that broke
    /// it; without any good rules, protected pages do not load at all.
    @Test(BrowserDriver.trait) func aListWebKitRefusesKeepsTheLastGoodRulesAndIsShown() async throws {
        let display = try #require(try BrowserDriver.virtualDisplay(), "WebKitGTK and Xvfb are needed")
        let proxy = try ListServer(routes: Self.routes)
        let home = TestPaths.temporaryDirectory("browse-refused")
        defer { try? FileManager.default.removeItem(at: home) }
        let artifacts = TestPaths.artifacts.appendingPathComponent("browser")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        var transcript: [String] = []
        defer { try? Data(transcript.joined(separator: "\n").utf8).write(to: artifacts.appendingPathComponent("refused-rules.txt")) }
        let list = home.appendingPathComponent("trackers.txt")
        try Data("! Title: test trackers\n||tracker.test^\n".utf8).write(to: list)
        #expect(try await PepperProcess.run(["lists", "add", list.path], home: home).status == 0)
        func requested(_ url: String) -> Bool { proxy.requests.contains { $0.path == url } }

        // A first launch compiles and installs the good rules.
        do {
            let browser = try BrowserDriver(home: home, display: display, proxy: proxy)
            defer { transcript += browser.transcript }
            let first = try await browser.waitForPage()
            #expect(first.rulesCompiled == true && first.rulesFailure == nil)
            #expect(try await browser.quit() == 0)
        }
        let goodFolder = home.appendingPathComponent("out").resolvingSymlinksInPath()
        let (good, broken) = try Self.slipRefusedRule(into: home)

        // The next launch: WebKit refuses the new output; the previous rules stay in force.
        do {
            let browser = try BrowserDriver(home: home, display: display, proxy: proxy)
            defer { transcript += browser.transcript }
            let launched = try await browser.waitForPage()
            let failure = try #require(launched.rulesFailure, "the refused compile is reported")
            #expect(failure.identifier == broken && failure.file == "blocker-1.json" && failure.lists == [Self.listName])
            #expect(failure.rule?.number == 1 && failure.rule?.json.contains("explode") == true, "the rule that broke it: \(failure)")
            #expect(!failure.reason.isEmpty)
            #expect(launched.rulesInForce == good && launched.rulesIdentifier == good, "the last good rules")
            #expect(launched.rulesNotice?.contains("protected by the previous rules") == true)
            #expect(launched.rulesNotice?.contains("rule 1 of") == true)
            try await browser.send("suggestion duckduckgo")
            try await browser.send("open \(Self.pageA)")
            let onA = try await browser.waitForPage()
            #expect(onA.url == Self.pageA && onA.title == "Page A", "the page loads, and the tracker script did not run")
            #expect(!requested(Self.pixel) && !requested(Self.script), "protected by the last good rules")
            #expect(onA.blocked == 2 && onA.rulesNotice != nil)
            try await browser.send("screenshot \(artifacts.appendingPathComponent("rules-refused-previous-kept.png").path)")
            #expect(try await browser.quit() == 0)
        }

        // The output repaired (`out` back at the good generation): loaded from the store, no notice.
        try Self.point(home.appendingPathComponent("out"), at: goodFolder)
        do {
            let browser = try BrowserDriver(home: home, display: display, proxy: proxy)
            defer { transcript += browser.transcript }
            let repaired = try await browser.waitForPage()
            #expect(repaired.rulesFailure == nil && repaired.rulesNotice == nil && repaired.rulesInForce == good)
            #expect(repaired.rulesCompiled == false)
            #expect(try await browser.quit() == 0)
        }

        // A home whose very first output WebKit refuses: nothing to fall back to, so pages do not load.
        let fresh = TestPaths.temporaryDirectory("browse-refused-fresh")
        defer { try? FileManager.default.removeItem(at: fresh) }
        #expect(try await PepperProcess.run(["lists", "add", list.path], home: fresh).status == 0)
        _ = try Self.slipRefusedRule(into: fresh)
        proxy.clearLog()
        let browser = try BrowserDriver(home: fresh, display: display, proxy: proxy)
        defer { transcript += browser.transcript }
        let launched = try await browser.waitForPage()
        #expect(launched.rulesInForce == nil && launched.rulesFailure?.rule?.number == 1)
        #expect(launched.rulesNotice?.contains("Pages do not load") == true)
        try await browser.send("open \(Self.pageA)")
        let refused = try await browser.waitForPage()
        #expect(refused.refusedLoads >= 1)
        #expect(!requested(Self.pageA) && !requested(Self.pixel), "nothing is fetched without rules")
        #expect(refused.shield == "No rules")
        try await browser.send("screenshot \(artifacts.appendingPathComponent("rules-refused-no-page.png").path)")
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
