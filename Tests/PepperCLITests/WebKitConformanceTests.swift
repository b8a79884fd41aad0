import AppExtensionSupport
import ContentBlocker
import Foundation
import PepperTestSupport
import Testing

/// WebKit itself judges the compiled output: it must accept every list, and pages must behave
/// as the filter rules say.
@Suite("Real WebKit judges the output", .serialized, .enabled(if: WebKitJudge.enabled, "WebKitGTK 4.1 is not installed"))
struct WebKitConformanceTests {
    /// The Apple app's content-blocker slots without a list of their own return a one-rule list:
    /// WebKit refuses an empty one ("Empty extension."), and accepts that one.
    @Test func theAppsUnusedSlotListCompilesWhereAnEmptyListIsRefused() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let folder = TestPaths.temporaryDirectory("unused-slot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let unused = try ContentBlockerAttachment.unusedSlotFile(in: AppGroupContainer(url: folder))
        let empty = folder.appendingPathComponent("empty.json")
        try Data("[]".utf8).write(to: empty)
        let results = try await WebKitJudge.compile([unused, empty])
        #expect(results.map(\.ok) == [true, false], "\(results.map { $0.error ?? "ok" })")
    }

    @Test(.timeLimit(.minutes(5)))
    func easyListAndEasyPrivacyCompileInWebKitAndAreDeterministic() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let lists = ["easylist.txt", "easyprivacy.txt"].map { TestPaths.filters.appendingPathComponent($0).path }
        let first = home.appendingPathComponent("first")
        let second = home.appendingPathComponent("second")
        for output in [first, second] {
            let outcome = try await PepperProcess.run(["compile"] + lists + ["--output", output.path], home: home)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        let manifest = try Manifest.decode(Data(contentsOf: first.appendingPathComponent("manifest.json")))
        #expect(manifest.sources.count == 2)
        #expect(manifest.sources[0].skipped["procedural-cosmetic", default: 0] > 0)
        #expect(manifest.sources[1].skipped["scriptlet", default: 0] > 0)
        let total = manifest.files.reduce(0) { $0 + $1.rules }
        #expect(total > 90_000 && total <= 112_555, "rule count \(total)")

        let files = manifest.files.map { first.appendingPathComponent($0.path) }
        for file in files {
            let copy = second.appendingPathComponent(file.lastPathComponent)
            #expect(try Data(contentsOf: file) == Data(contentsOf: copy), "\(file.lastPathComponent) differs between runs")
            #expect(try Data(contentsOf: file).count < 19_000_000)
        }
        #expect(try Data(contentsOf: first.appendingPathComponent("manifest.json")).count > 0)

        let results = try await WebKitJudge.compile(files)
        #expect(results.count == files.count)
        for result in results {
            #expect(result.ok, "WebKit rejected \(result.file): \(result.error ?? "")")
        }

        // WebKit drops a hiding rule whose selector it cannot parse, silently: every selector
        // group must parse in WebKit's own CSS parser.
        let selectors = try await WebKitJudge.checkSelectors(files)
        #expect(selectors.checked > 1_000)
        #expect(selectors.rejected.isEmpty, "WebKit rejects: \(selectors.rejected.prefix(5))")
    }

