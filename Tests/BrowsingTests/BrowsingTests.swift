import FilterEngine
import FilterLists
import Foundation
import PepperActions
import Storage
import Testing

@testable import Browsing

/// A fresh Pepper home with its database, removed at the end of the test.
final class TemporaryHome {
    let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-browse-\(UUID())"))
    /// Real rebuilds of the home's output, counted.
    let rebuilds = Counter()
    private(set) lazy var state: PepperState = {
        let counter = rebuilds
        return try! PepperState(home: home, configuration: .init(afterPublish: [{ _, _ in counter.increment() }]))
    }()
    var database: PepperDatabase { state.database }

    /// A session of this home, as a new launch opens it.
    func session(capacity: Int = NavigationHistory.defaultCapacity) throws -> BrowserSession {
        try BrowserSession(state: state, historyCapacity: capacity)
    }

    deinit { try? FileManager.default.removeItem(at: home.url) }
}

/// A thread-safe count of calls.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

let pageA = "http://a.test/"
let pageB = "http://b.test/"
let pageC = "http://c.test/"
let pageD = "http://d.test/"

/// A filter engine that blocks `tracker.test`, from a list named `trackers`.
func trackerJudge() throws -> FilterEngine {
    FilterEngine(lists: [try FilterListParser().parse("||tracker.test^\n", name: "trackers")])
}

@Suite("Navigation history")
struct NavigationHistoryTests {
    @Test func startPageUntilTheFirstLoad() throws {
        let home = TemporaryHome()
        let session = try home.session()
        #expect(session.isShowingStartPage)
        #expect(session.launch() == nil)
        #expect(!session.canGoBack && !session.canGoForward)
        #expect(session.goBack() == nil && session.goForward() == nil)
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(!session.isShowingStartPage)
        #expect(session.currentURL == pageA)
        #expect(!session.canGoBack)
    }

