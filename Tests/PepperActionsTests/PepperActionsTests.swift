import ContentBlocker
import FilterEngine
import FilterLists
import Foundation
import ListSync
import PepperTestSupport
import Storage
import Testing

@testable import PepperActions

/// A fresh Pepper home, removed at the end of the test.
final class TemporaryState: @unchecked Sendable {
    let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-actions-\(UUID())"))
    let rebuilds = Count()
    private(set) lazy var state = opened()

    /// Another `PepperState` of the same home: another face (the console, the CLI, the browser).
    func opened() -> PepperState {
        let rebuilds = self.rebuilds
        return try! PepperState(home: home, configuration: .init(afterPublish: [{ _, _ in rebuilds.add() }]))
    }

    deinit { try? FileManager.default.removeItem(at: home.url) }
}

/// Events in the order they happened, from any thread.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func add(_ event: String) { lock.withLock { events.append(event) } }
    func clear() { lock.withLock { events.removeAll() } }
    var all: [String] { lock.withLock { events } }

    /// Waits until `event` happened (at most 60 s: a loaded machine starts threads slowly).
    func wait(for event: String) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !all.contains(event) {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

final class Count: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Allowlist actions")
struct AllowlistActionTests {
    @Test func aPastedAddressAllowlistsItsSiteAndRebuilds() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let change = try await state.addAllowlist("https://www.Example.com/path?q=1")
        #expect(change.domain == "example.com")
        #expect(change.fromAddress == "https://www.Example.com/path?q=1")
        #expect(change.added)
        #expect(change.outcome?.manifest.allowlist == ["example.com"])
        #expect(state.manifest()?.allowlist == ["example.com"], "the output in place is the new one")
        #expect(state.outputIsCurrent())

        // A domain typed as such is kept as typed.
        let typed = try await state.addAllowlist("www.news.example", for: 3_600)
        #expect(typed.domain == "www.news.example")
        #expect(typed.fromAddress == nil)
        #expect(typed.expiresAt != nil)
        #expect(try state.allowlistEntries().map(\.domain) == ["example.com", "www.news.example"])

        let removed = try await state.removeAllowlist("example.com")
        #expect(removed.outcome?.manifest.allowlist == ["www.news.example"])
        await #expect(throws: ActionError.notAllowlisted("example.com")) { try await state.removeAllowlist("example.com") }
    }

    @Test(arguments: [
        ("", SiteInputProblem.empty), ("not a domain", .invalidDomain(.invalidCharacter("not a domain"))),
        ("ftp://example.com/", .addressWithoutHost), ("https:///nohost", .addressWithoutHost),
        ("*.example.com", .invalidDomain(.wildcard("*.example.com"))),
    ])
    func whatIsNeitherADomainNorAnAddressIsRefusedAndChangesNothing(input: String, problem: SiteInputProblem) async throws {
        let temporary = TemporaryState()
        await #expect(throws: ActionError.notADomain(input: input, problem: problem)) {
            try await temporary.state.addAllowlist(input)
        }
        #expect(try temporary.state.allowlistEntries().isEmpty)
        #expect(temporary.rebuilds.value == 0)
    }

    @Test func theShieldTurnsBlockingOffForASiteAndBackOn() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        #expect(try await state.setBlocking(false, onPage: "https://www.shop.example/cart") == false)
        #expect(try state.allowlistEntries(covering: "www.shop.example") == ["shop.example"])
        #expect(try await state.setBlocking(true, onPage: "https://deep.shop.example/") == true)
        #expect(try state.allowlistEntries().isEmpty)
        await #expect(throws: ActionError.self) { try await state.setBlocking(false, onPage: "about:blank") }
    }
}

@Suite("Rebuilds are serialized")
struct RebuildSerializationTests {
    /// Two faces (two states of one home, each with its own scheduler; only `build.lock` orders
    /// them) change the allowlist at the same moment: every change is in the output that the
    /// change's own call returns, and the output in place at the end has all of them.
    @Test func concurrentChangesFromTwoFacesPublishInOrderAndTheNewestStateWins() async throws {
        let temporary = TemporaryState()
        let faces = [temporary.state, temporary.opened()]
        let domains = (0..<16).map { "site\($0).example" }
        let published = try await withThrowingTaskGroup(of: (String, [String]).self) { group in
            for (index, domain) in domains.enumerated() {
                let face = faces[index % 2]
                group.addTask { (domain, try await face.addAllowlist(domain).outcome?.manifest.allowlist ?? []) }
            }
            return try await group.reduce(into: [String: [String]]()) { $0[$1.0] = $1.1 }
        }
        #expect(published.count == domains.count)
        for (domain, allowlist) in published {
            #expect(allowlist.contains(domain), "\(domain) is in the output its call returned")
        }
        #expect(temporary.state.manifest()?.allowlist == domains.sorted(), "the last output published has every change")
        #expect(temporary.state.outputIsCurrent())
        // Callers that arrive while a rebuild runs share the next one.
        #expect(temporary.rebuilds.value < domains.count, "\(temporary.rebuilds.value) rebuilds for \(domains.count) changes")
        #expect(temporary.rebuilds.value >= 2)
    }

