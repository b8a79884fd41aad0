import Browsing
import DesktopIntegration
import FilterEngine
import Foundation
import PepperActions
import PepperTestSupport
import Storage
import Testing

@testable import Screens

/// A fresh Pepper home with its state, removed at the end of the test.
final class TemporaryState: @unchecked Sendable {
    let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-screens-\(UUID())"))
    private(set) lazy var state = try! PepperState(home: home)

    deinit { try? FileManager.default.removeItem(at: home.url) }
}

/// GNOME Web's settings in a throwaway keyfile store (`GSETTINGS_BACKEND=keyfile`), read and
/// written by the real `gsettings` with GNOME Web's own schemas. `nil` when they are not here.
func throwawayGNOMEWeb() -> (GNOMEWebSettings, URL)? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-gsettings-\(UUID())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var environment = ProcessInfo.processInfo.environment
    environment["GSETTINGS_BACKEND"] = "keyfile"
    environment["XDG_CONFIG_HOME"] = folder.path
    let settings = GNOMEWebSettings(environment: environment)
    guard case .available = settings.availability() else { return nil }
    return (settings, folder)
}

/// Whether GNOME Web's settings can be written here (its schemas are installed).
func gnomeWebSchemasInstalled() -> Bool {
    guard let (_, folder) = throwawayGNOMEWeb() else { return false }
    try? FileManager.default.removeItem(at: folder)
    return true
}

/// Settings of a browser that is not installed.
struct AbsentBrowser: ContentFilterSettings {
    var browserName: String { "GNOME Web" }
    func availability() -> BrowserAvailability { .notInstalled("its settings schema org.gnome.Epiphany is not installed") }
    func contentFilters() throws -> [String] { [] }
    func setContentFilters(_ addresses: [String]) throws { Issue.record("must not be called") }
    func filteringEnabled() throws -> Bool { false }
    func defaultSearchEngine() throws -> String { "" }
    func useDuckDuckGo() throws { Issue.record("must not be called") }
}

@Suite("Start screen")
struct StartScreenTests {
    @Test func aFreshHomeNeedsSettingUpAndCompiling() async throws {
        let temporary = TemporaryState()
        let loaded = try await StartScreen(state: temporary.state).load()
        #expect(!loaded.onboardingDone)
        #expect(loaded.protection.rules == 0)
        #expect(loaded.protection.dnsServer == nil)
        let fixes = loaded.attention.map(\.fix)
        #expect(fixes.contains(.rebuild))
        #expect(fixes.contains(.onboarding))
        #expect(fixes.filter { $0 == .updateLists }.count == 2, "easylist and easyprivacy were never downloaded")
        #expect(loaded.counts.map(\.label).count == 6)
        #expect(loaded.counts.allSatisfy { $0.today == 0 && $0.week == 0 })
    }

