import DeviceSync
import Foundation
import Testing

@Suite struct RetentionAndLimitsTests {
    static let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let x = SyncRecordID(kind: .allowlistEntry, key: "x.example")
    let y = SyncRecordID(kind: .allowlistEntry, key: "y.example")
    let z = SyncRecordID(kind: .allowlistEntry, key: "z.example")

    /// Exchanges until the follower has sent and received everything.
    func sync(_ follower: inout SyncFollower, with hub: inout SyncHub, at now: Date) throws -> SyncMergeOutcome {
        var outcome = SyncMergeOutcome()
        repeat {
            let (response, _) = try hub.exchange(follower.request(limit: 2), now: now)
            let received = try follower.receive(response, now: now)
            outcome.changed += received.changed
            outcome.refused += received.refused + response.refused
        } while follower.hasUnsentChanges || follower.cursor < hub.replica.sequence
        return outcome
    }

    @Test func aDeviceAwayLongerThanTheRetentionNeitherBringsBackWhatWasDeletedNorLosesItsRecentChanges() throws {
        var hub = SyncHub(replica: SyncReplica(device: try DeviceID("home"), role: .serving))
        var phone = SyncFollower(replica: SyncReplica(device: try DeviceID("phone"), role: .following))
        var laptop = SyncFollower(replica: SyncReplica(device: try DeviceID("laptop"), role: .following))
        hub.replica.write(x, values: ["expires": "never"], now: start)
        _ = try sync(&phone, with: &hub, at: start)
        _ = try sync(&laptop, with: &hub, at: start)
        #expect(phone.replica.visibleState[x] == ["expires": "never"])

        // The phone goes away; the laptop deletes x; the phone, offline, allows y, then much later z.
        laptop.delete(x, now: start + 1 * Self.day)
        _ = try sync(&laptop, with: &hub, at: start + 1 * Self.day)
        phone.write(y, values: ["expires": "never"], now: start + 2 * Self.day)
        phone.write(z, values: ["expires": "never"], now: start + 30 * Self.day)

        // On day 95 the home forgets the deletions older than the retention (90 days).
        hub.forgetOldDeletions(now: start + 95 * Self.day)
        #expect(hub.replica.records[x] == nil)
        #expect(hub.replica.forgottenThrough > phone.cursor)

        let outcome = try sync(&phone, with: &hub, at: start + 96 * Self.day)
        #expect(outcome.refused == [y], "the change to y is older than what the home still knows about deletions")
        #expect(Set(outcome.changed.filter { !$0.isLive }.map(\.id)) == [x, y], "the phone is told to remove x and y")
        #expect(phone.replica.visibleState == [z: ["expires": "never"]])
        #expect(hub.replica.visibleState == [z: ["expires": "never"]])
        _ = try sync(&laptop, with: &hub, at: start + 96 * Self.day)
        #expect(laptop.replica.visibleState == [z: ["expires": "never"]])
    }

    @Test func aServingHomeRestoredFromAnOlderBackupGetsBackWhatTheOthersHave() throws {
        var hub = SyncHub(replica: SyncReplica(device: try DeviceID("home"), role: .serving))
        let backup = hub
        var phone = SyncFollower(replica: SyncReplica(device: try DeviceID("phone"), role: .following))
        hub.replica.write(x, values: ["expires": "never"], now: start)
        phone.write(y, values: ["note": "bank"], now: start)
        _ = try sync(&phone, with: &hub, at: start)
        #expect(phone.cursor > 0)

        hub = backup  // the serving home's disk was replaced by an older backup, and restored
        hub.replica.renumber()
        hub.replica.write(z, values: ["expires": "never"], now: start + Self.day)
        hub.replica.write(z, values: ["expires": "2030-01-01"], now: start + Self.day)
        hub.replica.write(z, values: ["note": "a"], now: start + Self.day)
        #expect(
            phone.cursor < hub.replica.sequence,
            "the restored home's numbers went past the phone's cursor: only the numbering tells them apart")
        _ = try sync(&phone, with: &hub, at: start + Self.day)
        #expect(hub.replica.visibleState == [x: ["expires": "never"], y: ["note": "bank"], z: ["expires": "2030-01-01", "note": "a"]])
        #expect(phone.replica.visibleState == hub.replica.visibleState)
    }

    @Test func aBatchOverTheLimitsChangesNothing() throws {
        var hub = SyncHub(
            replica: SyncReplica(device: try DeviceID("home"), role: .serving), limits: SyncLimits(recordsPerBatch: 3, bytesPerRecord: 64))
        var phone = SyncFollower(replica: SyncReplica(device: try DeviceID("phone"), role: .following))
        for index in 0..<4 { phone.write(SyncRecordID(kind: .myRule, key: "||ads\(index).example^"), values: ["on": "1"], now: start) }
        #expect(throws: SyncError.batchTooLarge(records: 4, limit: 3)) { try hub.exchange(phone.request(limit: 4), now: start) }

        var big = SyncFollower(replica: SyncReplica(device: try DeviceID("tablet"), role: .following))
        big.write(x, values: ["note": String(repeating: "n", count: 60)], now: start)
        #expect(throws: SyncError.recordTooLarge(x, bytes: 9 + 4 + 60, limit: 64)) { try hub.exchange(big.request(limit: 3), now: start) }
        #expect(hub.replica.sequence == 0 && hub.replica.records.isEmpty)

        // A device whose clock is two days ahead: its changes are refused, the good ones in the
        // same batch too, until its clock is right.
        var ahead = SyncFollower(replica: SyncReplica(device: try DeviceID("ahead"), role: .following))
        ahead.write(y, values: ["on": "1"], now: start)
        ahead.write(z, values: ["on": "1"], now: start + 2 * Self.day)
        #expect(throws: SyncError.self) { try hub.exchange(ahead.request(limit: 3), now: start) }
        #expect(hub.replica.sequence == 0 && hub.replica.records.isEmpty)
        #expect(hub.replica.clock.latest.millis == 0, "the refused batch did not move the home's clock either")
    }

    @Test func requestsAndAnswersSurviveJSON() throws {
        var hub = SyncHub(replica: SyncReplica(device: try DeviceID("home"), role: .serving))
        var phone = SyncFollower(replica: SyncReplica(device: try DeviceID("phone"), role: .following))
        phone.write(x, values: ["expires": "never", "note": "ünïcode ✓"], now: start)
        phone.delete(x, now: start + 1)
        phone.write(y, values: ["expires": "2030-01-01"], now: start + 2)
        let request = phone.request(limit: 10)
        let decodedRequest = try JSONDecoder().decode(SyncRequest.self, from: JSONEncoder().encode(request))
        #expect(decodedRequest == request)
        let (response, _) = try hub.exchange(decodedRequest, now: start + 3)
        let decodedResponse = try JSONDecoder().decode(SyncResponse.self, from: JSONEncoder().encode(response))
        #expect(decodedResponse == response)
        #expect(decodedResponse.records.count == 2 && decodedResponse.acknowledgedThrough == request.changesThrough)
    }
}
