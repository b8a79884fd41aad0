import CallFilter
import DeviceSync
import Foundation
import Storage
import SyncTestSupport
import Testing

@testable import PepperActions

/// Homes in one process, one serving and the others following.
struct SyncedHomes {
    let serving = TemporaryState()
    let followers: [TemporaryState]
    let server: SyncServer
    let client: InProcessSyncClient
    let url = URL(string: "https://home.example:8443")!

    init(followers count: Int) {
        followers = (0..<count).map { _ in TemporaryState() }
        server = SyncServer(sync: HomeSync(state: serving.state))
        client = InProcessSyncClient(server)
    }

    func pairAll() async throws {
        for (index, follower) in followers.enumerated() {
            let invitation = try HomeSync(state: serving.state).invitation(server: url, pin: nil)
            try await HomeSync(state: follower.state).pair(invitation, deviceName: "device-\(index)", client: client)
        }
    }

    /// Every home's synced decisions.
    func decisions() throws -> [[SyncRecordID: [String: String]]] {
        try ([serving] + followers).map { try Self.decisions(of: $0.state) }
    }

    /// One home's synced decisions (a synchronous read: GRDB's async one needs another executor).
    static func decisions(of state: PepperState) throws -> [SyncRecordID: [String: String]] {
        try state.database.writer.read { db in try SyncedDecisions.read(db) }
    }

    /// The device key a following home keeps.
    static func key(of state: PepperState) throws -> String? {
        try SyncPairingStore(database: state.database).peer()?.key
    }

    /// Syncs every follower, then every follower again (so what one brought reaches the others).
    func syncAll() async throws {
        for _ in 0..<2 {
            for follower in followers { _ = try await HomeSync(state: follower.state).syncNow(client: client) }
        }
    }
}

@Suite("Sync between a person's homes")
struct HomeSyncTests {
    @Test func everyKindOfDecisionReadsBackAsItWasApplied() async throws {
        let source = TemporaryState()
        let state = source.state
        _ = try await state.addAllowlist("news.example", for: 3600, rebuild: false)
        _ = try await state.addAllowlist("shop.example", rebuild: false)
        try await state.addRule("||ads.example^", rebuild: false)
        _ = try state.blockNumber("+1 206 555 0100", region: "US")
        _ = try state.identifyNumber("+1 425 555 0199", label: "Pizza", region: "US")
        _ = try state.addMessageWord("lottery", action: .junk, region: "US")
        _ = try state.blockSender("+1 206 555 0177", region: "US")
        _ = try await state.disableList(try state.lists().first(where: \.builtIn)!.name, rebuild: false)
        _ = try await state.setPicketPolicy(.block)
        try PreferenceStore(database: state.database).set(.picketServer, try PepperState.picketServerAddress("https://picket.example/"))
        let written = try SyncedHomes.decisions(of: state)
        #expect(Set(written.keys.map(\.kind)) == [.allowlistEntry, .myRule, .listSubscription, .callNumber, .messageRule, .picketSettings])
        #expect(written[SyncRecordID(kind: .picketSettings, key: "server")] == ["value": "https://picket.example"])
        #expect(written[SyncRecordID(kind: .picketSettings, key: "policy")] == ["value": "block"])

        // Applied to another home, every record reads back with the same values.
        let target = TemporaryState()
        let records = written.map { id, values in
            SyncRecord(id: id).writing(values, stamp: SyncStamp(millis: 1, counter: 0, device: try! DeviceID("source")))
        }
        let report = await target.state.applySynced(records)
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(report.rebuilt)
        let read = try SyncedHomes.decisions(of: target.state)
        #expect(read == written)
    }

