import AppSupport
import DeviceSync
import Foundation
import PepperActions
import Storage
import SyncTestSupport
import Testing

/// A serving home (as `pepper console` runs one) and a phone's app context, each with its own state.
final class PhoneAndHome: @unchecked Sendable {
    let home = TemporaryContainer()
    let phone = TemporaryContainer()
    let server: SyncServer
    let client: InProcessSyncClient
    let context: AppContext
    let runner: SyncRunner
    let url = URL(string: "https://home.example:8443")!
    /// The servers and trusts the runner asked clients for.
    let asked = LockedList<String>()

    init() throws {
        server = SyncServer(sync: HomeSync(state: home.state))
        client = InProcessSyncClient(server)
        context = try AppContext(container: phone.container)
        let client = self.client
        let asked = self.asked
        runner = SyncRunner(context: context) { server, trust in
            asked.append("\(server.absoluteString) \(trust)")
            return client
        }
    }

    func invitation() throws -> SyncInvitation {
        try HomeSync(state: home.state).invitation(server: url, pin: Data(repeating: 7, count: 32))
    }

    func plan() async throws -> SyncScreenPlan { SyncScreenPlan(status: try await runner.status()) }

    /// Waits up to `seconds` for `condition`.
    func eventually(_ seconds: Double = 10, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

final class LockedList<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}

/// The app's sync screen and its runner (`SyncScreenPlan`, `SyncRunner`): what the screen shows in
/// each phase, from real homes' statuses; pairing, following and one-off syncs one at a time
/// over the sync lock; the background schedule.
@Suite("The app's sync screen")
struct SyncScreenTests {
    @Test func pairingFromAnInvitationThenSyncNowCarriesTheEditsBothWays() async throws {
        let homes = try PhoneAndHome()
        var plan = try await homes.plan()
        #expect(plan.phase == .notPaired && plan.offersPairing && !plan.offersSyncNow && !plan.syncsAutomatically)
        #expect(SyncSchedule.nextBackgroundSync(after: Date(), plan: plan) == nil, "no background sync before pairing")
        _ = try await homes.home.state.addAllowlist("home.example", rebuild: false)
        _ = try await homes.context.state.addAllowlist("phone.example", rebuild: false)

        // The screen while pairing, then paired.
        let invitation = try homes.invitation()
        let pairing = SyncScreenPlan(status: try await homes.runner.status(), activity: .pairing(invitation))
        #expect(pairing.phase == .pairing(server: "home.example:8443"))
        #expect(pairing.explanation == "Pairing with home.example:8443…")
        let paired = await homes.runner.pair(invitation, deviceName: "alexs-iphone")
        let status = try paired.get()
        // The client was made for the invitation's server, trusting its pin.
        #expect(homes.asked.all.first == "https://home.example:8443 pinned(sha256: 32 bytes)")
        plan = SyncScreenPlan(status: status)
        guard case .paired(let details) = plan.phase else {
            Issue.record("not paired: \(plan.phase)")
            return
        }
        #expect(details.server == "home.example:8443" && details.device == "alexs-iphone")
        #expect(details.trust == "its own certificate, as the pairing code named it")
        #expect(details.lastSync != nil && details.lastError == nil)
        #expect(plan.offersSyncNow && plan.offersLeaving && plan.syncsAutomatically && !plan.offersPairing)
        #expect(
            plan.explanation == "This phone syncs with home.example:8443 as alexs-iphone: in the background, and whenever you open Pepper.")
        // Pairing synced once: each side has the other's entry.
        #expect(try homes.context.state.allowlistEntries().map(\.domain).contains("home.example"))
        #expect(try homes.home.state.allowlistEntries().map(\.domain).contains("phone.example"))

        // What pairing applied is not sent back: the next sync finds nothing to do, and nothing waits.
        let settled = try await homes.runner.syncNow().get()
        #expect(SyncScreenPlan.notice(after: .success(settled)) == .success("Up to date: nothing to send or receive."))
        guard case .paired(let idle) = try await homes.plan().phase else {
            Issue.record("not paired")
            return
        }
        #expect(idle.pendingChanges == 0 && idle.pendingText == nil)

