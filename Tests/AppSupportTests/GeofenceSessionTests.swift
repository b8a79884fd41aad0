import AppSupport
import Foundation
import PepperTestSupport
import Picket
import Testing

/// The app's background labor-action awareness: regions, refreshes, notifications.
@Suite("Geofence session")
struct GeofenceSessionTests {
    static let start = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)

    static func geofence(_ id: String, _ at: GeoCoordinate, radius: Int = 500) -> Geofence {
        Geofence(
            id: id, type: "action", actionId: "act_" + id, employerId: "emp", employerName: "Acme", actionType: "strike",
            organization: "Acme Workers", location: "1 Main St", coordinates: at.coordinates, distance: 0, notificationRadius: radius)
    }

    static func data(_ geofences: [Geofence], center: GeoCoordinate = start, radius: Int = 160_934) -> MobileData {
        MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: center.coordinates, radiusMeters: radius, refreshThresholdMeters: radius * 8 / 10),
            geofences: GeofenceCollection(total: geofences.count, byEmployer: [], all: geofences),
            blocklist: Blocklist(totalUrls: 0, totalEmployers: 0, urls: []))
    }

    @Test func neverMoreThanTwentyRegionsAndOnlyPeppersAreTouched() {
        var random = SplitMix64(seed: 20)
        for _ in 0..<100 {
            let count = Int(random.next() % 60)
            let geofences = (0..<count).map {
                Self.geofence(
                    "g\($0)",
                    GreatCircle.destination(
                        from: Self.start, bearing: Double(random.next() % 360), distance: Double(random.next() % 50_000)))
            }
            let planner = GeofencePlanner()
            let monitored = planner.regions(around: Self.start, geofences: geofences)
            let planned = GeofenceRegions.regions(for: planner.circles(for: monitored, maximumRadius: 10_000))
            #expect(planned.count == min(count * 2, 20), "a notification circle and a zone per strike")
            let foreign = GeofenceRegion(identifier: "someone-else", center: Self.start, radius: 200)
            let current =
                [foreign]
                + planned.prefix(Int(random.next() % 21)).map {
                    // Some of them with an outdated radius.
                    random.next() % 2 == 0 ? $0 : GeofenceRegion(identifier: $0.identifier, center: $0.center, radius: $0.radius + 1)
                }
            let changes = GeofenceRegions.changes(current: current, planned: planned)
            #expect(!changes.stop.contains("someone-else"))
            let after = Set(current.map(\.identifier)).subtracting(changes.stop).union(changes.start.map(\.identifier))
            #expect(after.filter { $0.hasPrefix(GeofenceRegions.identifierPrefix) } == Set(planned.map(\.identifier)))
            #expect(after.filter { $0.hasPrefix(GeofenceRegions.identifierPrefix) }.count <= 20)
            // Unchanged regions are kept, not restarted.
            for region in current where planned.contains(region) { #expect(!changes.stop.contains(region.identifier)) }
        }
    }

    @Test func regionRadiiAreClampedToWhatTheDeviceMonitors() {
        let near = Self.geofence("near", Self.start, radius: 20)
        let far = Self.geofence("far", Self.start, radius: 500_000)
        let planner = GeofencePlanner()
        let regions = GeofenceRegions.regions(
            for: planner.circles(for: planner.regions(around: Self.start, geofences: [near, far]), maximumRadius: 10_000))
        #expect(
            Dictionary(uniqueKeysWithValues: regions.map { ($0.identifier, $0.radius) }) == [
                // 20 m: both circles are monitored as one of 100 m.
                "pepper.geofence.zone.near": 100, "pepper.geofence.near.far": 10_000, "pepper.geofence.zone.far": 100,
            ])
        #expect(GeofenceRegions.circle(named: "pepper.geofence.zone.far")?.role == .zone)
        #expect(GeofenceRegions.circle(named: "pepper.geofence.near.act.1")?.geofenceID == "act.1")
        for foreign in ["someone-else", "pepper.geofence.act_1", "pepper.geofence.zone.", "pepper.geofence.other.x"] {
            #expect(GeofenceRegions.circle(named: foreign) == nil, "\(foreign)")
        }
    }

    @Test func regionCrossingsBecomeNotificationsAndSayWhenToReadThePosition() {
        let picket = Self.geofence("p1", Self.start, radius: 400)
        var session = GeofenceSession()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        session.received(.updated(Self.data([picket]), hash: "h", body: Data()), at: Self.start, now: t0)
        let far = GreatCircle.destination(from: Self.start, bearing: 90, distance: 3_000)
        var update = session.move(to: far, at: t0, monitoring: [], maximumRadius: 10_000)
        let regions = update.planned
        #expect(regions.map(\.identifier) == ["pepper.geofence.near.p1", "pepper.geofence.zone.p1"])
        #expect(!update.locationUpdates.isOn && !update.requestsLocation)
        // Someone else's region: nothing, but a fix is asked for (precise updates are off).
        update = session.crossed(region: "someone-else", entering: true, at: t0 + 120, monitoring: regions, maximumRadius: 10_000)
        #expect(update.events.isEmpty && update.requestsLocation)
        update = session.crossed(
            region: "pepper.geofence.near.p1", entering: true, at: t0 + 180, monitoring: regions, maximumRadius: 10_000)
        #expect(update.notifications.map(\.body) == ["Acme: strike by Acme Workers at 1 Main St, within 400 m."])
        #expect(update.locationUpdates.isOn && update.locationUpdates.distanceFilter == 20 && !update.requestsLocation)
        #expect(update.regions.start.isEmpty && update.regions.stop.isEmpty)
        update = session.crossed(
            region: "pepper.geofence.zone.p1", entering: true, at: t0 + 300, monitoring: regions, maximumRadius: 10_000)
        #expect(update.notifications.map(\.body) == ["Acme: strike by Acme Workers at 1 Main St. You are at the picket line."])
        update = session.crossed(
            region: "pepper.geofence.near.p1", entering: false, at: t0 + 600, monitoring: regions, maximumRadius: 10_000)
        #expect(update.notifications.map(\.title) == ["Leaving Strike Zone"])
        #expect(!update.locationUpdates.isOn && update.requestsLocation, "out of the circle: precise updates off, one fix to plan again")
    }

    @Test func refreshesWithTheHashPastEightyPercentOfTheRadiusOrHourly() {
        var session = GeofenceSession()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let first = session.refresh(at: Self.start, now: t0)
        #expect(first?.reason == .noData)
        #expect(first?.lastHash == nil)
        session.received(.updated(Self.data([]), hash: "h1", body: Data()), at: Self.start, now: t0)
        #expect(session.refresh(at: Self.start, now: t0.addingTimeInterval(3_599)) == nil)
        // 80 % of 160,934 m is 128,747 m.
        let inside = GreatCircle.destination(from: Self.start, bearing: 0, distance: 128_000)
        #expect(session.refresh(at: inside, now: t0.addingTimeInterval(60)) == nil)
        let beyond = GreatCircle.destination(from: Self.start, bearing: 0, distance: 129_000)
        let moved = session.refresh(at: beyond, now: t0.addingTimeInterval(60))
        #expect(moved?.lastHash == "h1")
        if case .movedBeyondThreshold = moved?.reason {
        } else {
            Issue.record("expected a move past the threshold: \(String(describing: moved))")
        }
        let hourly = session.refresh(at: Self.start, now: t0.addingTimeInterval(3_600))
        #expect(hourly?.reason == .intervalElapsed(seconds: 3_600))
        #expect(hourly?.lastHash == "h1")
        // A 304 there and then starts both counts again from there.
        session.received(.notModified(hash: "h1"), at: beyond, now: t0.addingTimeInterval(3_600))
        #expect(session.refresh(at: beyond, now: t0.addingTimeInterval(3_601)) == nil)
    }

    @Test func eventsBecomeNotificationsAndSurviveARelaunch() throws {
        let picket = Self.geofence("p1", Self.start, radius: 400)
        var session = GeofenceSession()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        session.received(.updated(Self.data([picket]), hash: "h", body: Data()), at: Self.start, now: t0)
        let approach = GreatCircle.destination(from: Self.start, bearing: 90, distance: 300)
        var update = session.move(to: approach, at: t0, monitoring: [], maximumRadius: 10_000)
        #expect(update.notifications.map(\.title) == ["Near Strike"])
        #expect(update.regions.start.map(\.identifier) == ["pepper.geofence.near.p1", "pepper.geofence.zone.p1"])
        #expect(update.notifications.first?.body == "Acme: strike by Acme Workers at 1 Main St, 300 m away.")

        // The app is relaunched for the next region event: the saved session goes on.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-geofence-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try session.save(to: file)
        var relaunched = GeofenceSession.load(from: file)
        let monitored = update.regions.start
        update = relaunched.move(to: approach, at: t0.addingTimeInterval(60), monitoring: monitored, maximumRadius: 10_000)
        #expect(update.events.isEmpty, "already told: no second Near Strike after a relaunch")
        #expect(update.regions.start.isEmpty && update.regions.stop.isEmpty)
        update = relaunched.move(to: Self.start, at: t0.addingTimeInterval(120), monitoring: monitored, maximumRadius: 10_000)
        #expect(update.notifications.map(\.title) == ["Entering Strike Zone"])
        update = relaunched.move(
            to: GreatCircle.destination(from: Self.start, bearing: 90, distance: 2_000), at: t0.addingTimeInterval(180),
            monitoring: monitored,
            maximumRadius: 10_000)
        #expect(update.notifications.map(\.title) == ["Leaving Strike Zone"])
        #expect(update.notifications.first?.body == "Acme: strike by Acme Workers at 1 Main St. You have left the strike zone.")
        #expect(GeofenceSession.load(from: file.appendingPathExtension("missing")).tracker.cache == nil)
    }
}