    @Test func editsOnEveryHomeReachTheOthersAndDeletionsToo() async throws {
        let homes = SyncedHomes(followers: 2)
        _ = try await homes.serving.state.addAllowlist("home.example", rebuild: false)
        _ = try await homes.followers[0].state.addAllowlist("phone.example", for: 86_400, rebuild: false)
        _ = try homes.followers[1].state.blockNumber("+1 206 555 0100", region: "US")
        try await homes.pairAll()
        try await homes.syncAll()
        var all = try homes.decisions()
        #expect(all[0] == all[1] && all[1] == all[2])
        #expect(all[0][SyncRecordID(kind: .allowlistEntry, key: "phone.example")] != nil)
        #expect(all[0][SyncRecordID(kind: .callNumber, key: "block:+12065550100")] != nil)
        // The allowlist entry allowed on the phone is allowed on the laptop: its blocker was rebuilt.
        #expect(try homes.followers[1].state.allowlistEntries().map(\.domain).contains("phone.example"))

        // An edit on the serving home (another face: the command line's own state) and a deletion on a follower.
        _ = try await homes.serving.opened().addAllowlist("later.example", rebuild: false)
        _ = try await homes.followers[1].state.removeAllowlist("home.example", rebuild: false)
        await homes.server.takeLocalChangesNow()
        try await homes.syncAll()
        all = try homes.decisions()
        #expect(all[0] == all[1] && all[1] == all[2])
        #expect(all[2][SyncRecordID(kind: .allowlistEntry, key: "later.example")] != nil)
        #expect(all[0][SyncRecordID(kind: .allowlistEntry, key: "home.example")] == nil)
    }

    @Test func aSyncThatOnlyAppliedSendsNothingBack() async throws {
        let homes = SyncedHomes(followers: 1)
        for index in 0..<50 { _ = try await homes.serving.state.addAllowlist("site\(index).example", rebuild: false) }
        try await homes.pairAll()
        let sync = HomeSync(state: homes.followers[0].state)
        let again = try await sync.syncNow(client: homes.client)
        #expect(again.sent == 0 && again.received == 0, "applying is not taken for the person's edit (no echo)")
        #expect(try sync.status().pendingChanges == 0)
        #expect(try homes.decisions()[1].count == (try homes.decisions()[0].count))
    }

    @Test func theLaterEditOfOneEntryWinsOnEveryHome() async throws {
        let homes = SyncedHomes(followers: 2)
        try await homes.pairAll()
        _ = try await homes.followers[0].state.addAllowlist("same.example", for: 3600, rebuild: false)
        try await homes.syncAll()
        // Both change its expiry; the second change is the later one.
        _ = try await homes.followers[0].state.addAllowlist("same.example", for: 7200, rebuild: false)
        try await Task.sleep(for: .milliseconds(20))
        _ = try await homes.followers[1].state.addAllowlist("same.example", rebuild: false)
        try await homes.syncAll()
        let all = try homes.decisions()
        #expect(all[0] == all[1] && all[1] == all[2])
        #expect(all[0][SyncRecordID(kind: .allowlistEntry, key: "same.example")] == ["expires": ""], "for good, the later edit")
    }

