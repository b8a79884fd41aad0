import AppExtensionSupport
import AppSupport
import ContentBlocker
import Foundation
import PepperActions
import Picket
import Screens
import Storage
import Testing

@Suite("App decisions")
struct AppDecisionTests {
    @Test func backgroundUpdatesFollowTheListsExpiriesWithinAnHourAndADay() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func list(_ expires: TimeInterval?, enabled: Bool = true) -> ListSource {
            var source = ListSource(name: "l\(UUID())", location: "https://example.org/list.txt", enabled: enabled)
            source.expiresAt = expires.map { now.addingTimeInterval($0) }
            return source
        }
        #expect(BackgroundRefresh.nextUpdate(after: now, lists: []) == now.addingTimeInterval(6 * 3_600))
        #expect(BackgroundRefresh.nextUpdate(after: now, lists: [list(4 * 3_600), list(9 * 3_600)]) == now.addingTimeInterval(4 * 3_600))
        #expect(
            BackgroundRefresh.nextUpdate(after: now, lists: [list(-600)]) == now.addingTimeInterval(3_600), "an expired list: in an hour")
        #expect(BackgroundRefresh.nextUpdate(after: now, lists: [list(9 * 86_400)]) == now.addingTimeInterval(86_400))
        #expect(BackgroundRefresh.nextUpdate(after: now, lists: [list(600, enabled: false)]) == now.addingTimeInterval(6 * 3_600))
    }

    @Test func theKeychainGroupComesFromTheInfoPlistWhenXcodeFilledItIn() {
        #expect(
            KeychainItem.accessGroup(infoDictionary: ["PepperKeychainGroup": "ABCDE12345.org.pepper.shared"])
                == "ABCDE12345.org.pepper.shared")
        #expect(KeychainItem.accessGroup(infoDictionary: ["PepperKeychainGroup": "$(AppIdentifierPrefix)org.pepper.shared"]) == nil)
        #expect(KeychainItem.accessGroup(infoDictionary: nil) == nil)
        // One item per key: the server's keeps the name it always had, each list its own.
        #expect(KeychainItem.account(for: .connection) == "api-key")
        #expect(KeychainItem.account(for: .listSource("picket-opl.example")) == "list:picket-opl.example")
    }

    @Test func theLocationPromptsSayThePrecisionPositionsAreSentAt() throws {
        // Apple/project.yml's Info.plist strings, as Xcode writes them (YAML's folded text, one line).
        let project = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Apple/project.yml"),
            encoding: .utf8)
        func prompt(_ key: String) throws -> String {
            let lines = project.components(separatedBy: "\n")
            let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") })
            let indent = lines[start].prefix { $0 == " " }.count
            return lines[(start + 1)...].prefix { line in line.prefix { $0 == " " }.count > indent }
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
        let always = try prompt("NSLocationAlwaysAndWhenInUseUsageDescription")
        let inUse = try prompt("NSLocationWhenInUseUsageDescription")
        #expect(LocationPrecision.backgroundArea == "about 1 km" && LocationPrecision.backgroundDecimals == 2)
        #expect(always.contains("only the area you are in, rounded to \(LocationPrecision.backgroundArea), is sent"), "\(always)")
        #expect(inUse.contains("only the area you are in") && inUse.contains("the point you choose is sent as it is"), "\(inUse)")
    }

    @Test func theWebViewLoadsStoredListsByManifestAndNoneOnAnAllowlistedSite() async throws {
        let temporary = TemporaryContainer()
        let state = try PepperState(home: temporary.container.home, configuration: .init(maximumRules: 1))
        _ = try await state.addRule("||ads.example^", rebuild: false)
        _ = try await state.addRule("||tracker.example^", rebuild: false)
        let first = try await state.rebuild()
        #expect(try WebViewRuleLists.plan(blocking: false, outputURL: state.home.outputURL) == .none)
        guard case .lists(let lists) = try WebViewRuleLists.plan(blocking: true, outputURL: state.home.outputURL) else {
            Issue.record("blocking needs lists")
            return
        }
        #expect(lists.count == first.manifest.files.count)
        #expect(lists.map(\.identifier) == WebViewRuleLists.identifiers(of: first.manifest))
        #expect(lists.allSatisfy { $0.identifier.hasPrefix("pepper-" + first.manifest.identifier.prefix(16)) })
        for (list, url) in zip(lists, first.fileURLs) { #expect(list.file == url.resolvingSymlinksInPath()) }
        // Unchanged output: the same identifiers, so the store's compiled lists are reused.
        _ = try await state.rebuild()
        #expect(try WebViewRuleLists.plan(blocking: true, outputURL: state.home.outputURL) == .lists(lists))
        // A change: new identifiers, and the old ones are obsolete.
        _ = try await state.addRule("||beacon.example^")
        let changed = try WebViewRuleLists.plan(blocking: true, outputURL: state.home.outputURL)
        let obsolete = WebViewRuleLists.obsolete(stored: lists.map(\.identifier) + ["someone-elses"], current: changed)
        #expect(obsolete == lists.map(\.identifier).sorted())
        #expect(WebViewRuleLists.obsolete(stored: lists.map(\.identifier), current: .none).isEmpty)
    }

    @Test func safariFitsTheOnboardingsBrowserSeamAndConfirmsWhatIsOn() async throws {
        // Lists of half the rules: the output needs two or three slots.
        let (state, needed, manifest, temporary) = try await OnboardingTourTests.stateNeedingSeveralBlockers()
        defer { withExtendedLifetime(temporary) {} }
        let off = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: [])
        let half = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: Set(needed.dropLast()))
        let on = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: Set(needed))
        #expect(try await OnboardingScreen(state: state, browser: off).load().browser?.installed == false)
        #expect(try await OnboardingScreen(state: state, browser: half).load().browser?.installed == false)
        #expect(half.slotsToTurnOn() == [needed.last!])
        let setup = try #require(try await OnboardingScreen(state: state, browser: on).load().browser)
        #expect(setup.name == "Safari")
        #expect(setup.installed, "every list is served by a turned-on blocker: \(setup)")
        #expect(setup.filters == state.outputFileAddresses(manifest))
        #expect(on.slotsToTurnOn().isEmpty)
        // Installing is the person's job: the onboarding says how instead of failing silently.
        let notice = await OnboardingScreen(state: state, browser: on).installInBrowser()
        #expect(notice.isError)
        #expect(notice.text.contains("Settings"))
        #expect(await OnboardingScreen(state: state, browser: on).useDuckDuckGo().text.contains("Search Engine"))
    }

    @Test func proceedingFromTheTunnelsQuestionAllowlistsTheSiteForADay() {
        let proceed = PicketAskResponse(
            actionIdentifier: PicketAskNotification.proceedAction, categoryIdentifier: PicketAskNotification.category,
            userInfo: ["host": "www.acme.example", "employerId": "emp"])
        #expect(proceed == .proceed(site: "www.acme.example", for: 86_400))
        #expect(proceed?.pageAddress == "https://www.acme.example/")
        let block = PicketAskResponse(
            actionIdentifier: PicketAskNotification.blockAction, categoryIdentifier: PicketAskNotification.category, userInfo: [:])
        #expect(block == .keepBlocked)
        let dismissed = PicketAskResponse(
            actionIdentifier: "com.apple.UNNotificationDismissActionIdentifier", categoryIdentifier: PicketAskNotification.category,
            userInfo: ["host": "acme.example"])
        #expect(dismissed == .keepBlocked)
        #expect(PicketAskResponse(actionIdentifier: PicketAskNotification.proceedAction, categoryIdentifier: "other", userInfo: [:]) == nil)
    }

    @Test func thePicketKeyGoesWhereTheStateIsToldToKeepIt() async throws {
        final class MemoryKeys: PicketKeyStore, @unchecked Sendable {
            let lock = NSLock()
            var stored: [PicketKeyAccount: String] = [:]
            func key(for account: PicketKeyAccount) throws -> String? { lock.withLock { stored[account] } }
            func setKey(_ key: String?, for account: PicketKeyAccount) throws { lock.withLock { stored[account] = key } }
        }
        let temporary = TemporaryContainer()
        let keys = MemoryKeys()
        let state = PepperState(home: temporary.container.home, database: temporary.state.database, configuration: .init(picketKeys: keys))
        let key = "opl_" + String(repeating: "ab", count: 32)
        try state.setPicketConnection(server: "https://opl.example", key: key)
        #expect(try keys.key() == key)
        #expect(try PreferenceStore(database: state.database).value(.picketKey) == nil, "the key is not in the shared database")
        #expect(try state.picketConnection()?.key == key)
        #expect(try await LaborActionsScreen(state: state).load().server?.maskedKey == APIKeys.masked(key))
        try state.forgetPicketConnection()
        #expect(try keys.key() == nil)
        // Without a store configured, the preferences keep it (Linux, the console).
        let plain = temporary.state
        try plain.setPicketConnection(server: "https://opl.example", key: key)
        #expect(try PreferenceStore(database: plain.database).value(.picketKey) == key)
    }
}
