import FilterEngine
import FilterLists
import Foundation
import Storage
import Testing

@testable import Browsing

/// Which gesture or button does what in which state: the starter "behind" the first page, one
/// step function for buttons and swipes, swipes through the history restored after a relaunch.
@Suite("Steps, swipes and the starter")
struct StepsAndStarterTests {
    @Test func onAnEmptyHistoryTheStarterShowsAndNoStepLeadsAnywhere() throws {
        let home = TemporaryHome()
        let session = try home.session()
        #expect(session.screen == .starter && session.isShowingStartPage)
        #expect(!session.canStepBack && !session.canStepForward)
        #expect(session.step(.back) == nil && session.step(.forward) == nil)
        #expect(session.swipe(.forward, on: .starter) == nil, "no page to slide back in")
        #expect(session.swipe(.back, on: .page) == nil, "the page is not showing")

        // Typing an address slides the page in.
        let url = try #require(session.open("a.test"))
        #expect(session.screen == .page)
        var engine = FakeEngine()
        try engine.load(url, in: session)
        #expect(session.canStepBack, "from the first page, Back leads to the starter")
        #expect(!session.canGoBack, "the history itself has nothing behind")
    }

    @Test func backFromTheFirstPageSlidesTheStarterInAndForwardSlidesThePageBack() throws {
        let home = TemporaryHome()
        let session = try home.session()
        var engine = FakeEngine()
        for page in [pageA, pageB] { try engine.load(page, in: session) }

        // Back from B is a page of the history: the view stays the page.
        let toA = try #require(session.step(.back))
        #expect(toA == .navigate(.engineBack) && toA.transition == nil)
        try engine.perform(toA.command, in: session)
        #expect(session.currentURL == pageA && session.screen == .page)

        // Back from A, the first page: the starter slides in from the leading edge over it.
        let toStarter = try #require(session.swipe(.back, on: .page))
        #expect(toStarter == .showStarter && toStarter.transition == .slideInFromLeading && toStarter.command == nil)
        #expect(session.screen == .starter && session.currentURL == pageA, "the page stays loaded behind the starter")
        #expect(!session.canStepBack && session.canStepForward)
        #expect(session.swipe(.back, on: .starter) == nil, "nothing is behind the starter")
        #expect(session.swipe(.forward, on: .page) == nil, "a gesture ending on the page that slid away does nothing")
        #expect(session.history.entries.map(\.url) == [pageA, pageB], "the starter is no entry of the history")

        // Forward on the starter's own gesture: the page slides back in, without loading again.
        let toPage = try #require(session.swipe(.forward, on: .starter))
        #expect(toPage == .showPage(nil) && toPage.transition == .slideInFromTrailing)
        #expect(session.screen == .page && session.currentURL == pageA)
        // And on to B, as the Forward button does.
        #expect(session.step(.forward) == .navigate(.engineForward))
    }

    @Test func afterARelaunchSwipesAndButtonsGoThroughTheRestoredHistoryToTheStarter() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            var engine = FakeEngine()
            for page in [pageA, pageB, pageC] { try engine.load(page, in: session) }
        }
        // The app starts again with WebKit's list empty; it opens on the restored page.
        let session = try home.session()
        #expect(session.screen == .page)
        var engine = FakeEngine()
        try engine.perform(session.launch(), in: session)
        #expect(!engine.canGoBack)

        // A swipe back loads the stored entry (the engine's own swipe would find nothing).
        let swipeBack = try #require(session.swipe(.back, on: .page))
        #expect(swipeBack == .navigate(.load(pageB)))
        try engine.perform(swipeBack.command, in: session)
        // The Back button: the same function, the same decision.
        let button = try #require(session.step(.back))
        #expect(button == .navigate(.load(pageA)))
        try engine.perform(button.command, in: session)
        #expect(session.currentURL == pageA)
        // Past the first page: the starter.
        #expect(session.swipe(.back, on: .page) == .showStarter)
        #expect(session.swipe(.forward, on: .starter) == .showPage(nil))
        // Forward again through the stored history.
        let forward = try #require(session.swipe(.forward, on: .page))
        #expect(forward == .navigate(.load(pageB)))
        try engine.perform(forward.command, in: session)
        #expect(session.currentURL == pageB)
        #expect(session.history.entries.map(\.url) == [pageA, pageB, pageC])
    }

    @Test func anAddressOpenedOnTheStarterFollowsTheCoveredPage() throws {
        let home = TemporaryHome()
        let session = try home.session()
        var engine = FakeEngine()
        for page in [pageA, pageB] { try engine.load(page, in: session) }
        try engine.perform(session.step(.back)?.command, in: session)
        #expect(session.step(.back) == .showStarter)

        let url = try #require(session.open(pageD))
        #expect(session.screen == .page)
        try engine.load(url, in: session)
        #expect(session.history.entries.map(\.url) == [pageA, pageD], "as a link followed on A: what was ahead of A is dropped")
        #expect(session.step(.back) == .navigate(.engineBack))
    }

    @Test func aPageOfTheHistoryPushedBehindTheStarterDoesNotPullThePageBack() throws {
        let home = TemporaryHome()
        let session = try home.session()
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(session.step(.back) == .showStarter)
        // The hidden page pushes a history item of its own (pushState, a late redirect).
        try engine.load(pageA + "#more", in: session)
        #expect(session.screen == .starter, "only the person switches views")
    }
}