    @Test func countsComeFromTheDecisionAndDNSLogs() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let now = Date()
        let decisions = DecisionStore(database: state.database)
        try decisions.record([
            .init(domain: .web, subject: "https://ads.example/a.js", action: .block, ruleKind: "rule", rule: "||ads.example^", at: now),
            .init(
                domain: .web, subject: "https://ads.example/b.js", action: .block, ruleKind: "rule", rule: nil,
                at: now.addingTimeInterval(-3 * 86_400)),
            .init(
                domain: .web, subject: "https://old.example/", action: .block, ruleKind: "rule", rule: nil,
                at: now.addingTimeInterval(-9 * 86_400)),
            .init(domain: .call, subject: "+12539501212", action: .block, ruleKind: "list", rule: nil, at: now),
            .init(domain: .call, subject: "+14259501212", action: .identify, ruleKind: "list", rule: "Suspicious", at: now),
            .init(domain: .message, subject: "+15551234567", action: .junk, ruleKind: "word", rule: "won", at: now),
            .init(domain: .message, subject: "+15551234567", action: .allow, ruleKind: "none", rule: nil, at: now),
        ])
        try DNSQueryLogStore(database: state.database).record(
            counts: [
                .init(day: DNSQueryLogStore.day(of: now), outcome: .forwarded, count: 30),
                .init(day: DNSQueryLogStore.day(of: now), outcome: .blocked, count: 10),
            ],
            entries: [], now: now)
        _ = try await state.rebuild()
        _ = await OnboardingScreen(state: state).finish()
        let loaded = try await StartScreen(state: state).load(now: now)
        let counts = Dictionary(uniqueKeysWithValues: loaded.counts.map { ($0.label, $0) })
        #expect(counts["Requests blocked in the browser"]?.today == 1)
        #expect(counts["Requests blocked in the browser"]?.week == 2, "the one nine days ago is not in the week")
        #expect(counts["DNS queries"]?.week == 40)
        #expect(counts["DNS queries"]?.detail == "25.0 % blocked this week")
        #expect(counts["DNS queries blocked"]?.today == 10)
        #expect(counts["Calls blocked"]?.today == 1)
        #expect(counts["Calls identified"]?.today == 1)
        #expect(counts["Messages filtered"]?.today == 1, "allowed messages are not filtered")
        #expect(loaded.onboardingDone)
        #expect(loaded.protection.usingStarterList)
        #expect(loaded.protection.rules > 0)
        #expect(!loaded.attention.map(\.fix).contains(.rebuild))
    }

    @Test func aFailedListUpdateNeedsAttentionWithItsReason() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let store = ListSourceStore(database: state.database)
        var easylist = try #require(try store.source(named: "easylist"))
        easylist.lastError = "HTTP 503"
        easylist.lastSuccess = Date()
        try store.update(easylist)
        _ = try await state.rebuild()
        let attention = try await StartScreen(state: state).load().attention
        #expect(attention.contains { $0.fix == .updateLists && $0.text.contains("easylist") && $0.text.contains("HTTP 503") })
        try await state.addRule("||stale.example^", rebuild: false)
        #expect(try await StartScreen(state: state).load().attention.contains { $0.fix == .rebuild })
        let notice = await StartScreen(state: state).rebuildNow()
        #expect(notice.kind == .success)
        #expect(try await !StartScreen(state: state).load().attention.contains { $0.fix == .rebuild })
    }
}

@Suite("Onboarding screen")
struct OnboardingScreenTests {
    @Test func choosingListsEnablesAndDisablesBuiltInOnes() async throws {
        let temporary = TemporaryState()
        let screen = OnboardingScreen(state: temporary.state)
        // No network here: enabling a list that was never downloaded is a warning, not a failure.
        let notice = await screen.chooseLists(["easyprivacy"])
        #expect(notice.kind == .warning || notice.kind == .success, "\(notice)")
        let lists = try await screen.load().lists
        #expect(lists.first { $0.name == "easylist" }?.enabled == false)
        #expect(lists.first { $0.name == "easyprivacy" }?.enabled == true)
        let unknown = await screen.chooseLists(["nope"])
        #expect(unknown == .error("There is no built-in list named 'nope'.", field: "lists"))
    }

