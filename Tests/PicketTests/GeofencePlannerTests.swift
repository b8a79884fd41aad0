import Foundation
import PepperTestSupport
import Testing

@testable import Picket

/// The geofence engine: which regions, when to refresh, which events.
@Suite("Geofence planner")
struct GeofencePlannerTests {
    static func geofence(_ id: String, _ coordinate: GeoCoordinate, radius: Int = 500, type: GeofenceKind = .action) -> Geofence {
        Geofence(
            id: id, type: type.rawValue, actionId: "act_" + id, employerId: "emp", employerName: "Employer", actionType: "strike",
            coordinates: coordinate.coordinates, distance: 0, notificationRadius: radius)
    }

    static func data(_ geofences: [Geofence], center: GeoCoordinate, radius: Int = 160_934) -> MobileData {
        MobileData(
            version: "1.0", generatedAt: "2026-01-01T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: center.coordinates, radiusMeters: radius, refreshThresholdMeters: radius * 8 / 10),
            geofences: GeofenceCollection(total: geofences.count, byEmployer: [], all: geofences),
            blocklist: Blocklist(totalUrls: 0, totalEmployers: 0, urls: []))
    }

    @Test("never more than 20 regions, nearest first, and none left out nearer than one chosen")
    func regionsProperty() {
        var random = SplitMix64(seed: 42)
        let planner = GeofencePlanner()
        for _ in 0..<300 {
            let center = GeoCoordinate(latitude: random.uniform(-60, 60), longitude: random.uniform(-180, 180))
            let count = Int(random.uniform(0, 80))
            let geofences = (0..<count).map { index in
                Self.geofence(
                    "g\(index)",
                    GreatCircle.destination(from: center, bearing: random.uniform(0, 360), distance: random.uniform(0, 200_000)))
            }
            let position = GreatCircle.destination(from: center, bearing: random.uniform(0, 360), distance: random.uniform(0, 50_000))
            let regions = planner.regions(around: position, geofences: geofences)
            #expect(regions.count == min(20, count))
            #expect(regions.map(\.distance) == regions.map(\.distance).sorted())
            let farthestChosen = regions.last?.distance ?? 0
            let chosen = Set(regions.map(\.geofence.id))
            for geofence in geofences where !chosen.contains(geofence.id) {
                #expect(GreatCircle.distance(position, geofence.coordinates.geoCoordinate) >= farthestChosen)
            }
            for region in regions {
                #expect(abs(region.distance - GreatCircle.distance(position, region.geofence.coordinates.geoCoordinate)) < 1e-9)
            }
        }
    }

    @Test("regions rotate as the position moves along 60 geofences")
    func rotation() {
        let start = GeoCoordinate(latitude: 45, longitude: -100)
        let geofences = (0..<60).map {
            Self.geofence("g\($0)", GreatCircle.destination(from: start, bearing: 90, distance: Double($0) * 1_000))
        }
        var tracker = GeofenceTracker()
        tracker.store(Self.data(geofences, center: start), hash: "h", at: Date(timeIntervalSince1970: 0))
        var seenFirst = Set<String>()
        for step in 0...59 {
            let position = GreatCircle.destination(from: start, bearing: 90, distance: Double(step) * 1_000)
            _ = tracker.move(to: position, at: Date(timeIntervalSince1970: Double(step)))
            #expect(tracker.monitored.count == 20)
            #expect(tracker.monitored.first?.geofence.id == "g\(step)", "the geofence under the position is monitored first")
            seenFirst.insert(tracker.monitored.first!.geofence.id)
        }
        #expect(seenFirst.count == 60)
    }