    /// A face in another process (`pepper allowlist add`, its own state) rebuilding while this one does: the
    /// build lock orders them too. Here the other process is played by a thread holding the lock.
    @Test func aRebuildWaitsForTheBuildLockOfAnotherFace() async throws {
        let temporary = TemporaryState()
        let events = Events()
        let state = try PepperState(
            home: temporary.home, configuration: .init(afterPublish: [{ _, _ in events.add("rebuild published") }]))
        // How long a rebuild takes here when nothing holds the lock (the lists are compiled once
        // first, so the one under test only lays them out again).
        _ = try await state.addAllowlist("first.example")
        let clock = ContinuousClock()
        let unhindered = try await clock.measure { _ = try await state.addAllowlist("second.example") }
        events.clear()
        // Another face (another state of the same home) holds `build.lock` until told to let go.
        let other = temporary.opened()
        let release = DispatchSemaphore(value: 0)
        async let holder: Void = other.withBuildLock {
            events.add("holder took the lock")
            release.wait()
            events.add("holder let go")
        }
        try await events.wait(for: "holder took the lock")
        async let rebuild = state.addAllowlist("late.example")
        // Ten times what a rebuild takes: one that ignored the lock would have published by then.
        try await Task.sleep(for: max(unhindered * 10, .milliseconds(500)))
        events.add("letting go")
        release.signal()
        try await holder
        _ = try await rebuild
        #expect(events.all == ["holder took the lock", "letting go", "holder let go", "rebuild published"])
        #expect(state.manifest()?.allowlist == ["first.example", "late.example", "second.example"])
    }
}

@Suite("My rules")
struct UserRuleActionTests {
    @Test func aRuleIsCheckedStoredCompiledAndDecidesRequests() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        #expect(try await state.addRule("||tracker.example^"))
        #expect(try await state.addRule("||tracker.example^") == false, "already there")
        let manifest = try #require(state.manifest())
        let mine = try #require(manifest.sources.first { $0.name == "my-rules" })
        #expect(mine.rulesIn == 1 && mine.rulesOut >= 1)
        let verdict = try state.check("https://tracker.example/pixel.gif", page: "https://news.example/")
        #expect(verdict.decision == .blocked)
        #expect(verdict.rule?.list == "my-rules")
        #expect(verdict.rule?.text == "||tracker.example^")
        #expect(verdict.rule?.line == 1)

        try await state.removeRule("||tracker.example^")
        #expect(try state.check("https://tracker.example/pixel.gif").decision != .blocked)
        await #expect(throws: ActionError.unknownRule("||tracker.example^")) { try await state.removeRule("||tracker.example^") }
    }

    @Test func unusableRulesAreRefusedWithTheirReason() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        for (rule, problem, words) in [
            ("example.com##+js(nowebrtc)", RuleProblem.skipped(.scriptlet), "scriptlets are not supported (scriptlet)"),
            ("||ads.example^$csp=script-src", .skipped(.unsupportedOption("csp")), "the option $csp is not supported"),
            ("example.com##div:has-text(Ad)", .skipped(.proceduralCosmetic), "procedural cosmetic filters"),
            ("! a comment", .comment, "it is a comment"),
            (String(repeating: "a", count: PepperState.maximumRuleLength + 1), .tooLong(limit: 4_096), "longer than 4096"),
        ] {
            await #expect(throws: ActionError.invalidRule(rule: rule, problem: problem)) { try await state.addRule(rule) }
            #expect(ActionError.invalidRule(rule: rule, problem: problem).description.contains(words))
        }
        #expect(try state.userRules().isEmpty)
        #expect(temporary.rebuilds.value == 0)
    }

    @Test func savingTheEditorWithOneBadLineChangesNothing() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let good = try await state.saveRules("! mine\n||a.example^\n\n@@||a.example/ok.js\n")
        #expect(good.saved)
        #expect(try state.userRules().map(\.text) == ["! mine", "||a.example^", "@@||a.example/ok.js"])

        let bad = try await state.saveRules("||b.example^\nexample.com##+js(x)\n")
        #expect(!bad.saved)
        #expect(bad.lines.map(\.problem).map { $0 != nil } == [false, true])
        #expect(try state.userRules().map(\.text) == ["! mine", "||a.example^", "@@||a.example/ok.js"], "nothing changed")
    }

    @Test func aRuleChangeWithoutRebuildMakesTheOutputStale() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        try await state.rebuild()
        #expect(state.outputIsCurrent())
        try await state.addRule("||stale.example^", rebuild: false)
        #expect(!state.outputIsCurrent())
        try await state.rebuild()
        #expect(state.outputIsCurrent())
    }
}

