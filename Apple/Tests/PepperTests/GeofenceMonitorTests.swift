import AppSupport
import CoreLocation
import Foundation
import Picket
import XCTest

@testable import Pepper

/// Core Location as `GeofenceMonitor` sees it, recording what the monitor asks of it. Region
/// monitoring needs a person's "Always" answer, which a test cannot give, so the answers are
/// set here; everything else is the real class.
final class RecordingLocationManager: CLLocationManager {
    var status: CLAuthorizationStatus = .notDetermined
    var regions: Set<CLRegion> = []
    private(set) var alwaysRequests = 0
    private(set) var significantChangeStarts = 0
    private(set) var locationRequests = 0
    private(set) var updateStarts = 0
    private(set) var updateStops = 0
    private(set) var started: [CLCircularRegion] = []
    private(set) var stopped: [String] = []
    private var background = false
    private var filter: CLLocationDistance = kCLDistanceFilterNone

    override var authorizationStatus: CLAuthorizationStatus { status }
    override var monitoredRegions: Set<CLRegion> { regions }
    override var maximumRegionMonitoringDistance: CLLocationDistance { 1_000 }
    override var allowsBackgroundLocationUpdates: Bool {
        get { background }
        set { background = newValue }
    }
    override var distanceFilter: CLLocationDistance {
        get { filter }
        set { filter = newValue }
    }
    override func requestAlwaysAuthorization() { alwaysRequests += 1 }
    override func startMonitoringSignificantLocationChanges() { significantChangeStarts += 1 }
    override func requestLocation() { locationRequests += 1 }
    override func startUpdatingLocation() { updateStarts += 1 }
    override func stopUpdatingLocation() { updateStops += 1 }

    override func startMonitoring(for region: CLRegion) {
        guard let circle = region as? CLCircularRegion else { return }
        started.append(circle)
        regions.insert(circle)
    }

    override func stopMonitoring(for region: CLRegion) {
        stopped.append(region.identifier)
        regions.remove(region)
    }
}