    @Test(
        .enabled(
            if: gnomeWebSchemasInstalled() || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_WEBKIT"] == "1",
            "GNOME Web's settings schemas are not installed (epiphany-browser)"))
    func gnomeWebIsSetUpAndConfirmedByReadingItsSettingsBack() async throws {
        let (settings, folder) = try #require(throwawayGNOMEWeb(), "GNOME Web's settings schemas are needed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let temporary = TemporaryState()
        let state = try PepperState(
            home: temporary.home, configuration: .init(afterPublish: [GNOMEWebSettings.keepFiltersCurrent(settings: settings)]))
        let screen = OnboardingScreen(state: state, browser: settings)
        #expect(try await screen.load().browser?.installed == false)
        let notice = await screen.installInBrowser()
        #expect(notice.kind == .success, "\(notice)")
        let setup = try #require(try await await screen.load().browser)
        #expect(setup.installed)
        // The generation folder behind `out`: a new output gets new addresses, which GNOME Web compiles anew.
        let generation = temporary.home.outputURL.resolvingSymlinksInPath().path
        #expect(generation.contains("/.out."))
        #expect(setup.filters.allSatisfy { $0.hasPrefix("file://" + generation + "/blocker-") })
        #expect(try settings.filteringEnabled())
        // What GNOME Web reads: the keyfile of the throwaway store.
        let keyfile = try String(contentsOf: folder.appendingPathComponent("glib-2.0/settings/keyfile"), encoding: .utf8)
        #expect(keyfile.contains("content-filters=['file://"))
        #expect(keyfile.contains("enable-adblock=true"))

        // A later change from another face (its own state, with the same hook): the output has
        // new addresses, and GNOME Web's settings follow them.
        let other = try PepperState(
            home: temporary.home, configuration: .init(afterPublish: [GNOMEWebSettings.keepFiltersCurrent(settings: settings)]))
        try await other.addRule("||later.example^")
        let manifest = try #require(other.manifest())
        let after = try settings.contentFilters()
        #expect(after != setup.filters, "a new output, new addresses")
        #expect(after == other.outputFileAddresses(manifest))
        #expect(after.count == manifest.files.count)

        #expect(try settings.defaultSearchEngine() == "DuckDuckGo")
        #expect(await screen.useDuckDuckGo().kind == .success)
        #expect(try await screen.load().search.answered)
        #expect(try BrowserStateStore(database: state.database).setting(BrowserSession.SettingKey.searchEngine) == "duckduckgo")
    }

    @Test func gnomeWebNotInstalledIsSaidPlainly() async throws {
        let temporary = TemporaryState()
        let screen = OnboardingScreen(state: temporary.state, browser: AbsentBrowser())
        let notice = await screen.installInBrowser()
        #expect(notice.isError)
        #expect(notice.text.hasPrefix("GNOME Web is not installed"))
        #expect(try await screen.load().browser?.availability == .notInstalled("its settings schema org.gnome.Epiphany is not installed"))
        #expect(await screen.useDuckDuckGo().kind == .success, "Pepper's own browser still gets DuckDuckGo")
    }

    @Test func theDNSCheckSaysWhenNothingAnswers() async throws {
        let temporary = TemporaryState()
        let screen = OnboardingScreen(state: temporary.state)
        let notRunning = await screen.checkDNS()
        #expect(notRunning.isError && notRunning.text.contains("not running"))
        // The screen names no command; the face that shows it gives its own.
        #expect(!notRunning.text.contains("pepper"))
        #expect(
            await screen.checkDNS(startCommand: "pepper dns serve").text
                == "The DNS filter is not running. Start it (pepper dns serve), then check again.")
        let bad = await screen.checkDNS(address: "not an address")
        #expect(bad.isError && bad.field == "address")
        // A UDP port nobody answers on.
        let silent = await screen.checkDNS(address: "127.0.0.1:9", timeout: 0.3)
        #expect(silent.isError && silent.field == "address", "\(silent)")
        #expect(try await screen.load().dns.dropIn.contains("DNS=127.0.0.1:5335"))
    }

    @Test func finishingAndDismissingAreRemembered() async throws {
        let temporary = TemporaryState()
        let screen = OnboardingScreen(state: temporary.state)
        #expect(try await !screen.load().done)
        #expect(await screen.dismissSearchSuggestion().kind == .info)
        #expect(await screen.finish().kind == .success)
        let loaded = try await screen.load()
        #expect(loaded.done && loaded.search.answered)
    }
}