/// `RuleListSelection`: a new output replaces the rules only once it compiled; a failed one
/// leaves the last good set (kept across launches) and says which file and rule broke it;
/// without any set, protected pages are refused and allowlisted ones load.
@Suite("Rules that never fail open")
struct RulesNeverFailOpenTests {
    static let good = RuleListSelection.RuleSet(identifier: "aaaa1111", names: ["out-1-blocker-1"], rules: 120)
    static let newer = RuleListSelection.RuleSet(identifier: "bbbb2222", names: ["out-2-blocker-1", "out-2-blocker-2"], rules: 300)
    static let refused = RuleListFailure(
        identifier: "cccc3333", file: "blocker-2.json", lists: ["EasyList", "My rules"],
        rule: .init(number: 3, of: 12, json: #"{"action":{"type":"explode"},"trigger":{"url-filter":"x"}}"#),
        reason: "Invalid action type.")

    @Test func aNewOutputReplacesTheRulesOnlyOnceItCompiled() throws {
        var selection = RuleListSelection()
        #expect(selection.mayLoad(blocking: true) == .wait, "a page's first load waits for the rules")
        #expect(selection.mayLoad(blocking: false) == .load, "an allowlisted site needs no rules")

        #expect(selection.compiled(Self.good) == Self.good)
        #expect(selection.mayLoad(blocking: true) == .load)
        #expect(selection.notice == nil)

        // The next output is refused: the web view keeps what it has, and says why.
        #expect(selection.compileFailed(Self.refused) == .keep(Self.good))
        #expect(selection.lastGood == Self.good && selection.failure == Self.refused)
        #expect(selection.mayLoad(blocking: true) == .load, "pages stay protected by the last good rules")
        let notice = try #require(selection.notice)
        #expect(notice.contains("blocker-2.json") && notice.contains("rule 3 of 12") && notice.contains("Invalid action type."))
        #expect(notice.contains("EasyList, My rules"), "the lists the file was made from")
        #expect(notice.contains("protected by the previous rules") && notice.contains("120 rules"))

        // A later output compiles: it is in force, and the failure is gone.
        selection.compiled(Self.newer)
        #expect(selection.lastGood == Self.newer && selection.failure == nil && selection.notice == nil)
    }

    @Test func atALaunchAFailedCompileLoadsTheLastGoodSetKeptAcrossLaunches() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-rules-\(UUID())/installed.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(RuleListSelection.load(from: file) == nil)
        var first = RuleListSelection()
        try RuleListSelection.save(first.compiled(Self.good), to: file)

        // The next launch: nothing in the web view yet, the last good set known.
        var selection = RuleListSelection(saved: RuleListSelection.load(from: file))
        #expect(selection.lastGood == Self.good)
        #expect(selection.mayLoad(blocking: true) == .wait)
        #expect(selection.compileFailed(Self.refused) == .loadLastGood(Self.good))
        #expect(selection.mayLoad(blocking: true) == .wait, "until the last good set is in the web view")
        selection.fallbackLoaded()
        #expect(selection.mayLoad(blocking: true) == .load)
        #expect(selection.notice?.contains("protected by the previous rules") == true)
    }

