import Foundation
import Picket
import PicketServer
import Testing
import UTCTime

/// What the public OPL apps send, end to end on both stores: every action type their strike
/// forms offer, and two servers on one store answering with the same bytes.
@Suite("Picket API: the apps' action types, several servers on one store")
struct AppActionTypesTests {
    /// The iOS app's strike form (opl-for-apple, SubmitStrikeView's `actionTypes`).
    static let iOSActionTypes = ["strike", "lockout", "picket", "boycott", "work_stoppage", "other"]
    /// The Android app's strike form.
    static let androidActionTypes = ["strike", "walkout", "slowdown", "picket", "boycott", "other"]

    /// A report as the iOS app sends it: its own date format (ISO 8601 without fractions),
    /// `durationDays` always, "Unknown" when no address was typed.
    static func report(_ type: String, index: Int, now: Date) -> StrikeSubmission {
        let formatter = ISO8601DateFormatter()
        return StrikeSubmission(
            employer: .init(name: "Type Works \(index)", website: "https://type-\(index).example"),
            action: .init(
                organization: "Union \(index)", actionType: type, location: "Unknown",
                startDate: formatter.string(from: now.addingTimeInterval(-3_600)), durationDays: 7,
                description: "A \(type) reported from the app", contactInfo: "organizer@union.example",
                coordinates: GPSCoordinates(latitude: 47.60 + Double(index) / 1_000, longitude: -122.33)))
    }

    @Test(
        "every action type either OPL app offers: accepted, pending, then served by active-strikes, data and the feed once approved",
        arguments: StoreKind.allCases)
    func everyTypeTheAppsOffer(_ kind: StoreKind) async throws {
        let setup = try await EndToEndTests.Setup.make(kind)
        defer { Task { await setup.close() } }
        let offered = Self.iOSActionTypes + Self.androidActionTypes.filter { !Self.iOSActionTypes.contains($0) }
        #expect(offered.count == 8)
        let now = Date()
        var submitted: [String: String] = [:]
        for (index, type) in offered.enumerated() {
            let receipt = try await setup.write.submit(Self.report(type, index: index, now: now))
            #expect(receipt.message == "Submitted for moderation", "\(type)")
            submitted[receipt.id] = type
        }
        #expect(submitted.count == offered.count)
        let pending = try await setup.store.pendingSubmissions()
        #expect(Dictionary(uniqueKeysWithValues: pending.compactMap { item in item.actionType.map { (item.id, $0) } }) == submitted)
        #expect(try await setup.read.activeStrikes().strikes.allSatisfy { submitted[$0.id] == nil }, "pending is invisible")

        // A type no app sends is still refused, naming the field and listing the types; nothing is stored.
        let refused = try await setup.write.raw(
            method: "POST", path: "/api/mobile/submit-strike", body: try JSONEncoder().encode(Self.report("sit_in", index: 99, now: now)))
        #expect(refused.status == 400)
        #expect(
            try EndToEndTests.error(refused.body)
                == "action.actionType must be one of strike, lockout, walkout, slowdown, work_stoppage, picket, boycott, protest, other")
        #expect(try await setup.store.pendingSubmissions().count == pending.count)

        // Approved through another connection, as the console or `pepper picket moderate` would.
        let moderator = try await setup.test.reopen()
        for id in submitted.keys.sorted() {
            _ = try await moderator.moderate(id: id, decision: .approve, at: Date(), by: "test", reason: nil)
        }
        await moderator.close()

        let strikes = try await setup.read.activeStrikes()
        let served = Dictionary(uniqueKeysWithValues: strikes.strikes.map { ($0.id, $0.actionType) })
        for (id, type) in submitted {
            #expect(served[id] == type, "active-strikes serves \(id) as \(type)")
        }
        guard case .updated(let data, _, _) = try await setup.read.mobileData(at: Fixtures.seattle) else {
            Issue.record("expected a 200")
            return
        }
        for (id, type) in submitted {
            #expect(data.geofences.all.first { $0.actionId == id && $0.type == "action" }?.actionType == type, "data's geofence")
            #expect(data.blocklist.urls.first { $0.actionId == id }?.actionType == type, "data's blocklist")
        }
        let feed = try await setup.read.raw(method: "GET", path: "/api/blocklist.json")
        let object = try #require(try JSONSerialization.jsonObject(with: feed.body) as? [String: Any])
        for (index, type) in offered.enumerated() {
            let details = (object["Type Works \(index)"] as? [String: Any])?["actionDetails"] as? [String: Any]
            #expect(details?["actionType"] as? String == type, "the feed's \(type)")
        }
    }

    @Test("two servers on one store: the same bytes and hashes, a 304 from either, a change on both", arguments: StoreKind.allCases)
    func twoServersAnswerAlike(_ kind: StoreKind) async throws {
        let setup = try await EndToEndTests.Setup.make(kind)
        defer { Task { await setup.close() } }
        let other = try await setup.test.reopen()
        let second = try await TestServer.start(store: other)
        defer {
            Task {
                await second.stop()
                await other.close()
            }
        }
        let servers = [setup.server, second]
        func answers(_ path: String, _ query: [URLQueryItem] = []) async throws -> [(status: Int, hash: String?, body: Data)] {
            var result: [(status: Int, hash: String?, body: Data)] = []
            for server in servers {
                let answer = try await server.client(setup.keys.all).raw(method: "GET", path: path, query: query)
                result.append((answer.status, answer.headers["x-content-hash"], answer.body))
            }
            return result
        }
        let seattle: [URLQueryItem] = [.init(name: "lat", value: "47.6062"), .init(name: "lng", value: "-122.3321")]
        for round in ["fixtures", "after an approval"] {
            for (path, query) in [("/api/mobile/data", seattle), ("/api/blocklist.json", []), ("/api/mobile/active-strikes", [])] {
                let both = try await answers(path, query)
                #expect(both.allSatisfy { $0.status == 200 }, "\(round): \(path)")
                #expect(both[0].body == both[1].body, "\(round): \(path) is the same bytes from both servers")
                #expect(both[0].hash == both[1].hash, "\(round): \(path)")
                // generatedAt is when the content was published, not when a server answered.
                let object = try #require(try JSONSerialization.jsonObject(with: both[0].body) as? [String: Any])
                let generatedAt = (object["generatedAt"] ?? (object["_meta"] as? [String: Any])?["generatedAt"]) as? String
                #expect(generatedAt.flatMap(ISO8601.parse).map { $0 <= Date() } == true, "\(round): \(path)")
                // The data and the blocklist carry their content hash; active strikes do not.
                guard path != "/api/mobile/active-strikes" else {
                    #expect(both.allSatisfy { $0.hash == nil }, "\(round): \(path) has no content hash")
                    continue
                }
                let hash = try #require(both[0].hash, "\(round): \(path) carries its content hash")
                let conditional = try await answers(path, query + [.init(name: "hash", value: hash)])
                #expect(conditional.allSatisfy { $0.status == 304 && $0.body.isEmpty }, "\(round): \(path): 304 from either")
            }
            if round == "fixtures" {
                let receipt = try await setup.write.submit(Self.report("walkout", index: 1, now: Date()))
                _ = try await setup.store.moderate(id: receipt.id, decision: .approve, at: Date(), by: "test", reason: nil)
            }
        }
    }
}