@Suite("Lists and My rules screens")
struct ListsScreenTests {
    @Test func addingByAddressUploadingAndRemovingReportEachOutcome() async throws {
        let server = try ListServer(routes: ["/extra.txt": .init(body: "||extra.example^\n##.banner-ad\n", etag: true)])
        let temporary = TemporaryState()
        let screen = ListsScreen(state: temporary.state)
        let notAnAddress = await screen.add(address: "/etc/passwd")
        #expect(notAnAddress == .error("Give the list's address, starting with https://.", field: "url"))
        let missing = await screen.add(address: server.url("/missing.txt"))
        #expect(missing.isError && missing.field == "url" && missing.text.contains("not added"), "\(missing)")
        let added = await screen.add(address: server.url("/extra.txt"), name: "extra")
        #expect(added.kind == .success && added.text.hasPrefix("Added extra (2 rules)."), "\(added)")
        let duplicate = await screen.add(address: server.url("/extra.txt"), name: "extra")
        #expect(duplicate.field == "name")
        let badName = await screen.upload(Data("||x.example^".utf8), fileName: "x.txt", name: "Not Valid")
        #expect(badName.field == "name")
        let uploaded = await screen.upload(Data("||up.example^\nthis is not a rule\n".utf8), fileName: "up.txt")
        #expect(uploaded.kind == .success, "\(uploaded)")

        let loaded = try await screen.load()
        let extra = try #require(loaded.lists.first { $0.name == "extra" })
        #expect(extra.rulesIn == 2 && extra.rulesOut == 2)
        let up = try #require(loaded.lists.first { $0.name == "up" })
        #expect(up.skipped.map(\.count).reduce(0, +) == 1, "the bad line is counted with its reason")
        #expect(loaded.schedule.running == nil)

        #expect(await screen.remove("easylist").isError)
        #expect(await screen.remove("up").kind == .success)
        #expect(await screen.disable("extra").kind == .success)
        #expect(try await screen.load().lists.first { $0.name == "extra" }?.enabled == false)
    }

    @Test func updateNowReportsPerListAndKeepsTheLastGoodCopy() async throws {
        let server = try ListServer(routes: ["/good.txt": .init(body: "||good.example^\n", etag: true)])
        let temporary = TemporaryState()
        let state = temporary.state
        let screen = ListsScreen(state: state)
        for name in ["easylist", "easyprivacy"] { _ = await screen.disable(name) }
        #expect(await screen.add(address: server.url("/good.txt"), name: "good").kind == .success)
        try server.set(["/good.txt": .init(status: 500)])
        let (notice, summary) = await screen.updateNow()
        #expect(notice.kind == .warning && notice.text.contains("The update of good failed; its last good copy"), "\(notice)")
        let report = try #require(summary?.reports.first)
        #expect(ListsScreen.describe(report.status).hasPrefix("failed: "))
        #expect(ListsScreen.describe(report.status).hasSuffix("the last good copy is kept"))
        #expect(try state.check("https://good.example/x.js").decision == .blocked, "the last good copy is still in force")
        #expect(try await screen.load().lists.first { $0.name == "good" }?.lastError != nil)
    }

    @Test func theSystemdTimerIsFoundWhereDocsListsPutsIt() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-timer-\(UUID())")
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = ["XDG_CONFIG_HOME": config.path]
        let before = ListsScreen.installedTimer(environment: environment)
        #expect(before == nil || before?.hasPrefix("/etc/") == true, "only a system-wide timer, if any")
        let units = config.appendingPathComponent("systemd/user")
        try FileManager.default.createDirectory(at: units, withIntermediateDirectories: true)
        try "[Timer]\nOnCalendar=*-*-* 00/4:00:00\n".write(
            to: units.appendingPathComponent("pepper-update.timer"), atomically: true, encoding: .utf8)
        #expect(ListsScreen.installedTimer(environment: environment) == units.appendingPathComponent("pepper-update.timer").path)
    }

    @Test func myRulesSaveAllOrNothing() async throws {
        let temporary = TemporaryState()
        let screen = MyRulesScreen(state: temporary.state)
        let (saved, state) = await screen.save("||mine.example^\n! note\n")
        #expect(saved.kind == .success && saved.text.hasPrefix("Saved 1 rule;"), "\(saved)")
        #expect(state.lines.allSatisfy { $0.problem == nil })
        let (refused, shown) = await screen.save("||mine.example^\n||x^$csp=none\n")
        #expect(refused.isError && refused.field == "rules")
        #expect(shown.text == "||mine.example^\n||x^$csp=none\n", "the text comes back as typed")
        #expect(shown.lines.last?.problem == .skipped(.unsupportedOption("csp")))
        #expect(shown.lines.last?.problem?.description == "the option $csp is not supported (unsupported-option:csp)")
        #expect(try await screen.load().text == "||mine.example^\n! note")
        let refusedRule = await screen.add("example.com##+js(nowebrtc)")
        #expect(refusedRule.isError && refusedRule.field == "rule" && refusedRule.text.contains("scriptlet"))
    }
}