    @Test func withoutALastGoodSetProtectedPagesAreRefused() throws {
        var selection = RuleListSelection()
        #expect(selection.compileFailed(Self.refused) == .refuse)
        #expect(selection.mayLoad(blocking: true) == .refuse(Self.refused))
        #expect(selection.mayLoad(blocking: false) == .load, "the person turned blocking off for that site")
        let notice = try #require(selection.notice)
        #expect(notice.contains("Pages do not load until they are") && notice.contains("blocker-2.json"))

        // A last good set the store lost behind the browser's back: nothing safe is left.
        var lost = RuleListSelection(saved: Self.good)
        #expect(lost.compileFailed(Self.refused) == .loadLastGood(Self.good))
        lost.fallbackFailed("the store no longer has them")
        let refusal: RuleListFailure? = {
            if case .refuse(let failure) = lost.mayLoad(blocking: true) { return failure }
            return nil
        }()
        #expect(try #require(refusal, "a lost fallback refuses pages").reason.contains("the store no longer has them"))
        #expect(lost.notice?.contains("cannot be loaded either") == true)
    }

    @Test func theRuleThatBreaksAListIsFoundByHalving() async throws {
        let rules = (0..<37).map { #"{"action":{"type":"block"},"trigger":{"url-filter":"r\#($0)"}}"# }
        var broken = rules
        broken[23] = #"{"action":{"type":"explode"},"trigger":{"url-filter":"bad"}}"#
        var compiles = 0
        let found = FailingRuleSearch.find(in: broken) { list in
            compiles += 1
            return list.contains("explode") ? "Invalid action type." : nil
        }
        #expect(found == FailingRuleSearch.Found(index: 23, reason: "Invalid action type."))
        #expect(compiles <= 2 * 6 + 1, "halving: \(compiles) compiles for 37 rules")

        // The asynchronous driver makes the same decisions.
        let asynchronous = await FailingRuleSearch.find(in: broken) { list in
            await Task.yield()
            return list.contains("explode") ? "Invalid action type." : nil
        }
        #expect(asynchronous == found)
        // The first and the last rule are found too.
        for index in [0, 36] {
            var list = rules
            list[index] = #"{"bad":true}"#
            #expect(FailingRuleSearch.find(in: list) { $0.contains("bad") ? "no" : nil }?.index == index)
        }
        // A list refused only as a whole (its size): no single rule is blamed.
        #expect(FailingRuleSearch.find(in: rules) { $0.count > 200 ? "too many rules" : nil } == nil)

        // A file's rules, each as its own JSON, and back.
        let json = Data(FailingRuleSearch.list(broken).utf8)
        let read = try #require(FailingRuleSearch.rules(of: json))
        #expect(read.count == 37 && read[23].contains("explode"))
        #expect(FailingRuleSearch.rules(of: Data("{\"not\":\"a list\"}".utf8)) == nil)
        let failure = FailingRuleSearch.failure(
            identifier: "cccc", file: "blocker-1.json", lists: ["test trackers"], rules: read, found: found, reason: "whole list")
        #expect(failure.rule?.number == 24 && failure.rule?.of == 37 && failure.reason == "Invalid action type.")
        #expect(failure.description.contains("blocker-1.json (compiled from test trackers): rule 24 of 37"))
    }
}

/// The count of blocked requests per site and list: what both browsers show for the current
/// site, kept in the state for the app's screen.
@Suite("Per-site counts")
struct PerSiteCountsTests {
    static func judge() throws -> FilterEngine {
        let parser = FilterListParser()
        return FilterEngine(lists: [
            try parser.parse("||ads.test^\n", name: "ads"), try parser.parse("||tracker.test^\n||pixel.test^\n", name: "trackers"),
        ])
    }