/// What `GeofenceMonitor` decides: when to ask for location access, when to monitor, and which
/// regions to start and stop after a move, on a real `AppContext` in a temporary container.
@MainActor
final class GeofenceMonitorTests: XCTestCase {
    static let seattle = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)

    static func geofence(_ id: String, _ at: GeoCoordinate, radius: Int = 500) -> Geofence {
        Geofence(
            id: id, type: "action", actionId: "act_" + id, employerId: "emp", employerName: "Acme", actionType: "strike",
            organization: "Acme Workers", location: "1 Main St", coordinates: at.coordinates, distance: 0, notificationRadius: radius)
    }

    /// A Picket payload around `center`, as a server sends it.
    static func data(_ geofences: [Geofence], center: GeoCoordinate) -> MobileData {
        MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: center.coordinates, radiusMeters: 160_934, refreshThresholdMeters: 128_747),
            geofences: GeofenceCollection(total: geofences.count, byEmployer: [], all: geofences),
            blocklist: Blocklist(totalUrls: 0, totalEmployers: 0, urls: []))
    }

    func testStartAsksForAlwaysOnlyWhileThePersonHasNotAnswered() throws {
        let container = TestContainer()
        let manager = RecordingLocationManager()
        let monitor = GeofenceMonitor(context: try AppContext(container: container.container), manager: manager)

        monitor.start()
        XCTAssertEqual(manager.alwaysRequests, 1, "the Strike alerts button asks")
        XCTAssertEqual(manager.significantChangeStarts, 0, "nothing is monitored before the answer")
        XCTAssertTrue(manager.delegate === monitor, "the answer comes back to the monitor")

        manager.status = .authorizedWhenInUse
        monitor.start()
        XCTAssertEqual(manager.alwaysRequests, 1, "an answer is not asked again")
        XCTAssertEqual(manager.significantChangeStarts, 0, "While Using is not enough for strike alerts")
        XCTAssertEqual(manager.locationRequests, 0)
    }

    func testResumeMonitorsOnlyWithAlwaysAndNeverAsks() throws {
        let container = TestContainer()
        let manager = RecordingLocationManager()
        let monitor = GeofenceMonitor(context: try AppContext(container: container.container), manager: manager)

        for status in [CLAuthorizationStatus.notDetermined, .denied, .restricted, .authorizedWhenInUse] {
            manager.status = status
            monitor.resume()
        }
        XCTAssertEqual(manager.alwaysRequests, 0, "a relaunch never asks")
        XCTAssertEqual(manager.significantChangeStarts, 0)
        XCTAssertEqual(manager.locationRequests, 0)

        manager.status = .authorizedAlways
        monitor.resume()
        XCTAssertEqual(manager.significantChangeStarts, 1, "significant changes wake the app")
        XCTAssertEqual(manager.locationRequests, 1, "and the position is read at once")
        XCTAssertEqual(manager.alwaysRequests, 0)
    }

    /// A context whose saved session holds Picket data fetched a minute ago: a strike at Seattle
    /// (500 m circle) and one 8 km east (5 km circle). No server is set, so nothing is fetched.
    static func contextWithData(_ container: TestContainer, now: Date) throws -> AppContext {
        let context = try AppContext(container: container.container)
        let far = GreatCircle.destination(from: Self.seattle, bearing: 90, distance: 8_000)
        var session = GeofenceSession()
        session.received(
            .updated(
                Self.data([Self.geofence("near", Self.seattle), Self.geofence("far", far, radius: 5_000)], center: Self.seattle),
                hash: "h1", body: Data()),
            at: Self.seattle, now: now.addingTimeInterval(-60))
        try session.save(to: context.geofenceSessionURL)
        return context
    }

    func testAMoveMonitorsBothCirclesOfTheStrikesAroundAndStopsOnlyPeppersStaleRegions() async throws {
        let container = TestContainer()
        let now = Date()
        let context = try Self.contextWithData(container, now: now)
        let manager = RecordingLocationManager()
        let elsewhere = CLLocationCoordinate2D(latitude: 40.7, longitude: -74)
        manager.regions = [
            CLCircularRegion(center: elsewhere, radius: 200, identifier: GeofenceRegions.identifierPrefix + "ended"),
            CLCircularRegion(center: elsewhere, radius: 200, identifier: "someone-else"),
        ]
        var posted: [StrikeZoneNotification] = []
        let monitor = GeofenceMonitor(context: context, manager: manager, post: { posted.append($0) })

        await monitor.handle(.position(Self.seattle, now))
        XCTAssertEqual(manager.stopped, [GeofenceRegions.identifierPrefix + "ended"], "a region no longer planned is stopped")
        let radii = Dictionary(uniqueKeysWithValues: manager.started.map { ($0.identifier, $0.radius) })
        XCTAssertEqual(
            radii,
            [
                "pepper.geofence.near.near": 500, "pepper.geofence.zone.near": 100,
                "pepper.geofence.near.far": 1_000, "pepper.geofence.zone.far": 100,
            ], "each strike's notification circle (clamped to what the device monitors) and its zone")
        XCTAssertTrue(manager.regions.contains { $0.identifier == "someone-else" }, "regions that are not Pepper's are left alone")
        XCTAssertEqual(posted.map(\.title), ["Entering Strike Zone"])
        // Inside a notification circle: standard updates, every 20 m, in the background too.
        XCTAssertEqual(manager.updateStarts, 1)
        XCTAssertEqual(manager.distanceFilter, 20)
        XCTAssertTrue(manager.allowsBackgroundLocationUpdates)
        XCTAssertTrue(monitor.updatingLocation)

        // The same place a minute later: the regions are kept, not started again; nothing posted.
        await monitor.handle(.position(Self.seattle, now.addingTimeInterval(60)))
        XCTAssertEqual(manager.started.count, 4)
        XCTAssertEqual(manager.stopped.count, 1)
        XCTAssertEqual(posted.count, 1)
    }

    func testLocationEventsArrivingTogetherPostOneNotification() async throws {
        let container = TestContainer()
        let now = Date()
        let context = try Self.contextWithData(container, now: now)
        let manager = RecordingLocationManager()
        var posted: [StrikeZoneNotification] = []
        let monitor = GeofenceMonitor(context: context, manager: manager, post: { posted.append($0) })

        // Core Location's callbacks, as it sends them: five fixes in the zone and its region's entry.
        for offset in 0..<5 {
            let location = CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: Self.seattle.latitude, longitude: Self.seattle.longitude), altitude: 0,
                horizontalAccuracy: 10, verticalAccuracy: 10, timestamp: now.addingTimeInterval(Double(offset)))
            monitor.locationManager(manager, didUpdateLocations: [location])
        }
        let zone = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: Self.seattle.latitude, longitude: Self.seattle.longitude), radius: 100,
            identifier: "pepper.geofence.zone.near")
        monitor.locationManager(manager, didEnterRegion: zone)
        let handled = try await eventually { monitor.handled == 6 }
        XCTAssertTrue(handled, "every event is handled")
        XCTAssertEqual(posted.map(\.title), ["Entering Strike Zone"], "one transition, one notification")
    }

    func testLeavingTheNotificationCircleStopsPreciseUpdatesAndAsksForAFix() async throws {
        let container = TestContainer()
        let now = Date()
        let context = try Self.contextWithData(container, now: now)
        let manager = RecordingLocationManager()
        var posted: [StrikeZoneNotification] = []
        let monitor = GeofenceMonitor(context: context, manager: manager, post: { posted.append($0) })

        await monitor.handle(.position(Self.seattle, now))
        XCTAssertTrue(monitor.updatingLocation)
        // Updates paused while the phone stood still; two minutes later the regions report the way out.
        await monitor.handle(.crossing(region: "pepper.geofence.zone.near", entering: false, now.addingTimeInterval(120)))
        XCTAssertEqual(posted.map(\.title), ["Entering Strike Zone", "Leaving Strike Zone"], "the zone's own region raises Leaving")
        XCTAssertEqual(manager.updateStarts, 2, "the crossing starts the paused updates again")
        await monitor.handle(.crossing(region: "pepper.geofence.near.near", entering: false, now.addingTimeInterval(240)))
        XCTAssertEqual(posted.count, 2)
        XCTAssertEqual(manager.updateStops, 1)
        XCTAssertFalse(manager.allowsBackgroundLocationUpdates)
        XCTAssertFalse(monitor.updatingLocation)
        XCTAssertEqual(manager.locationRequests, 1, "one fix, to plan the regions around the new position")
    }

    func testWithoutPicketDataNothingIsMonitored() async throws {
        let container = TestContainer()
        let context = try AppContext(container: container.container)
        let manager = RecordingLocationManager()
        let monitor = GeofenceMonitor(context: context, manager: manager, post: { _ in XCTFail("nothing to post") })

        await monitor.handle(.position(Self.seattle, Date()))
        XCTAssertTrue(manager.started.isEmpty)
        XCTAssertTrue(manager.stopped.isEmpty)
        XCTAssertEqual(manager.updateStarts, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: context.geofenceSessionURL.path), "the session is kept for the next event")
    }
}
