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
    private(set) var started: [CLCircularRegion] = []
    private(set) var stopped: [String] = []

    override var authorizationStatus: CLAuthorizationStatus { status }
    override var monitoredRegions: Set<CLRegion> { regions }
    override var maximumRegionMonitoringDistance: CLLocationDistance { 1_000 }
    override func requestAlwaysAuthorization() { alwaysRequests += 1 }
    override func startMonitoringSignificantLocationChanges() { significantChangeStarts += 1 }
    override func requestLocation() { locationRequests += 1 }

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

    func testAMoveMonitorsTheStrikeZonesAroundAndStopsOnlyPeppersStaleRegions() async throws {
        let container = TestContainer()
        let context = try AppContext(container: container.container)
        let now = Date()
        let far = GreatCircle.destination(from: Self.seattle, bearing: 90, distance: 2_000)
        // The Picket data fetched a minute ago, held by the session the app saves between events.
        var session = GeofenceSession()
        session.received(
            .updated(
                Self.data([Self.geofence("near", Self.seattle), Self.geofence("far", far, radius: 5_000)], center: Self.seattle),
                hash: "h1", body: Data()),
            at: Self.seattle, now: now.addingTimeInterval(-60))
        try session.save(to: context.geofenceSessionURL)

        let manager = RecordingLocationManager()
        let elsewhere = CLLocationCoordinate2D(latitude: 40.7, longitude: -74)
        manager.regions = [
            CLCircularRegion(center: elsewhere, radius: 200, identifier: GeofenceRegions.identifierPrefix + "ended"),
            CLCircularRegion(center: elsewhere, radius: 200, identifier: "someone-else"),
        ]
        let monitor = GeofenceMonitor(context: context, manager: manager)

        await monitor.moved(to: Self.seattle, at: now)
        XCTAssertEqual(manager.stopped, [GeofenceRegions.identifierPrefix + "ended"], "a strike zone no longer planned is stopped")
        XCTAssertEqual(
            Set(manager.started.map(\.identifier)),
            [GeofenceRegions.identifierPrefix + "near", GeofenceRegions.identifierPrefix + "far"])
        let radii = Dictionary(uniqueKeysWithValues: manager.started.map { ($0.identifier, $0.radius) })
        XCTAssertEqual(radii[GeofenceRegions.identifierPrefix + "near"], 500)
        XCTAssertEqual(radii[GeofenceRegions.identifierPrefix + "far"], 1_000, "clamped to what the device monitors")
        XCTAssertTrue(manager.regions.contains { $0.identifier == "someone-else" }, "regions that are not Pepper's are left alone")

        // The same place a minute later: the regions are kept, not started again.
        await monitor.moved(to: Self.seattle, at: now.addingTimeInterval(60))
        XCTAssertEqual(manager.started.count, 2)
        XCTAssertEqual(manager.stopped.count, 1)
    }

    func testWithoutPicketDataNothingIsMonitored() async throws {
        let container = TestContainer()
        let context = try AppContext(container: container.container)
        let manager = RecordingLocationManager()
        let monitor = GeofenceMonitor(context: context, manager: manager)

        await monitor.moved(to: Self.seattle, at: Date())
        XCTAssertTrue(manager.started.isEmpty)
        XCTAssertTrue(manager.stopped.isEmpty)
        XCTAssertTrue(FileManager.default.fileExists(atPath: context.geofenceSessionURL.path), "the session is kept for the next event")
    }
}