    @Test func blockedRequestsAreCountedPerSiteAndListAndKept() throws {
        let home = TemporaryHome()
        do {
            let session = try home.session()
            session.requestJudge = try Self.judge()
            var engine = FakeEngine()
            try engine.load("http://www.news.test/one", in: session)
            #expect(session.siteSummary?.site == "news.test")
            #expect(session.subresourceFailed("http://tracker.test/t.js", type: .script))
            #expect(session.subresourceFailed("http://pixel.test/p.gif", type: .image))
            #expect(session.subresourceFailed("http://ads.test/banner.png", type: .image))
            #expect(!session.subresourceFailed("http://news.test/missing.png", type: .image), "not blocked by a rule")
            let first = try #require(session.siteSummary)
            #expect(first.pageTotal == 3 && first.recent.total == 3)
            #expect(first.page == [.init(list: "trackers", count: 2), .init(list: "ads", count: 1)])
            #expect(first.line == "news.test: 3 blocked on this page (trackers 2, ads 1) · 3 in the last 7 days (trackers 2, ads 1)")

            // Another page of the same site: the page starts again, the site adds up.
            try engine.load("http://news.test/two", in: session)
            #expect(session.subresourceFailed("http://tracker.test/t.js", type: .script))
            let second = try #require(session.siteSummary)
            #expect(second.pageTotal == 1 && second.recent.total == 4)
            #expect(second.recent.lists == [.init(list: "trackers", count: 3), .init(list: "ads", count: 1)])

            // Another site has its own count.
            try engine.load("http://shop.test/", in: session)
            #expect(session.subresourceFailed("http://ads.test/a.js", type: .script))
            #expect(session.siteSummary?.recent.total == 1)
            session.recordBlockedRequests(waiting: true)
        }
        let stored = try SiteBlockCountStore(database: home.database).topSites(since: DecisionStore.day(of: Date()), limit: 10)
        #expect(stored.map(\.site) == ["news.test", "shop.test"])
        #expect(stored.first?.total == 4)

        // A relaunch: the site's count of the last days comes from the state.
        let session = try home.session()
        session.requestJudge = try Self.judge()
        var engine = FakeEngine()
        try engine.load("http://news.test/three", in: session)
        #expect(session.siteSummary?.pageTotal == 0)
        #expect(session.siteSummary?.recent.total == 4)
        #expect(session.subresourceFailed("http://ads.test/x.png", type: .image))
        #expect(session.siteSummary?.recent.lists == [.init(list: "trackers", count: 3), .init(list: "ads", count: 2)])
        try engine.load("file:///tmp/page.html", in: session)
        #expect(session.siteSummary == nil, "a page without a site")
    }

    @Test func withoutTheFilterEngineNothingIsCountedAndTheReasonIsSaid() throws {
        let home = TemporaryHome()
        let session = try home.session()
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(session.countsProblem != nil)
        #expect(!session.subresourceFailed("http://tracker.test/t.js"), "no count that means something else than with the engine")
        session.use(RequestJudge(engine: .failure(.storage("cannot build the filter engine: disk on fire"))))
        #expect(session.countsProblem?.contains("disk on fire") == true)
        session.use(RequestJudge(engine: .success(try Self.judge())))
        #expect(session.countsProblem == nil)
        #expect(session.subresourceFailed("http://tracker.test/t.js"))
    }

    @Test func theLoadedJudgeIsTheStatesEngine() async throws {
        let home = TemporaryHome()
        _ = try await home.state.addRule("||tracker.test^")
        let session = try home.session()
        session.use(RequestJudge.load(home.state))
        #expect(session.countsProblem == nil)
        var engine = FakeEngine()
        try engine.load(pageA, in: session)
        #expect(session.subresourceFailed("http://tracker.test/t.js", type: .script))
        #expect(!session.subresourceFailed("http://cdn.test/lib.js", type: .script))
        #expect(session.blocked.rules["http://tracker.test/t.js"]?.text == "||tracker.test^")
    }

    @Test func thePageScriptsMessagesAreRead() {
        #expect(PageScript.message("script http://tracker.test/t.js") == .failed(url: "http://tracker.test/t.js", type: .script))
        #expect(PageScript.message("image https://a.test/x y.png") == .failed(url: "https://a.test/x y.png", type: .image))
        #expect(PageScript.message("weird http://a.test/") == .failed(url: "http://a.test/", type: .other))
        #expect(PageScript.message(PageScript.restoredMessage) == .restoredFromCache)
        #expect(PageScript.message("pepper:picket-proceed") == nil)
        #expect(PageScript.message("image javascript:alert(1)") == nil)
    }
}