@Suite("List actions")
struct ListActionTests {
    @Test func listsAreAddedUploadedEnabledDisabledAndRemoved() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let folder = temporary.home.url.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Local List.txt")
        try "||local.example^\n".write(to: file, atomically: true, encoding: .utf8)

        let added = try await state.addList(ListRequest(source: file.path))
        #expect(added.name == "local-list")
        #expect(added.rules == 1)
        #expect(added.outcome?.manifest.sources.map(\.name).contains("local-list") == true)
        await #expect(throws: ActionError.listExists("local-list")) { try await state.addList(ListRequest(source: file.path)) }

        let uploaded = try await state.addUploadedList(Data("||uploaded.example^\n".utf8), fileName: "mine.txt")
        #expect(uploaded.name == "mine")
        let kept = temporary.home.url.appendingPathComponent("uploads/mine.txt")
        #expect(FileManager.default.fileExists(atPath: kept.path))
        #expect(try state.check("https://uploaded.example/x.js").decision == .blocked)

        _ = try await state.disableList("mine")
        #expect(try state.check("https://uploaded.example/x.js").decision != .blocked)
        _ = try await state.enableList("mine")
        #expect(try state.check("https://uploaded.example/x.js").decision == .blocked)
        _ = try await state.removeList("mine")
        #expect(!FileManager.default.fileExists(atPath: kept.path), "the uploaded copy goes with the list")
        await #expect(throws: ActionError.builtInList("easylist")) { try await state.removeList("easylist") }
        await #expect(throws: ActionError.unknownList("nothing")) { try await state.enableList("nothing") }
    }

    @Test func aListWithoutUsableRulesIsNotAdded() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        await #expect {
            try await state.addUploadedList(Data("<html><body>not a list</body></html>".utf8), fileName: "page.html")
        } throws: { error in
            guard case .some(.listUnusable) = error as? ActionError else { return false }
            return true
        }
        #expect(try state.lists().allSatisfy(\.builtIn))
        await #expect(throws: ActionError.self) { try await state.addUploadedList(Data(), fileName: "empty.txt") }
        await #expect(throws: ActionError.invalidListName("Bad Name")) {
            try await state.addUploadedList(Data("||x.example^".utf8), fileName: "x.txt", name: "Bad Name")
        }
    }

    @Test func anUpdateReportsEachListAndOneUpdateRunsAtATime() async throws {
        let server = try ListServer(routes: [
            "/one.txt": .init(body: "||one.example^\n", etag: true), "/slow.txt": .init(body: "||slow.example^\n", delay: 1.0),
        ])
        let temporary = TemporaryState()
        let state = temporary.state
        _ = try await state.addList(ListRequest(source: server.url("/one.txt")))
        _ = try await state.addList(ListRequest(source: server.url("/slow.txt")))
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }

        let events = EventLog()
        async let first = state.update(UpdateOptions(force: true)) { events.append($0) }
        try await Task.sleep(for: .milliseconds(300))
        await #expect(throws: ActionError.self) { try await state.update(UpdateOptions(force: true, waitForLock: false)) }
        let summary = try await first
        #expect(summary.allGood)
        #expect(summary.reports.map(\.name) == ["one", "slow"])
        #expect(summary.outcome != nil, "forced: compiled")
        let kinds = events.values.map { event -> String in
            switch event {
            case .started: return "started"
            case .finished(let report): return "finished:\(report.name)"
            case .compiling: return "compiling"
            case .done: return "done"
            case .progress, .waitingForLock: return ""
            }
        }.filter { !$0.isEmpty }
        #expect(kinds == ["started", "finished:one", "finished:slow", "compiling", "done"])
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [UpdateEvent] = []
    func append(_ event: UpdateEvent) { lock.withLock { events.append(event) } }
    var values: [UpdateEvent] { lock.withLock { events } }
}