@Suite("Allowlist screen")
struct AllowlistScreenTests {
    @Test func sitesAreAddedForGoodOrADayAndRemoved() async throws {
        let temporary = TemporaryState()
        let screen = AllowlistScreen(state: temporary.state)
        let pasted = await screen.add(site: "https://www.news.example/article?id=1")
        #expect(pasted.kind == .success)
        #expect(pasted.text.hasPrefix("Allowlisted news.example (the site of the address you gave)"))
        let day = await screen.add(site: "bücher.example", duration: .day)
        #expect(day.text.contains("until"))
        let bad = await screen.add(site: "not a site")
        #expect(bad.isError && bad.field == "site")
        let entries = try await screen.load().entries
        #expect(entries.map(\.domain) == ["news.example", "xn--bcher-kva.example"])
        #expect(entries.last?.unicode == "bücher.example")
        #expect(entries.last?.expiresAt != nil && entries.first?.expiresAt == nil)
        #expect(await screen.remove("news.example").kind == .success)
        #expect(await screen.remove("news.example").isError)
    }

    @Test func checkAURLExplainsTheVerdictWithRuleListAndLine() async throws {
        let temporary = TemporaryState()
        try await temporary.state.addRule("||tracker.example^$script")
        try await temporary.state.addRule("@@||tracker.example/ok.js")
        let screen = AllowlistScreen(state: temporary.state)
        let blocked = try await screen.check(url: "https://tracker.example/t.js", page: "https://news.example/").get()
        #expect(
            blocked.decision == "BLOCKED" && blocked.rule == "||tracker.example^$script" && blocked.list == "my-rules" && blocked.line == 1)
        #expect(blocked.type == "script", "guessed from .js")
        let allowed = try await screen.check(url: "https://tracker.example/ok.js", type: "script").get()
        #expect(allowed.decision == "ALLOWED" && allowed.overridden?.hasPrefix("||tracker.example^$script") == true)
        let image = try await screen.check(url: "https://tracker.example/t.gif", type: "image").get()
        #expect(image.decision == "NOMATCH")
        #expect(await screen.check(url: "tracker.example").failureField == "url")
        #expect(await screen.check(url: "https://x.example/", page: "news.example").failureField == "page")
        #expect(await screen.check(url: "https://x.example/", type: "teapot").failureField == "type")
    }
}

extension Result where Failure == Notice {
    var failureField: String? {
        if case .failure(let notice) = self { return notice.field }
        return nil
    }
}