    @Test(.timeLimit(.minutes(5)))
    func listsOverTheLimitAreSplitAndEveryPartCompiles() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = home.appendingPathComponent("generated.txt")
        var text = (0..<160_000).map { "||host\($0).tracker-\($0 % 97).example^" }.joined(separator: "\n")
        text += "\n@@||host5.tracker-5.example/ok\n##.ad\n"
        try Data(text.utf8).write(to: list)
        let output = home.appendingPathComponent("out")
        let outcome = try await PepperProcess.run(["compile", list.path, "--output", output.path], home: home)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let manifest = try Manifest.decode(Data(contentsOf: output.appendingPathComponent("manifest.json")))
        // 160,000 blocks need two request lists; the hiding rule gets a list of its own.
        #expect(manifest.files.count == 3)
        #expect(manifest.files.allSatisfy { $0.rules <= 150_000 })
        let results = try await WebKitJudge.compile(manifest.files.map { output.appendingPathComponent($0.path) })
        for result in results {
            #expect(result.ok, "WebKit rejected \(result.file): \(result.error ?? "")")
        }
        // The control: one more rule than WebKit allows in one list is refused by WebKit itself.
        let unsplit = home.appendingPathComponent("unsplit.json")
        let rules = (0..<150_001).map { WebKitRule(trigger: .init(urlFilter: "x\($0)"), action: .block) }
        try Data(WebKitRuleJSON.encode(rules)).write(to: unsplit)
        let refused = try await WebKitJudge.compile([unsplit])
        #expect(refused.first?.ok == false)
    }

    @Test(.timeLimit(.minutes(5)))
    func pagesBehaveAsTheRulesSay() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = home.appendingPathComponent("rules.txt")
        try """
        ! Test list for the WebKit page test
        ||ads.test^
        ||tracker.test^$third-party
        /banner/*$image
        ||cdn.test/ads/*
        @@||cdn.test/ads/allowed.js
        /popunder.js$script,domain=site.test
        ||media.test^$domain=site.test|~quiet.site.test
        ##.ad-slot
        ##.promo
        news.test#@#.promo
        shop.test##.shop-ad
        @@||exempt.test^$elemhide
        """.write(to: list, atomically: true, encoding: .utf8)
        let output = home.appendingPathComponent("out")
        let compiled = try await PepperProcess.run(["compile", list.path, "--allow", "friendly.test", "--output", output.path], home: home)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let manifest = try Manifest.decode(Data(contentsOf: output.appendingPathComponent("manifest.json")))

        func page(_ host: String, _ extra: String = "") -> WebKitJudge.Site {
            WebKitJudge.Site(
                body: """
                    <html><body>
                    <div id="content">content</div>
                    <div class="ad-slot" id="slot">ad</div>
                    <div class="promo" id="promo">promo</div>
                    <div class="shop-ad" id="shopad">shop ad</div>
                    <script src="http://ads.test/\(host)/a.js"></script>
                    <img src="http://tracker.test/\(host)/p.gif">
                    <img src="http://\(host)/banner/1.png">
                    <img src="http://\(host)/ok.png">
                    <script src="http://cdn.test/ads/\(host)/x.js"></script>
                    <script src="http://cdn.test/ads/allowed.js?from=\(host)"></script>
                    <script src="http://\(host)/popunder.js"></script>
                    <img src="http://media.test/\(host)/m.gif">
                    \(extra)
                    </body></html>
                    """)
        }
        let hosts = ["site.test", "quiet.site.test", "tracker.test", "news.test", "shop.test", "exempt.test", "friendly.test"]
        var sites: [String: WebKitJudge.Site] = [:]
        for host in hosts { sites["http://\(host)/"] = page(host) }
        let checks = ["#content", "#slot", "#promo", "#shopad"]
        let scenario = WebKitJudge.Scenario(
            rules: manifest.files.map { output.appendingPathComponent($0.path).path },
            sites: sites,
            visits: hosts.map { WebKitJudge.Visit(url: "http://\($0)/", checks: checks) })
        let result = try await WebKitJudge.browse(scenario, artifactName: "page-behaviour")
        let requested = Set(result.requests)
        func fetched(_ url: String) -> Bool { requested.contains(url) }
        func element(_ host: String, _ selector: String) -> WebKitJudge.ElementState? {
            result.visits.first { $0.url == "http://\(host)/" }?.elements[selector]
        }
        #expect(result.visits.allSatisfy { $0.finished && $0.error == nil })

        // Blocked requests are not made; others are.
        #expect(!fetched("http://ads.test/site.test/a.js"))
        #expect(!fetched("http://site.test/banner/1.png"))
        #expect(fetched("http://site.test/ok.png"))
        #expect(!fetched("http://cdn.test/ads/site.test/x.js"))
        #expect(fetched("http://cdn.test/ads/allowed.js?from=site.test"), "@@ exception un-blocks")
        // $third-party: blocked from other sites, allowed on the tracker's own site.
        #expect(!fetched("http://tracker.test/site.test/p.gif"))
        #expect(fetched("http://tracker.test/tracker.test/p.gif"))
        // $domain: only on site.test (and not on its excluded subdomain for the mixed rule).
        #expect(!fetched("http://site.test/popunder.js"))
        #expect(fetched("http://news.test/popunder.js"))
        #expect(!fetched("http://media.test/site.test/m.gif"))
        #expect(fetched("http://media.test/quiet.site.test/m.gif"))
        #expect(fetched("http://media.test/news.test/m.gif"))

        // Element hiding, #@# and $elemhide exceptions.
        #expect(element("site.test", "#content") == .init(found: 1, visible: 1))
        #expect(element("site.test", "#slot") == .init(found: 1, visible: 0))
        #expect(element("site.test", "#promo") == .init(found: 1, visible: 0))
        #expect(element("news.test", "#promo") == .init(found: 1, visible: 1), "#@# un-hides")
        #expect(element("news.test", "#slot") == .init(found: 1, visible: 0))
        #expect(element("shop.test", "#shopad") == .init(found: 1, visible: 0))
        #expect(element("site.test", "#shopad") == .init(found: 1, visible: 1))
        #expect(element("exempt.test", "#slot") == .init(found: 1, visible: 1), "$elemhide exception")

        // The allowlisted site loads everything and hides nothing.
        #expect(fetched("http://ads.test/friendly.test/a.js"))
        #expect(fetched("http://tracker.test/friendly.test/p.gif"))
        #expect(fetched("http://friendly.test/banner/1.png"))
        #expect(element("friendly.test", "#slot") == .init(found: 1, visible: 1))
    }

    /// A home with only the given TDS file as its list, compiled by `pepper lists add`.
    func homeWithTrackerRadar(_ file: URL) async throws -> URL {
        let home = TestPaths.temporaryDirectory("home")
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        let added = try await PepperProcess.run(["lists", "add", file.path, "--format", "tds", "--name", "tds"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        let compiled = try await PepperProcess.run(["compile"], home: home)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        return home
    }

    func outputFiles(_ home: URL) throws -> [URL] {
        let out = home.appendingPathComponent("out")
        return try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json"))).files.map {
            out.appendingPathComponent($0.path)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func trackerRadarTrackersAreBlockedAsThirdPartyOnly() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = try await homeWithTrackerRadar(
            TestPaths.repository.appendingPathComponent("Tests/FilterListsTests/Fixtures/tds-fixture.json"))
        defer { try? FileManager.default.removeItem(at: home) }
        let files = try outputFiles(home)
        #expect(try await WebKitJudge.compile(files).allSatisfy(\.ok))

        let resources = [
            "http://tracker.test/t.js", "http://tracker.test/allowed/ok.js", "http://widgets.test/track.js", "http://widgets.test/other.js",
            "http://metrics.site.test/collect.js", "http://order.test/blocked-first/x.js", "http://order.test/other.js",
            "http://tracker.test/pixel.gif",
        ]
        func page(_ tag: String) async -> WebKitJudge.Site {
            WebKitJudge.Site(
                body: "<html><body>" + resources.map { "<script src=\"\($0)?from=\(tag)\"></script>" }.joined() + "</body></html>")
        }
        let scenario = WebKitJudge.Scenario(
            rules: files.map(\.path),
            sites: await [
                "http://site.test/": page("site"), "http://trackerco.test/": page("owner"), "http://partner.test/": page("partner"),
            ],
            visits: [
                WebKitJudge.Visit(url: "http://site.test/"), WebKitJudge.Visit(url: "http://trackerco.test/"),
                WebKitJudge.Visit(url: "http://partner.test/"),
            ])
        let result = try await WebKitJudge.browse(scenario, artifactName: "tds-fixture")
        let requested = Set(result.requests)
        func fetched(_ url: String, _ tag: String) -> Bool { requested.contains("\(url)?from=\(tag)") }

        // On another site: third-party tracker requests are blocked.
        #expect(!fetched("http://tracker.test/t.js", "site"), "default block")
        #expect(fetched("http://tracker.test/allowed/ok.js", "site"), "an ignore rule listed first wins")
        #expect(!fetched("http://widgets.test/track.js", "site"), "a rule of an ignore tracker")
        #expect(fetched("http://widgets.test/other.js", "site"), "an ignore tracker blocks only its rules")
        #expect(!fetched("http://metrics.site.test/collect.js", "site"), "a CNAME-cloaked tracker, even as first party")
        #expect(!fetched("http://order.test/blocked-first/x.js", "site"), "a block rule listed first wins over a later ignore")
        #expect(fetched("http://order.test/other.js", "site"))
        // A rule's exception on a default-block tracker: the excepted site loads that resource
        // (the tracker-wide block must not stop it), every other site does not, and the rest of
        // the tracker stays blocked on the excepted site.
        #expect(fetched("http://tracker.test/pixel.gif", "partner"), "the rule's exception wins over the tracker's default block")
        #expect(!fetched("http://tracker.test/pixel.gif", "site"))
        #expect(!fetched("http://tracker.test/t.js", "partner"))
        // On the owner's own site: allowed (the parent entity's sites count too).
        #expect(fetched("http://tracker.test/t.js", "owner"))
        #expect(fetched("http://widgets.test/track.js", "owner"))
    }

    static let realTDS = TestData.trackerRadar

    @Test(.timeLimit(.minutes(5)))
    func realTrackerRadarCompilesAndBlocksGoogleAnalyticsOnlyAsThirdParty() async throws {
        try #require(WebKitJudge.ready(), "WebKitGTK 4.1 with python3-gi is needed")
        let home = try await homeWithTrackerRadar(Self.realTDS)
        defer { try? FileManager.default.removeItem(at: home) }
        let files = try outputFiles(home)
        let compiled = try await WebKitJudge.compile(files)
        let accepted = compiled.allSatisfy { $0.ok }
        #expect(accepted, "\(compiled.compactMap(\.error))")
        let script = "http://www.google-analytics.com/analytics.js"
        let body = "<html><body><script src=\"\(script)\"></script></body></html>"
        let scenario = WebKitJudge.Scenario(
            rules: files.map(\.path),
            sites: ["http://news.site.test/": .init(body: body), "http://www.google.com/": .init(body: body)],
            visits: [.init(url: "http://news.site.test/"), .init(url: "http://www.google.com/")])
        let result = try await WebKitJudge.browse(scenario, artifactName: "tds-real")
        #expect(result.requests.filter { $0 == script }.count == 1, "fetched on google.com (same owner) only: \(result.requests)")
        #expect(result.requests.contains("http://www.google.com/"))
    }
}