        // An edit on the phone waits, then "Sync now" sends it.
        _ = try await homes.context.state.addAllowlist("later.example", rebuild: false)
        guard case .paired(let waiting) = try await homes.plan().phase else {
            Issue.record("not paired")
            return
        }
        #expect(waiting.pendingChanges == 1 && waiting.pendingText == "1 change here is not synced yet.")
        let report = try await homes.runner.syncNow().get()
        #expect(report.sent == 1)
        #expect(SyncScreenPlan.notice(after: .success(report)) == .success("Synced: 1 change sent, 0 changes received."))
        #expect(try homes.home.state.allowlistEntries().map(\.domain).contains("later.example"))
        guard case .paired(let synced) = try await homes.plan().phase else {
            Issue.record("not paired")
            return
        }
        #expect(synced.pendingChanges == 0 && synced.records >= 3)

        // Background syncs are asked for every 15 minutes while paired.
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(SyncSchedule.nextBackgroundSync(after: now, plan: try await homes.plan()) == now.addingTimeInterval(15 * 60))
    }

    @Test func followingBringsTheServingHomesEditWithinSecondsAndStoppingFreesTheLock() async throws {
        let homes = try PhoneAndHome()
        _ = try await homes.runner.pair(try homes.invitation(), deviceName: "phone").get()
        let changes = await homes.runner.changes()
        await homes.runner.startFollowing()
        #expect(await homes.runner.isFollowing)

        // An edit on the serving home reaches the phone while it follows, without a "Sync now".
        let started = ContinuousClock.now
        _ = try await homes.home.state.addAllowlist("live.example", rebuild: false)
        await homes.server.takeLocalChangesNow()
        let arrived = try await homes.eventually { try homes.context.state.allowlistEntries().map(\.domain).contains("live.example") }
        #expect(arrived)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "the held request returns as soon as the serving home has a change: \(took)")
        // The screen hears of it.
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() != nil)

        // And the phone's edit reaches the serving home the same way.
        _ = try await homes.context.state.addAllowlist("from-phone.example", rebuild: false)
        #expect(try await homes.eventually { try homes.home.state.allowlistEntries().map(\.domain).contains("from-phone.example") })