@Suite("Call-list actions")
struct CallActionTests {
    @Test func numbersAndRangesAsPeopleTypeThem() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let range = try state.blockNumber("+1 206 555 01##", region: "US")
        #expect(range.display == "+1206555 01## (100 numbers)" || range.display.contains("100 numbers"))
        #expect(range.count == 100)
        let again = try state.blockNumber("+1 206 555 01##", region: "US")
        #expect(again.count == 0, "already blocked")
        let one = try state.identifyNumber("(425) 555-0100", label: "Pizza place", region: "US")
        #expect(one.display == "+14255550100")
        #expect(throws: ActionError.numberNotListed("+14255550199")) { try state.unidentifyNumber("425 555 0199", region: "US") }
        #expect(throws: ActionError.invalidNumber(input: "call me maybe", problem: .notANumber(.number(.notANumber)))) {
            try state.blockNumber("call me maybe", region: "US")
        }
        #expect(throws: ActionError.invalidNumber(input: "+1 206 55# 0100", problem: .notANumber(.range(.wildcardNotAtEnd)))) {
            try state.blockNumber("+1 206 55# 0100", region: "US")
        }
        #expect(throws: ActionError.invalidNumber(input: "XX", problem: .unknownRegion("XX"))) {
            try state.blockNumber("2065550100", region: "XX")
        }
        #expect(throws: ActionError.invalidNumber(input: "2065550100", problem: .emptyLabel)) {
            try state.identifyNumber("2065550100", label: "  ", region: "US")
        }
    }
}

@Suite("Running services")
struct RunningServiceTests {
    @Test func aStatusCountsOnlyWhileItsProcessRuns() throws {
        let temporary = TemporaryState()
        let home = temporary.home
        try DNSServerStatus(listen: "127.0.0.1:5335", blockPage: nil, groupsFile: nil, allowClients: []).write(home: home)
        #expect(DNSServerStatus.current(home: home)?.listen == "127.0.0.1:5335")
        // A file left by a process that is gone (pid 2^22 + 1 is above Linux's pid limit).
        try DNSServerStatus(listen: "127.0.0.1:1", blockPage: nil, groupsFile: nil, allowClients: [], pid: 4_194_305).write(home: home)
        #expect(DNSServerStatus.current(home: home) == nil)
        DNSServerStatus.remove(home: home, pid: 4_194_305)
        #expect(!FileManager.default.fileExists(atPath: DNSServerStatus.url(home: home).path))
    }
}

@Suite("DNS engines")
struct DNSEngineTests {
    /// A Disconnect `services.json` with one tracker in each of two categories.
    static let services = Data(
        """
        {"categories": {
          "Advertising": [{"AdCo": {"https://adco.example/": ["adco.example"]}}],
          "Analytics": [{"StatsCo": {"https://stats.example/": ["stats.example"]}}]
        }}
        """.utf8)

    static func disconnect(_ categories: [String]) -> ListInput {
        ListInput(
            name: "disconnect", location: "/lists/services.json", data: services, format: .disconnect, categories: categories)
    }

    /// The regression: the engine cache's key left the Disconnect categories out, so an engine
    /// built for other categories was taken from `dns-engine.bin` after they changed.
    @Test func changingADisconnectListsCategoriesRebuildsTheCachedEngine() throws {
        let temporary = TemporaryState()
        let advertising = try DNSEngines(state: temporary.state, sources: [Self.disconnect(["Advertising"])]).engine()
        #expect(advertising.domainDecision("adco.example") == .blocked)
        #expect(advertising.domainDecision("stats.example") == .noMatch)
        #expect(FileManager.default.fileExists(atPath: temporary.home.url.appendingPathComponent("dns-engine.bin").path))

        let analytics = try DNSEngines(state: temporary.state, sources: [Self.disconnect(["Analytics"])]).engine()
        #expect(analytics.domainDecision("stats.example") == .blocked, "the categories changed: a new engine")
        #expect(analytics.domainDecision("adco.example") == .noMatch)

        // The same inputs again: the cached engine, identical.
        let again = try DNSEngines(state: temporary.state, sources: [Self.disconnect(["Analytics"])]).engine()
        #expect(again.identifier == analytics.identifier)
    }
}