    @Test func backAndForwardWithinOneRunUseTheEngineList() throws {
        let home = TemporaryHome()
        let session = try home.session()
        var engine = FakeEngine()
        for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
        #expect(session.canGoBack && !session.canGoForward)

        let back = session.goBack()
        #expect(back == .engineBack)
        try engine.perform(back, in: session)
        #expect(session.currentURL == pageB)
        #expect(session.canGoBack && session.canGoForward)

        try engine.perform(session.goBack(), in: session)
        #expect(session.currentURL == pageA)
        #expect(!session.canGoBack && session.canGoForward)
        #expect(session.goBack() == nil)

        let forward = session.goForward()
        #expect(forward == .engineForward)
        try engine.perform(forward, in: session)
        #expect(session.currentURL == pageB)

        // A new page drops what was ahead, as every browser does.
        try engine.load(pageD, in: session)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageD])
        #expect(!session.canGoForward)
        #expect(session.goBack() == .engineBack)
    }

    @Test func relaunchRestoresTheCurrentPageAndBackWorksWithAnEmptyEngineList() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
            try session.titleChanged("Page C")
        }

        // The app starts again: the engine's list is empty.
        let session = try home.session()
        var engine = FakeEngine()
        #expect(session.currentURL == pageC)
        #expect(session.currentTitle == "Page C")
        #expect(session.canGoBack, "the Back button is enabled before the engine loaded anything")
        let launch = session.launch()
        #expect(launch == .load(pageC))
        try engine.perform(launch, in: session)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageC], "restoring the page is not a new entry")
        #expect(!engine.canGoBack)

        // Back twice lands on A, loading the stored entries.
        let firstBack = session.goBack()
        #expect(firstBack == .load(pageB))
        try engine.perform(firstBack, in: session)
        #expect(session.currentURL == pageB)
        #expect(engine.canGoBack, "the engine can go back, but to C: its list no longer mirrors the history")
        let secondBack = session.goBack()
        #expect(secondBack == .load(pageA))
        try engine.perform(secondBack, in: session)
        #expect(session.currentURL == pageA)
        #expect(!session.canGoBack && session.canGoForward)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageC])

        // Forward again goes through the stored list too, to B and C.
        try engine.perform(session.goForward(), in: session)
        #expect(session.currentURL == pageB)
        try engine.perform(session.goForward(), in: session)
        #expect(session.currentURL == pageC)
        #expect(!session.canGoForward)
    }

    @Test func theEngineListIsUsedAgainForPagesVisitedAfterARelaunch() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
        }
        let session = try home.session()
        var engine = FakeEngine()
        try engine.perform(session.launch(), in: session)
        try engine.perform(session.goBack(), in: session)  // stored: B
        try engine.load(pageD, in: session)  // a link on B
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageD])
        #expect(session.goBack() == .engineBack, "B is the engine's back item now")
        try engine.perform(.engineBack, in: session)
        #expect(session.currentURL == pageB)
        #expect(session.goBack() == .load(pageA), "A is only in the stored list")
    }

    @Test func openingAnAddressAtLaunchAddsItAfterTheRestoredPage() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
            try engine.perform(session.goBack(), in: session)
        }
        let session = try home.session()
        var engine = FakeEngine()
        #expect(session.currentURL == pageB)
        let launch = session.launch(opening: pageD)
        #expect(launch == .load(pageD))
        try engine.perform(launch, in: session)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageD])
        #expect(session.goBack() == .load(pageB), "B was never loaded in this run")
    }

    @Test func aRedirectedStoredEntryKeepsItsPlace() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
        }
        let session = try home.session()
        var engine = FakeEngine()
        engine.redirects[pageB] = "https://b.test/"
        try engine.perform(session.launch(), in: session)
        try engine.perform(session.goBack(), in: session)
        #expect(session.history.entries.map(\.url) == [pageA, "https://b.test/", pageC])
        #expect(session.history.currentIndex == 1)
    }

    @Test func aPageHistoryMoveOutsideTheMirrorIsANewPage() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
        }
        let session = try home.session()
        var engine = FakeEngine()
        try engine.perform(session.launch(), in: session)
        try engine.perform(session.goBack(), in: session)  // engine: [C, B]
        // The page calls history.back(): the engine shows C, which the history has ahead.
        try engine.move(-1, in: session)
        #expect(session.currentURL == pageC)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageC])
        #expect(session.goBack() == .load(pageB))
    }

    @Test func aSecondStepWhileAStoredEntryLoadsGoesOnFromIt() throws {
        var history = NavigationHistory(entries: [pageA, pageB, pageC].map { HistoryEntry(url: $0) }, currentIndex: 2)
        #expect(history.launchCommand() == .load(pageC))
        history.engineAddedItem(url: pageC)
        #expect(history.goBack() == .load(pageB))
        #expect(history.goBack() == .load(pageA), "pressed twice before B committed")
        history.engineAddedItem(url: pageA)
        #expect(history.currentIndex == 0)
    }

    @Test func anotherNavigationCancelsAPendingStoredLoad() throws {
        var restored = NavigationHistory(entries: [pageA, pageB].map { HistoryEntry(url: $0) }, currentIndex: 1)
        _ = restored.launchCommand()
        restored.engineAddedItem(url: pageB)
        #expect(restored.goBack() == .load(pageA))
        // A link clicked before A committed: the engine adds D, not A.
        restored.engineAddedItem(url: pageD)
        #expect(restored.entries.map(\.url) == [pageA, pageB, pageD])
        #expect(restored.currentIndex == 2)
        #expect(restored.pending == nil)
    }

    @Test func theHistoryKeepsAtMostItsCapacity() throws {
        let home = TemporaryHome()
        let session = try home.session(capacity: 3)
        var engine = FakeEngine()
        for page in [pageA, pageB, pageC, pageD] { try engine.load(page, in: session) }
        #expect(session.history.entries.map(\.url) == [pageB, pageC, pageD])
        try engine.perform(session.goBack(), in: session)
        try engine.perform(session.goBack(), in: session)
        #expect(session.currentURL == pageB)
        #expect(!session.canGoBack)
        #expect(NavigationHistory(entries: [], currentIndex: 5).currentIndex == nil)
        #expect(NavigationHistory(entries: [HistoryEntry(url: pageA)], currentIndex: 5).currentIndex == 0)
    }

    @Test func theStoreRoundTripsEntriesTitlesAndPosition() throws {
        let home = TemporaryHome()
        let store = BrowserStateStore(database: home.database)
        #expect(try store.history() == .init(entries: [], currentIndex: nil))
        let history = BrowserStateStore.History(
            entries: [.init(url: pageA, title: "A"), .init(url: pageB, title: "B — “quoted”"), .init(url: pageC, title: "")],
            currentIndex: 1)
        try store.save(history)
        #expect(try BrowserStateStore(database: PepperDatabase(home: home.home)).history() == history)
        try store.save(.init(entries: [.init(url: pageD, title: "")], currentIndex: 0))
        #expect(try store.history().entries.map(\.url) == [pageD])
        try store.setSetting("k", "v")
        #expect(try store.setting("k") == "v")
        try store.setSetting("k", nil)
        #expect(try store.setting("k") == nil)
    }
}