        // Leaving the front: stopping ends the held request at once, and once stopFollowing
        // returns the sync lock is free (a suspended app must hold none): another sync takes it.
        let stopping = ContinuousClock.now
        await homes.runner.stopFollowing()
        #expect(ContinuousClock.now - stopping < .seconds(2), "not the 20 s the request could be held")
        #expect(await !homes.runner.isFollowing)
        let direct = try await homes.context.sync.syncNow(client: homes.client)
        #expect(direct.exchanges >= 1)
        // Nothing follows any more: the serving home's next edit waits for the next sync.
        _ = try await homes.home.state.addAllowlist("quiet.example", rebuild: false)
        await homes.server.takeLocalChangesNow()
        try await Task.sleep(for: .milliseconds(700))
        #expect(try !homes.context.state.allowlistEntries().map(\.domain).contains("quiet.example"))
    }

    @Test func oneOffSyncsWhileFollowingTakeTurnsAndFollowingResumes() async throws {
        let homes = try PhoneAndHome()
        _ = try await homes.runner.pair(try homes.invitation(), deviceName: "phone").get()
        await homes.runner.startFollowing()
        // "Sync now" tapped five times and a background refresh, all at once: none is refused for
        // the lock, because each waits for the following to stop and for the one before it.
        let results = await withTaskGroup(of: Result<SyncRunReport, ActionError>.self) { group in
            for index in 0..<6 {
                group.addTask {
                    _ = try? await homes.context.state.addAllowlist("site\(index).example", rebuild: false)
                    return await homes.runner.syncNow()
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for result in results {
            if case .failure(let error) = result { Issue.record("a sync was refused: \(error)") }
        }
        let domains = Set(try homes.home.state.allowlistEntries().map(\.domain))
        #expect((0..<6).allSatisfy { domains.contains("site\($0).example") })
        // The app is still in front: following started again after the last one-off.
        #expect(try await homes.eventually(3) { await homes.runner.isFollowing })
        _ = try await homes.home.state.addAllowlist("after.example", rebuild: false)
        await homes.server.takeLocalChangesNow()
        #expect(try await homes.eventually { try homes.context.state.allowlistEntries().map(\.domain).contains("after.example") })
        await homes.runner.stopFollowing()

        // A background refresh whose time ran out: its sync is cancelled, and the lock is free.
        homes.client.isOffline = false
        let refresh = Task { await homes.runner.syncNow() }
        refresh.cancel()
        _ = await refresh.value
        _ = try await homes.context.sync.syncNow(client: homes.client)
    }

    @Test func aPhoneRemovedByTheServingHomeSaysSoAndStopsSyncingUntilPairedAgain() async throws {
        let homes = try PhoneAndHome()
        _ = try await homes.runner.pair(try homes.invitation(), deviceName: "phone").get()
        try HomeSync(state: homes.home.state).removeDevice("phone")
        let failed = await homes.runner.syncNow()
        #expect(throws: ActionError.self) { try failed.get() }
        let notice = SyncScreenPlan.notice(after: failed)
        #expect(notice.kind == .error && notice.text.hasPrefix("this device was removed from the serving home"), "\(notice.text)")
        let plan = try await homes.plan()
        guard case .removed(let details) = plan.phase else {
            Issue.record("not shown as removed: \(plan.phase)")
            return
        }
        #expect(details.lastError?.contains("removed") == true)
        #expect(!plan.offersSyncNow && !plan.syncsAutomatically && plan.offersLeaving && !plan.offersPairing)
        #expect(SyncSchedule.nextBackgroundSync(after: Date(), plan: plan) == nil)
        #expect(
            plan.explanation
                == "home.example:8443 removed this phone from its devices: nothing syncs any more. Stop syncing here (what this phone holds stays as it is), then pair again with a new code if you want to."
        )
        // Following does not start for a removed phone: it reads the status, stops, and sends
        // no request (however long reading the status takes on a busy machine).
        let before = homes.client.requests
        await homes.runner.startFollowing()
        #expect(try await homes.eventually(10) { await !homes.runner.isFollowing })
        try await Task.sleep(for: .milliseconds(300))
        #expect(await !homes.runner.isFollowing, "and it does not start again by itself")
        #expect(homes.client.requests == before)

        // Leaving keeps the phone's decisions and offers pairing again; a new code pairs it.
        _ = try await homes.context.state.addAllowlist("kept.example", rebuild: false)
        try await homes.runner.leave().get()
        #expect(try await homes.plan().phase == .notPaired)
        #expect(try homes.context.state.allowlistEntries().map(\.domain).contains("kept.example"))
        let again = try await homes.runner.pair(try homes.invitation(), deviceName: "phone-2").get()
        #expect(again.role == .following && again.device == "phone-2" && again.lastError == nil)
    }

    @Test func aStateThatServesSyncSaysAPhoneCannotServe() async throws {
        let homes = try PhoneAndHome()
        // The serving home's own state, as a restored backup would bring it to a phone.
        _ = try await homes.runner.pair(try homes.invitation(), deviceName: "phone").get()
        let serving = try HomeSync(state: homes.home.state).status()
        let plan = SyncScreenPlan(status: serving)
        #expect(plan.phase == .serving(devices: 1))
        #expect(!plan.offersPairing && !plan.offersSyncNow && !plan.offersLeaving && !plan.syncsAutomatically)
        #expect(plan.explanation.hasPrefix("This state serves sync to 1 device (a backup of a serving home was restored here)."))
    }

    @Test func anInvitationIsReadFromAScanOrAPasteAndAProblemIsSaidOncePerCode() throws {
        let invitation = try SyncInvitation(
            server: URL(string: "https://192.168.1.10:8443")!, code: "ABCD-EFGH-JKMN", pin: Data(repeating: 1, count: 32))
        var reader = SyncInvitationReader()
        // The camera sees the same code many times a second: one invitation, then nothing new.
        #expect(reader.read(invitation.text) == .invitation(invitation))
        #expect(reader.read(invitation.text) == .repeated)
        // Pasted with spaces and a new line around it.
        var pasted = SyncInvitationReader()
        #expect(pasted.read("  \(invitation.text)\n") == .invitation(invitation))
        // Another QR code: said once, then ignored while it stays in view.
        #expect(
            reader.read("https://example.com/menu")
                == .problem("This is not a Pepper pairing code: \(SyncInvitationError.notAnInvitation)."))
        #expect(reader.read("https://example.com/menu") == .repeated)
        #expect(
            reader.read("pepper-sync://home.example/?code=0000")
                == .problem("This is not a Pepper pairing code: \(SyncInvitationError.invalidCode)."))
        // Back to the invitation: read again.
        #expect(reader.read(invitation.text) == .invitation(invitation))
        // A phone never paired: scanning, then pairing (a server on the default port is shown without one).
        let phone = TemporaryContainer()
        let none = try HomeSync(state: phone.state).status()
        #expect(none.role == .none)
        let lan = try SyncInvitation(server: URL(string: "https://pepper.lan")!, code: "ABCD-EFGH-JKMN", pin: nil)
        #expect(SyncScreenPlan(status: none, activity: .scanning).phase == .scanning)
        #expect(SyncScreenPlan(status: none, activity: .pairing(lan)).phase == .pairing(server: "pepper.lan"))
    }

    @Test func aSyncThatCouldNotApplyEverythingSaysSo() {
        var report = SyncRunReport()
        report.sent = 2
        report.received = 3
        report.applied.refused = ["allowlist not a domain: not a domain"]
        report.refused = ["allowlist old.example"]
        let notice = SyncScreenPlan.notice(after: .success(report))
        #expect(notice.kind == .warning)
        #expect(
            notice.text
                == "Synced: 2 changes sent, 3 changes received. 1 received change could not be applied: allowlist not a domain: not a domain."
                + " 1 change made here more than 90 days ago came too late for the serving home and was dropped.")
        #expect(SyncScreenPlan.cameraText(.allowed) == nil && SyncScreenPlan.cameraText(.notAsked) == nil)
        #expect(SyncScreenPlan.cameraText(.denied)?.contains("Settings › Pepper › Camera") == true)
        #expect(
            [.denied, .restricted, .unavailable].allSatisfy {
                SyncScreenPlan.cameraText($0)?.hasSuffix("paste the invitation below instead.") == true
            })
    }

    @Test func thePhonesNameInSyncIsSuggestedFromItsNameAndChecked() {
        #expect(SyncScreenPlan.suggestedDeviceName("Alex\u{2019}s iPhone") == "alexs-iphone")
        #expect(SyncScreenPlan.suggestedDeviceName("Alex's iPad Pro (2)") == "alexs-ipad-pro-2")
        #expect(SyncScreenPlan.suggestedDeviceName("iPhone") == "iphone")
        #expect(SyncScreenPlan.suggestedDeviceName("Téléphone de Zoé") == "t-l-phone-de-zo")
        #expect(SyncScreenPlan.suggestedDeviceName("📱") == "iphone")
        #expect(SyncScreenPlan.suggestedDeviceName(String(repeating: "a", count: 80)).count == 64)
        for name in ["Alex\u{2019}s iPhone", "Téléphone de Zoé", "📱", String(repeating: "a b ", count: 40)] {
            #expect(DeviceID.isValid(SyncScreenPlan.suggestedDeviceName(name)), "\(name)")
        }
        #expect(SyncScreenPlan.deviceNameProblem("alexs-iphone") == nil)
        #expect(SyncScreenPlan.deviceNameProblem("") == "Give this phone a name.")
        #expect(SyncScreenPlan.deviceNameProblem(String(repeating: "a", count: 65)) == "At most 64 characters.")
        #expect(SyncScreenPlan.deviceNameProblem("Alex's iPhone") == "Only lower-case letters a–z, digits and - (such as alexs-iphone).")
    }

    @Test func theInfoPlistPermitsEveryBackgroundTaskTheAppRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let project = try String(contentsOf: root.appendingPathComponent("Apple/project.yml"), encoding: .utf8)
        let line = try #require(project.split(separator: "\n").first { $0.contains("BGTaskSchedulerPermittedIdentifiers:") })
        let listed = line.split(separator: "[").last?.split(separator: "]").first?.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        // Exactly the app's tasks: iOS refuses to schedule one the Info.plist does not list, and
        // `scripts/ios-check.sh` fails an identifier no code names.
        #expect(listed.map(Set.init) == Set(BackgroundRefresh.allTasks))
        #expect(BackgroundRefresh.allTasks.allSatisfy { $0.utf8.count > 15 }, "long enough for the iOS check to find in the binary")
        // Background refreshes need the fetch mode; the scanner needs the camera prompt.
        #expect(project.contains("UIBackgroundModes: [location, fetch]"))
        #expect(project.contains("NSCameraUsageDescription:"))
    }
}