    @Test func aDeviceCannotStoreWhatTheScreensWouldRefuse() async throws {
        let homes = SyncedHomes(followers: 1)
        try await homes.pairAll()
        let before = try homes.decisions()[0]
        let device = try DeviceID("device-0")
        let stamp = SyncStamp(millis: HybridLogicalClock.millis(Date()), counter: 0, device: device)
        let key = try #require(try SyncedHomes.key(of: homes.followers[0].state))
        for bad in [
            SyncRecord(
                id: SyncRecordID(kind: .allowlistEntry, key: "not a domain"), fields: ["expires": SyncField(value: "", stamp: stamp)]),
            SyncRecord(
                id: SyncRecordID(kind: .callNumber, key: "block:+1"),
                fields: ["label": SyncField(value: "", stamp: stamp), "pattern": SyncField(value: "", stamp: stamp)]),
            SyncRecord(id: SyncRecordID(kind: .myRule, key: "! a comment"), fields: ["enabled": SyncField(value: "true", stamp: stamp)]),
            SyncRecord(
                id: SyncRecordID(kind: SyncRecordKind(rawValue: "console-password"), key: "x"),
                fields: ["v": SyncField(value: "1", stamp: stamp)]),
            SyncRecord(
                id: SyncRecordID(kind: .picketSettings, key: "server"),
                fields: ["value": SyncField(value: "ftp://picket.example", stamp: stamp)]),
            SyncRecord(
                id: SyncRecordID(kind: .picketSettings, key: "key"), fields: ["value": SyncField(value: "opl_secret", stamp: stamp)]),
        ] {
            let request = SyncRequest(device: device, changes: [bad], changesThrough: 99, cursor: 0, numbering: "", limit: 10)
            await #expect(throws: SyncServerError.self) { _ = try await homes.server.exchange(request, key: key) }
            do {
                _ = try await homes.server.exchange(request, key: key)
            } catch {
                #expect(error.status == 422, "\(bad.id): \(error)")
            }
        }
        #expect(try homes.decisions()[0] == before, "nothing taken")
        // Another device's key cannot send as this device.
        let request = SyncRequest(device: try DeviceID("someone-else"), changes: [], changesThrough: 0, cursor: 0, numbering: "", limit: 10)
        do {
            _ = try await homes.server.exchange(request, key: key)
            Issue.record("sending as another device was taken")
        } catch {
            #expect(error.status == 403)
        }
    }

    @Test func aCodeWorksOnceAndARemovedDeviceIsRefusedAtOnce() async throws {
        let homes = SyncedHomes(followers: 2)
        let sync = HomeSync(state: homes.serving.state)
        let invitation = try sync.invitation(server: homes.url, pin: nil)
        try await HomeSync(state: homes.followers[0].state).pair(invitation, deviceName: "phone", client: homes.client)
        await #expect(throws: ActionError.self) {
            try await HomeSync(state: homes.followers[1].state).pair(invitation, deviceName: "laptop", client: homes.client)
        }
        let expired = try sync.invitation(server: homes.url, pin: nil, validFor: .seconds(0))
        do {
            try await HomeSync(state: homes.followers[1].state).pair(expired, deviceName: "laptop", client: homes.client)
            Issue.record("an expired code paired")
        } catch {
            #expect(error.description.contains("unknown, was used already or expired"))
        }
        #expect(try sync.devices().map(\.name) == ["phone"])
        try sync.removeDevice("phone")
        let phone = HomeSync(state: homes.followers[0].state)
        do {
            _ = try await phone.syncNow(client: homes.client)
            Issue.record("a removed device synced")
        } catch {
            #expect(error.description.contains("this device was removed"))
        }
        #expect(try phone.status().lastError?.contains("removed") == true)
    }

    @Test func aHomeAwayKeepsItsEditsAndGetsTheOthersWhenBack() async throws {
        let homes = SyncedHomes(followers: 2)
        try await homes.pairAll()
        homes.client.isOffline = true
        _ = try await homes.followers[0].state.addAllowlist("offline.example", rebuild: false)
        await #expect(throws: ActionError.self) { _ = try await HomeSync(state: homes.followers[0].state).syncNow(client: homes.client) }
        #expect(try HomeSync(state: homes.followers[0].state).status().lastError?.contains("offline") == true)
        homes.client.isOffline = false
        _ = try homes.followers[1].state.identifyNumber("+1 425 555 0100", label: "School", region: "US")
        try await homes.syncAll()
        let all = try homes.decisions()
        #expect(all[0] == all[1] && all[1] == all[2])
        #expect(all[1][SyncRecordID(kind: .allowlistEntry, key: "offline.example")] != nil)
        #expect(all[0][SyncRecordID(kind: .callNumber, key: "identify:+14255550100")]?["label"] == "School")
        #expect(try HomeSync(state: homes.followers[0].state).status().lastError == nil)
    }
}