@Suite("Zoom, search, blocking")
struct BrowsingSettingsTests {
    @Test func zoomStepsLikeSafari() {
        var zoom = PageZoom.actualSize
        var ups: [Int] = []
        while zoom.canZoomIn {
            zoom = zoom.zoomedIn
            ups.append(zoom.percent)
        }
        #expect(ups == [115, 125, 150, 175, 200, 250, 300])
        #expect(zoom.zoomedIn == zoom)
        zoom = .actualSize
        var downs: [Int] = []
        while zoom.canZoomOut {
            zoom = zoom.zoomedOut
            downs.append(zoom.percent)
        }
        #expect(downs == [85, 75, 50])
        #expect(zoom.zoomedOut == zoom)
        #expect(PageZoom(factor: 1.3).percent == 125)
        #expect(PageZoom(factor: .nan) == .actualSize)
        #expect(PageZoom(stored: "1.5")?.description == "150%")
        #expect(PageZoom(stored: "big") == nil)
    }

    @Test func zoomIsPersistedForTheDevice() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            #expect(session.zoom == .actualSize)
            try session.zoomIn()
            try session.zoomIn()
            #expect(session.zoom.percent == 125)
        }
        do {
            let session = try home.session()
            #expect(session.zoom.percent == 125)
            try session.zoomOut()
            #expect(session.zoom.percent == 115)
        }
        let session = try home.session()
        #expect(session.zoom.percent == 115)
        try session.resetZoom()
        #expect(try home.session().zoom == .actualSize)
    }

    @Test func addressBarTellsAddressesFromSearches() {
        let cases: [(String, AddressInput?)] = [
            ("example.com", .address("https://example.com")),
            ("news.example.org/a?b=c", .address("https://news.example.org/a?b=c")),
            ("http://a.test/", .address("http://a.test/")),
            ("HTTPS://Example.com", .address("HTTPS://Example.com")),
            ("localhost:8080/x", .address("http://localhost:8080/x")),
            ("127.0.0.1", .address("http://127.0.0.1")),
            ("intranet:8000", .address("https://intranet:8000")),
            ("about:blank", .address("about:blank")),
            ("swift concurrency", .search("swift concurrency")),
            ("weather", .search("weather")),
            ("what is 3.5", .search("what is 3.5")),
            ("v1.2", .search("v1.2")),
            ("a:b", .search("a:b")),
            ("   ", nil),
        ]
        for (text, expected) in cases {
            #expect(AddressInput(text) == expected, "\(text)")
        }
        #expect(AddressInput("café & co")?.url(searchingWith: .duckDuckGo) == "https://duckduckgo.com/?q=caf%C3%A9%20%26%20co")
        #expect(AddressInput("x y")?.url(searchingWith: .startpage) == "https://www.startpage.com/do/search?q=x%20y")
    }

    @Test func theSearchSuggestionIsShownOnceAndItsAnswerKept() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            #expect(session.searchEngine == .duckDuckGo)
            #expect(session.shouldSuggestSearchEngine)
            #expect(session.open("pepper browser") == "https://duckduckgo.com/?q=pepper%20browser")
        }
        do {
            let session = try home.session()
            #expect(session.shouldSuggestSearchEngine, "not answered yet: shown again")
            try session.answerSearchSuggestion(using: .brave)
        }
        let session = try home.session()
        #expect(!session.shouldSuggestSearchEngine)
        #expect(session.searchEngine == .brave)
        #expect(session.open("x") == "https://search.brave.com/search?q=x")
    }

    @Test func theShieldTogglesTheSiteInTheAllowlistAndRebuilds() async throws {
        let home = TemporaryHome()
        let session = try home.session()
        let allowlist = AllowlistStore(database: home.database)
        await #expect(throws: BrowsingError.notASite("the start page")) { try await session.toggleBlocking() }
        var engine = FakeEngine()
        try engine.load("https://www.Example.com/page", in: session)
        #expect(session.canToggleBlocking)
        #expect(try session.isBlockingCurrentSite())

        #expect(try await session.toggleBlocking() == false)
        #expect(try allowlist.domains() == ["example.com"])
        #expect(home.rebuilds.value == 1)
        #expect(home.state.manifest()?.allowlist == ["example.com"], "the output was rebuilt with the site allowlisted")
        #expect(try !session.isBlockingCurrentSite())

        #expect(try await session.toggleBlocking() == true)
        #expect(try allowlist.domains() == [])
        #expect(home.rebuilds.value == 2)
        #expect(home.state.manifest()?.allowlist == [])

        // A page under an allowlisted parent domain: turning blocking on removes the parent.
        try allowlist.add("example.org")
        try engine.load("https://news.example.org/", in: session)
        #expect(try !session.isBlockingCurrentSite())
        #expect(try await session.toggleBlocking())
        #expect(try allowlist.domains() == [])

        try engine.load("about:blank", in: session)
        #expect(!session.canToggleBlocking)
        await #expect(throws: BrowsingError.self) { try await session.toggleBlocking() }
    }

    @Test func aFailedRebuildIsReported() async throws {
        let home = TemporaryHome()
        let session = try home.session()
        // The output cannot be published: a file stands where its folder should be.
        try? FileManager.default.removeItem(at: home.home.outputURL)
        try Data("not a folder".utf8).write(to: home.home.outputURL)
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        await #expect {
            try await session.toggleBlocking()
        } throws: { error in
            guard case .some(.rebuild(let reason)) = error as? BrowsingError else { return false }
            return !reason.isEmpty
        }
    }

    @Test func sitesOfPages() {
        #expect(SiteBlocking.site(of: "https://www.example.com/x") == "example.com")
        #expect(SiteBlocking.site(of: "http://A.Test:8080/") == "a.test")
        #expect(SiteBlocking.site(of: "https://bücher.example/") == "xn--bcher-kva.example")
        #expect(SiteBlocking.site(of: "about:blank") == nil)
        #expect(SiteBlocking.site(of: "file:///tmp/x.html") == nil)
    }

    @Test func blockedRequestsAreWrittenToTheStatePerPageOffTheWindowThread() throws {
        let home = TemporaryHome()
        let session = try home.session()
        session.requestJudge = try trackerJudge()
        let decisions = DecisionStore(database: home.database)
        func written() throws -> Int { try decisions.counts(.web).map(\.count).reduce(0, +) }
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(session.subresourceFailed("http://tracker.test/t.js"))
        #expect(session.subresourceFailed("http://tracker.test/p.gif"))
        session.recordBlockedRequests(waiting: true)
        #expect(try written() == 2)

        // Gathered while the page shows; written when the next page commits.
        #expect(session.subresourceFailed("http://tracker.test/other.js"))
        #expect(try written() == 2, "not one write per blocked request")
        try engine.load(pageB, in: session)
        session.recordBlockedRequests(waiting: true)
        #expect(try written() == 3)

        // A page that blocks more than a batch writes as it goes, and nothing is lost.
        for index in 0..<(BrowserSession.blockedRequestsPerWrite + 5) {
            #expect(session.subresourceFailed("http://tracker.test/\(index).js"))
        }
        session.recordBlockedRequests(waiting: true)
        #expect(try written() == 3 + BrowserSession.blockedRequestsPerWrite + 5)
        #expect(
            try decisions.recent(.web, limit: 1).first?.subject == "http://tracker.test/\(BrowserSession.blockedRequestsPerWrite + 4).js")
    }

    @Test func blockedRequestsAreFailuresThatNeverStarted() throws {
        let home = TemporaryHome()
        let session = try home.session()
        session.requestJudge = try trackerJudge()
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        session.resourceStarted("http://tracker.test/started.png")
        #expect(
            !session.subresourceFailed("http://tracker.test/started.png"),
            "WebKit started loading it (the engine and WebKit disagree): not counted where the engine reports loads")
        #expect(!session.subresourceFailed("http://a.test/missing.png"), "a 404 the rules do not block: not counted")
        #expect(session.subresourceFailed("http://tracker.test/t.js"))
        #expect(!session.subresourceFailed("http://tracker.test/t.js#again"), "counted once")
        #expect(session.subresourceFailed("http://tracker.test/p.gif"))
        #expect(session.blockedCount == 2)
        try engine.load(pageB, in: session)
        #expect(session.blockedCount == 0)

        // Back to A from the engine's page cache: nothing loads, the page says it was restored.
        try engine.move(-1, in: session)
        #expect(session.blockedCount == 0)
        session.pageRestoredFromCache()
        #expect(session.blockedCount == 2)
        #expect(session.blocked.blocked == ["http://tracker.test/t.js", "http://tracker.test/p.gif"])
        try engine.move(1, in: session)
        session.pageRestoredFromCache()
        #expect(session.blockedCount == 0, "B blocked nothing")
    }

    @Test func withTheFilterEngineOnlyBlockedFailuresCountAndTheirRulesAreKept() throws {
        let home = TemporaryHome()
        let session = try home.session()
        let list = try FilterListParser().parse("||tracker.test^\n/ads/*$image\n@@||tracker.test/ok.js\n", name: "mine")
        session.requestJudge = FilterEngine(lists: [list])
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(session.subresourceFailed("http://tracker.test/t.js", type: .script))
        #expect(session.subresourceFailed("http://a.test/ads/1.png", type: .image))
        #expect(!session.subresourceFailed("http://a.test/ads/1.js", type: .script), "the image rule does not block scripts")
        #expect(!session.subresourceFailed("http://tracker.test/ok.js", type: .script), "an exception: failed for another reason")
        #expect(!session.subresourceFailed("http://cdn.test/lib.js", type: .script), "mixed content, CSP…: not the blocker")
        #expect(session.blockedCount == 2)
        #expect(session.blocked.rules["http://tracker.test/t.js"] == MatchedRule(text: "||tracker.test^", list: "mine", line: 1))
        #expect(session.blocked.rules["http://a.test/ads/1.png"]?.line == 2)

        // The rules come back with the count for a page restored from the page cache.
        try engine.load(pageB, in: session)
        #expect(session.blocked.rules.isEmpty)
        try engine.move(-1, in: session)
        session.pageRestoredFromCache()
        #expect(session.blocked.rules["http://tracker.test/t.js"]?.text == "||tracker.test^")
    }

    @Test func rememberedCountsAreBounded() {
        var requests = BlockedRequests()
        for page in 0...BlockedRequests.rememberedPages {
            requests.pageCommitted(url: "http://p\(page).test/")
            requests.subresourceFailed("http://tracker.test/\(page)")
        }
        requests.pageCommitted(url: "http://p0.test/")
        requests.pageRestoredFromCache()
        #expect(requests.count == 0, "the oldest page was forgotten")
        requests.pageCommitted(url: "http://p1.test/")
        requests.pageRestoredFromCache()
        #expect(requests.count == 1)
    }

    @Test func swipes() {
        var tracker = SwipeTracker()
        for _ in 0..<10 {
            let consumed = tracker.scroll(dx: -2, dy: 0.1)
            #expect(consumed)
        }
        #expect(tracker.end() == .back)
        for _ in 0..<10 { _ = tracker.scroll(dx: 2, dy: 0) }
        #expect(tracker.end() == .forward)
        _ = tracker.scroll(dx: -2, dy: 0)
        #expect(tracker.end() == nil, "too short")
        for _ in 0..<10 {
            let consumed = tracker.scroll(dx: 0.5, dy: 3)
            #expect(!consumed)
        }
        #expect(tracker.end() == nil, "a vertical scroll")
    }
}