@Suite("DNS screen")
struct DNSScreenTests {
    @Test func chartTopListsPagingSearchAndOneClickActions() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let store = DNSQueryLogStore(database: state.database)
        let now = Date()
        var entries: [DNSQueryLogStore.Entry] = []
        for index in 0..<120 {
            let blocked = index % 3 == 0
            entries.append(
                .init(
                    at: now.addingTimeInterval(Double(index - 120)), client: index % 2 == 0 ? "127.0.0.1" : "192.168.1.9",
                    name: blocked ? "ads\(index % 2).example" : "site\(index).example", type: "A",
                    outcome: blocked ? .blocked : .forwarded,
                    responseCode: blocked ? "NXDOMAIN" : "NOERROR"))
        }
        try store.record(
            counts: [
                .init(day: DNSQueryLogStore.day(of: now), outcome: .blocked, count: 40),
                .init(day: DNSQueryLogStore.day(of: now), outcome: .forwarded, count: 80),
            ],
            entries: entries, now: now)
        let screen = DNSScreen(state: state)
        let first = try await screen.load(.init(limit: 50), now: now)
        #expect(first.summary.total == 120 && first.summary.blocked == 40)
        #expect(first.summary.chart.count == 24 && first.summary.chart.last?.total == 120)
        #expect(first.summary.topBlocked.map(\.name) == ["ads0.example", "ads1.example"])
        #expect(first.summary.topClients.map(\.count) == [60, 60])
        #expect(first.summary.topListsCountedAt == now, "counted for this load")
        // Within their lifetime the lists are kept, and the page says since when.
        #expect(try await screen.summary(now: now.addingTimeInterval(10)).topListsCountedAt == now)
        #expect(first.log.count == 50 && first.log.first?.name == "site119.example")
        let second = try await screen.load(.init(before: first.nextBefore, limit: 50), now: now)
        #expect(second.log.first.map { $0.id < first.log.last!.id } == true)
        let third = try await screen.load(.init(before: second.nextBefore, limit: 50), now: now)
        #expect(third.log.count == 20 && third.nextBefore == nil)
        let search = try await screen.load(.init(search: "ADS1", blockedOnly: true), now: now)
        #expect(search.log.allSatisfy { $0.name == "ads1.example" && $0.blocked && $0.action == .allow })
        // The live log goes on after the newest row of the whole log, whatever the page shows.
        #expect(first.latestID == first.log.first?.id && search.latestID == first.latestID)

        #expect(await screen.allow("ads1.example").kind == .success)
        #expect(try await screen.load(.init(search: "ads1"), now: now).log.allSatisfy { $0.action == .allowedSince })
        #expect(await screen.block("site119.example").kind == .success)
        #expect(try state.userRules().map(\.text) == ["||site119.example^"])
        #expect(try await screen.load(.init(search: "site119"), now: now).log.first?.action == .blockedSince)
        #expect(try state.engine().match(domain: "site119.example").decision == .blocked)

