import AppSupport
import Foundation
import Picket
import PicketServer
import PicketTestSupport
import ServerMetrics
import Storage
import Testing

/// The app's one owner of the geofence session, against a real Picket server on loopback: each
/// transition posted once however many location events arrive together, one fetch for them, and
/// the refreshes of a phone that does not move.
@Suite("Geofence coordinator", .serialized)
struct GeofenceCoordinatorTests {
    static let seattle = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)

    /// Picket servers over one store (so a second one is "another server" with the same data),
    /// counting the `data` requests they answer.
    final class Servers: @unchecked Sendable {
        let store: SQLitePicketStore
        let key: String
        let servers: [LoopbackPicketServer]
        let metrics: MetricsEndpoint
        private let folder: URL

        init(count: Int = 1) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-coordinator-\(UUID().uuidString.prefix(8))")
            store = SQLitePicketStore(database: try PepperDatabase(url: folder.appendingPathComponent("server.sqlite")))
            let now = Date()
            _ = try await store.importRecords(
                ImportRecords(
                    employers: [EmployerRecord(id: "emp_a", name: "Acme", domains: ["acme.example"], status: .approved)],
                    actions: [
                        ActionRecord(
                            id: "act_a", employerId: "emp_a", organization: "Acme Workers", actionType: "strike", location: "Seattle",
                            startDate: now.addingTimeInterval(-86_400), endDate: now.addingTimeInterval(20 * 86_400),
                            description: "On strike", coordinate: GeofenceCoordinatorTests.seattle, notificationRadius: 500,
                            status: .approved, origin: "import")
                    ]))
            key = try await APIKeys.create(scopes: [.readMobile], in: store).key
            metrics = MetricsEndpoint(host: "127.0.0.1", port: 0)
            var servers: [LoopbackPicketServer] = []
            for _ in 0..<count {
                servers.append(try await .start(store: store, metrics: PicketServerMetrics(factory: metrics.factory)))
            }
            self.servers = servers
        }

        func address(_ index: Int = 0) -> String { servers[index].address }

        /// How many `data` requests were answered, and how many of them with 304.
        func dataRequests() -> (all: Int, notModified: Int) {
            var all = 0.0
            var notModified = 0.0
            for line in metrics.registry.emitToString().split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                let name = line[..<space]
                if name == #"pepper_picket_request_duration_seconds_count{route="/api/mobile/data"}"# { all = value }
                if name == #"pepper_picket_conditional_requests_total{route="/api/mobile/data",result="not_modified"}"# {
                    notModified = value
                }
            }
            return (Int(all), Int(notModified))
        }

        /// A second strike 300 m east of the first, approved now (the data's hash changes).
        func addStrikeNearby() async throws {
            _ = try await store.importRecords(
                ImportRecords(
                    employers: [EmployerRecord(id: "emp_b", name: "Bolt", domains: ["bolt.example"], status: .approved)],
                    actions: [
                        ActionRecord(
                            id: "act_b", employerId: "emp_b", actionType: "strike", startDate: Date().addingTimeInterval(-3_600),
                            description: "Walkout",
                            coordinate: GreatCircle.destination(from: GeofenceCoordinatorTests.seattle, bearing: 90, distance: 300),
                            notificationRadius: 400, status: .approved, origin: "import")
                    ]))
        }

        func stop() async {
            for server in servers { await server.stop() }
            await store.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The app's context in a fresh container, connected to `address`.
    static func context(_ servers: Servers, address: String? = nil) throws -> (AppContext, TemporaryContainer) {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        _ = try context.state.setPicketConnection(server: address ?? servers.address(), key: servers.key)
        return (context, temporary)
    }

    @Test func concurrentMovesPostEachTransitionOnceAfterOneFetch() async throws {
        let servers = try await Servers()
        let (context, container) = try Self.context(servers)
        let now = Date()
        // Twelve location events at once (a deferred batch, a region wake-up, a significant change),
        // all in the strike zone: one fetch, one "Entering".
        let entering = await withTaskGroup(of: GeofenceSession.Update.self) { group in
            for index in 0..<12 {
                group.addTask {
                    await context.geofenceMove(
                        to: Self.seattle, at: now.addingTimeInterval(Double(index % 3)), monitoring: [], maximumRadius: 10_000)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(entering.flatMap(\.notifications).map(\.title) == ["Entering Strike Zone"])
        #expect(servers.dataRequests().all == 1, "one fetch for twelve moves")
        #expect(entering.allSatisfy { $0.locationUpdates.isOn }, "precise updates run in the circle")
        // Twelve more, 2 km away: one "Leaving", and no fetch (the data is fresh).
        let away = GreatCircle.destination(from: Self.seattle, bearing: 90, distance: 2_000)
        let leaving = await withTaskGroup(of: GeofenceSession.Update.self) { group in
            for index in 0..<12 {
                group.addTask {
                    await context.geofenceMove(
                        to: away, at: now.addingTimeInterval(60 + Double(index % 3)), monitoring: [], maximumRadius: 10_000)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(leaving.flatMap(\.notifications).map(\.title) == ["Leaving Strike Zone"])
        #expect(servers.dataRequests().all == 1)
        // The zone's region and a fix inside it, racing: whichever comes first raises "Entering",
        // the other nothing.
        async let crossing = context.geofencing.crossed(
            region: "pepper.geofence.zone.act_a", entering: true, at: now.addingTimeInterval(400), monitoring: [], maximumRadius: 10_000)
        async let move = context.geofenceMove(to: Self.seattle, at: now.addingTimeInterval(401), monitoring: [], maximumRadius: 10_000)
        let raced = await crossing.notifications + (await move).notifications
        #expect(raced.map(\.title) == ["Entering Strike Zone"])
        // The session on disk is the one in memory: a relaunch does not enter again.
        let saved = GeofenceSession.load(from: context.geofenceSessionURL)
        #expect(saved.tracker.lastPosition == Self.seattle)
        var relaunched = saved
        #expect(relaunched.move(to: Self.seattle, at: now.addingTimeInterval(500), monitoring: [], maximumRadius: 10_000).events.isEmpty)
        withExtendedLifetime(container) {}
        await servers.stop()
    }

    @Test func aStillPhoneIsRefreshedByTheBackgroundTaskAndSkipsInLowPowerMode() async throws {
        let servers = try await Servers()
        let (context, container) = try Self.context(servers)
        let t0 = Date()
        let coordinator = context.geofencing
        _ = await context.geofenceMove(to: Self.seattle, at: t0, monitoring: [], maximumRadius: 10_000)
        #expect(servers.dataRequests().all == 1)
        #expect(
            await coordinator.refresh(.background, now: t0.addingTimeInterval(1_800), lowPowerMode: false)
                == .skipped(.fresh(due: t0.addingTimeInterval(3_600))))
        #expect(await coordinator.nextBackgroundRefresh(after: t0.addingTimeInterval(1_800)) == t0.addingTimeInterval(3_600))
        // An hour later, the phone has not moved: the hash check costs a 304.
        #expect(
            await coordinator.refresh(.background, now: t0.addingTimeInterval(3_600), lowPowerMode: false)
                == .notModified(.intervalElapsed(seconds: 3_600)))
        #expect(servers.dataRequests() == (2, 1))
        // A strike starts 300 m away: the next hourly check brings it, and the next fix hears of it.
        try await servers.addStrikeNearby()
        let updated = await coordinator.refresh(.background, now: t0.addingTimeInterval(7_200), lowPowerMode: false)
        #expect(updated == .updated(.intervalElapsed(seconds: 3_600)) && updated.changedData)
        let next = await context.geofenceMove(to: Self.seattle, at: t0.addingTimeInterval(7_260), monitoring: [], maximumRadius: 10_000)
        #expect(next.notifications.map(\.title) == ["Near Strike"])
        #expect(next.planned.count == 4, "two strikes, two circles each")
        // Low Power Mode: the hourly check waits for the data's expiry, a day after the fetch.
        #expect(
            await coordinator.refresh(.background, now: t0.addingTimeInterval(10_800), lowPowerMode: true)
                == .skipped(.lowPowerMode(expires: t0.addingTimeInterval(7_200 + 86_400))))
        #expect(servers.dataRequests().all == 3)
        #expect(
            await coordinator.refresh(.background, now: t0.addingTimeInterval(7_200 + 86_400), lowPowerMode: true)
                == .notModified(.expired(seconds: 86_400)))
        #expect(servers.dataRequests() == (4, 2))
        withExtendedLifetime(container) {}
        await servers.stop()
    }

    @Test func aRelaunchRefreshesWhenDueAfterACacheClearAndForAnotherServer() async throws {
        let servers = try await Servers(count: 2)
        let (context, container) = try Self.context(servers)
        let t0 = Date()
        _ = await context.geofenceMove(to: Self.seattle, at: t0, monitoring: [], maximumRadius: 10_000)
        // Relaunched two hours later (a new context on the same container): due at launch.
        let relaunched = try AppContext(container: container.container)
        #expect(
            await relaunched.geofencing.refresh(.launch, now: t0.addingTimeInterval(7_200), lowPowerMode: false)
                == .notModified(.intervalElapsed(seconds: 3_600)))
        #expect(await relaunched.geofencing.refresh(.launch, now: t0.addingTimeInterval(7_300), lowPowerMode: false).changedData == false)
        #expect(servers.dataRequests() == (2, 1))
        // The person picks the second server: its data replaces the first's at the next launch.
        _ = try relaunched.state.setPicketConnection(server: servers.address(1), key: servers.key)
        let again = try AppContext(container: container.container)
        #expect(await again.geofencing.refresh(.launch, now: t0.addingTimeInterval(7_400), lowPowerMode: true) == .updated(.serverChanged))
        #expect(servers.dataRequests() == (3, 1), "a whole payload, not a 304 on the other server's hash")
        // The cache cleared (the saved session gone): the first fix fetches, in Low Power Mode too,
        // and the zone the phone is in is entered (the cleared session knew nothing of it).
        try FileManager.default.removeItem(at: again.geofenceSessionURL)
        let cleared = try AppContext(container: container.container)
        #expect(await cleared.geofencing.refresh(.launch, now: t0.addingTimeInterval(7_500), lowPowerMode: true) == .skipped(.noPosition))
        let first = await cleared.geofenceMove(
            to: Self.seattle, at: t0.addingTimeInterval(7_600), monitoring: [], maximumRadius: 10_000, lowPowerMode: true)
        #expect(servers.dataRequests().all == 4)
        #expect(first.notifications.map(\.title) == ["Entering Strike Zone"])
        withExtendedLifetime(container) {}
        await servers.stop()
    }

    @Test func aServerThatFailsIsAskedAgainFiveMinutesLater() async throws {
        let servers = try await Servers()
        let (context, container) = try Self.context(servers)
        let port = servers.servers[0].port
        await servers.stop()
        let t0 = Date()
        let failed = await context.geofencing.refresh(.location(Self.seattle), now: t0, lowPowerMode: false)
        guard case .failed(.noData, _) = failed else {
            Issue.record("expected a failed fetch from a stopped server, got \(failed)")
            return
        }
        #expect(
            await context.geofencing.refresh(.location(Self.seattle), now: t0.addingTimeInterval(60), lowPowerMode: false)
                == .skipped(.retryLater(at: t0.addingTimeInterval(300))), "port \(port) is not asked again within five minutes")
        guard case .failed = await context.geofencing.refresh(.location(Self.seattle), now: t0.addingTimeInterval(300), lowPowerMode: false)
        else {
            Issue.record("asked again after five minutes")
            return
        }
        withExtendedLifetime(container) {}
    }
}