    @Test("events for a route crossing two strike zones")
    func routeThroughTwoZones() {
        let a = GeoCoordinate(latitude: 47.60, longitude: -122.40)
        let b = GeoCoordinate(latitude: 47.60, longitude: -122.30)
        let data = Self.data(
            [Self.geofence("A", a, radius: 500), Self.geofence("B", b, radius: 300, type: .picketSite)],
            center: GeoCoordinate(latitude: 47.6, longitude: -122.35))
        var tracker = GeofenceTracker()
        let start = GeoCoordinate(latitude: 47.60, longitude: -122.42)
        tracker.store(data, hash: "h", at: Date(timeIntervalSince1970: 0))
        var events: [GeofenceEvent] = []
        // East along the parallel, a point every 20 m for 10.5 km.
        for step in 0...525 {
            let position = GreatCircle.destination(from: start, bearing: 90, distance: Double(step) * 20)
            events += tracker.move(to: position, at: Date(timeIntervalSince1970: Double(step) * 5))
        }
        #expect(
            events.map { "\($0.title) \($0.geofence.id)" } == [
                "Near Strike A", "Entering Strike Zone A", "Leaving Strike Zone A",
                "Near Strike B", "Entering Strike Zone B", "Leaving Strike Zone B",
            ])
        #expect(events[0].distance <= 500 && events[0].distance > 480)
        #expect(events[1].distance <= 100)
        #expect(events[2].distance > 125 && events[2].distance <= 145, "leaving needs the hysteresis margin")
        #expect(events[3].distance <= 300)
        #expect(events.map(\.time) == events.map(\.time).sorted())
    }

    @Test("GPS jitter at a zone's edge raises no enter/leave pairs")
    func jitter() {
        let zone = GeoCoordinate(latitude: 10, longitude: 10)
        var tracker = GeofenceTracker()
        tracker.store(Self.data([Self.geofence("Z", zone)], center: zone), hash: nil, at: Date(timeIntervalSince1970: 0))
        var kinds: [GeofenceEvent.Kind] = []
        for step in 0..<200 {
            // 95 m … 115 m from the centre of a 100 m zone.
            let distance = step % 2 == 0 ? 95.0 : 115.0
            kinds += tracker.move(
                to: GreatCircle.destination(from: zone, bearing: 0, distance: distance), at: Date(timeIntervalSince1970: Double(step))
            )
            .map(\.kind)
        }
        #expect(kinds == [.entering])
    }

    @Test("a zone whose strike disappears on refresh is left")
    func zoneRemovedByRefresh() {
        let zone = GeoCoordinate(latitude: 10, longitude: 10)
        var tracker = GeofenceTracker()
        tracker.store(Self.data([Self.geofence("Z", zone)], center: zone), hash: "1", at: Date(timeIntervalSince1970: 0))
        #expect(tracker.move(to: zone, at: Date(timeIntervalSince1970: 1)).map(\.kind) == [.entering])
        tracker.store(Self.data([], center: zone), hash: "2", at: Date(timeIntervalSince1970: 2))
        let events = tracker.move(to: zone, at: Date(timeIntervalSince1970: 3))
        #expect(events.map(\.kind) == [.leaving])
        #expect(events.first?.geofence.id == "Z")
    }

    @Test("refresh: no data, beyond the threshold, after the interval; a 304 re-centres")
    func refresh() {
        let center = GeoCoordinate(latitude: 47.61, longitude: -122.33)
        var tracker = GeofenceTracker()
        let t0 = Date(timeIntervalSince1970: 1_000)
        #expect(tracker.refreshReason(at: center, now: t0) == .noData)
        tracker.store(Self.data([], center: center, radius: 10_000), hash: "h", at: t0)
        #expect(tracker.refreshReason(at: center, now: t0.addingTimeInterval(60)) == nil)
        let inside = GreatCircle.destination(from: center, bearing: 45, distance: 7_900)
        #expect(tracker.refreshReason(at: inside, now: t0.addingTimeInterval(60)) == nil)
        let outside = GreatCircle.destination(from: center, bearing: 45, distance: 8_100)
        guard case .movedBeyondThreshold(let meters)? = tracker.refreshReason(at: outside, now: t0.addingTimeInterval(60)) else {
            Issue.record("expected a refresh for moving 8.1 km with an 8 km threshold")
            return
        }
        #expect(abs(meters - 8_100) < 1)
        #expect(tracker.refreshReason(at: center, now: t0.addingTimeInterval(3_600)) == .intervalElapsed(seconds: 3_600))
        tracker.confirmUnchanged(at: outside, now: t0.addingTimeInterval(120))
        #expect(tracker.refreshReason(at: outside, now: t0.addingTimeInterval(180)) == nil)
        #expect(tracker.cache?.hash == "h")
        #expect(tracker.refreshReason(at: outside, now: t0.addingTimeInterval(120 + 3_600)) == .intervalElapsed(seconds: 3_600))
    }
}