        let tail = try await screen.tail(after: first.log[1].id)
        #expect(tail.map(\.name) == ["site119.example"])
    }

    @Test func preparedTopListsServeTheFirstLoad() async throws {
        let temporary = TemporaryState()
        let store = DNSQueryLogStore(database: temporary.state.database)
        let now = Date()
        func log(_ name: String, times: Int, at: Date) throws {
            let entries = (0..<times).map { _ in
                DNSQueryLogStore.Entry(
                    at: at, client: "127.0.0.1", name: name, type: "A", outcome: .blocked, responseCode: "NXDOMAIN")
            }
            try store.record(
                counts: [.init(day: DNSQueryLogStore.day(of: at), outcome: .blocked, count: times)], entries: entries, now: at)
        }
        try log("early.example", times: 2, at: now.addingTimeInterval(-60))
        // A lifetime the test's loads stay inside: at 30 s the first load would also start a
        // recount, which could count the later rows before the second load.
        let screen = DNSScreen(state: temporary.state, topListsLifetime: 300)
        screen.prepare(now: now.addingTimeInterval(-30))
        // The first load (which may come while that count runs: it then waits for it) shows the
        // prepared lists, counted at the time given to prepare, not lists it counted itself.
        let first = try await screen.load(now: now)
        #expect(first.summary.topListsCountedAt == now.addingTimeInterval(-30))
        #expect(first.summary.topBlocked.map(\.name) == ["early.example"])
        // Logged later: the next load still shows the kept lists.
        try log("later.example", times: 5, at: now.addingTimeInterval(-1))
        #expect(try await screen.load(now: now.addingTimeInterval(-20)).summary.topBlocked.map(\.name) == ["early.example"])
    }

    /// Lists counted before anything was blocked (a fresh console) are counted again as soon as
    /// the page's own counts show blocked queries, without waiting out their lifetime.
    @Test func listsCountedBeforeAnyBlockIsLoggedAreCountedAgainEarly() async throws {
        let temporary = TemporaryState()
        let now = Date()
        let screen = DNSScreen(state: temporary.state, topListsLifetime: 300)
        screen.prepare(now: now.addingTimeInterval(-30))
        #expect(try await screen.load(now: now.addingTimeInterval(-29)).summary.topBlocked.isEmpty)
        let entries = (0..<3).map { _ in
            DNSQueryLogStore.Entry(
                at: now.addingTimeInterval(-5), client: "127.0.0.1", name: "ads.example", type: "A", outcome: .blocked,
                responseCode: "NXDOMAIN")
        }
        try DNSQueryLogStore(database: temporary.state.database).record(
            counts: [.init(day: DNSQueryLogStore.day(of: now), outcome: .blocked, count: 3)], entries: entries, now: now)
        // The view that notices shows what it has (counted 30 s ago) and has them counted again;
        // a later view shows the new lists, long before the 300 s lifetime.
        let deadline = ContinuousClock.now + .seconds(10)
        var shown: [String] = []
        while shown.isEmpty && ContinuousClock.now < deadline {
            shown = try await screen.load(now: now).summary.topBlocked.map(\.name)
            if shown.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(shown == ["ads.example"])
    }

    /// The counters may say "blocked" where the log's retained rows show none (the log keeps
    /// its newest rows only): lists counted through the newest row are not counted again until
    /// a newer row comes.
    @Test func listsAreNotCountedAgainWhileNoNewRowCame() async throws {
        let temporary = TemporaryState()
        let now = Date()
        try DNSQueryLogStore(database: temporary.state.database).record(
            counts: [.init(day: DNSQueryLogStore.day(of: now), outcome: .blocked, count: 1)],
            entries: [
                .init(
                    at: now.addingTimeInterval(-60), client: "127.0.0.1", name: "site.example", type: "A", outcome: .forwarded,
                    responseCode: "NOERROR")
            ], now: now)
        let screen = DNSScreen(state: temporary.state, topListsLifetime: 300)
        screen.prepare(now: now.addingTimeInterval(-30))
        #expect(try await screen.load(now: now).summary.topBlocked.isEmpty)
        try await Task.sleep(for: .milliseconds(500))
        let again = try await screen.load(now: now.addingTimeInterval(1)).summary
        #expect(again.topListsCountedAt == now.addingTimeInterval(-30), "no recount: no row came after the count")
    }

    @Test func clientGroupsAreReadFromTheRunningServersFile() async throws {
        let temporary = TemporaryState()
        let screen = DNSScreen(state: temporary.state)
        let file = temporary.home.url.appendingPathComponent("groups.json")
        try #"{"groups": [{"name": "kids", "clients": ["192.168.1.64/26"], "lists": ["easylist"], "allowlist": ["school.example"]}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        try DNSServerStatus(listen: "127.0.0.1:5335", blockPage: nil, groupsFile: file.path, allowClients: []).write(home: temporary.home)
        let loaded = try await screen.load()
        #expect(loaded.server?.listen == "127.0.0.1:5335")
        #expect(loaded.groups == [.init(name: "kids", clients: ["192.168.1.64/26"], lists: ["easylist"], allowlist: ["school.example"])])
        try "{not json".write(to: file, atomically: true, encoding: .utf8)
        let broken = try await screen.load()
        #expect(broken.groups.isEmpty && broken.groupsProblem?.hasPrefix("Groups file") == true)
    }
}
