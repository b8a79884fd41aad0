import Foundation
import PepperTestSupport
import Testing

@testable import Picket

/// The circles a device monitors for nearby strikes, the crossings it reports, and when precise
/// location updates run.
@Suite("Geofence circles and crossings")
struct GeofenceCircleTests {
    static let center = GeoCoordinate(latitude: 45.5, longitude: -122.6)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func tracker(_ geofences: [Geofence], planner: GeofencePlanner = GeofencePlanner()) -> GeofenceTracker {
        var tracker = GeofenceTracker(planner: planner)
        tracker.store(GeofencePlannerTests.data(geofences, center: center), hash: "h", at: t0, server: "https://opl.example")
        return tracker
    }

    static func east(_ meters: Double) -> GeoCoordinate { GreatCircle.destination(from: center, bearing: 90, distance: meters) }

    @Test("never more than 20 circles: a notification circle and a zone per geofence, nearest first; exact only when unclamped")
    func circlesPairNearestFirstWithinTwenty() {
        var random = SplitMix64(seed: 37)
        let planner = GeofencePlanner()
        for _ in 0..<300 {
            let count = Int(random.uniform(0, 60))
            let geofences = (0..<count).map { index in
                GeofencePlannerTests.geofence(
                    "g\(index)",
                    GreatCircle.destination(from: Self.center, bearing: random.uniform(0, 360), distance: random.uniform(0, 30_000)),
                    radius: Int(random.uniform(20, 3_000)))
            }
            let maximumRadius = random.uniform(0, 1) < 0.5 ? Double.infinity : random.uniform(150, 2_000)
            let monitored = planner.regions(around: Self.center, geofences: geofences)
            let circles = planner.circles(for: monitored, maximumRadius: maximumRadius)
            #expect(circles.count <= 20)
            // Grouped by geofence in the planner's order (nearest first), notification before zone.
            let order = monitored.map(\.geofence.id)
            let ids = circles.map(\.geofenceID)
            var grouped: [String] = []
            for id in ids where grouped.last != id { grouped.append(id) }
            #expect(grouped == Array(order.prefix(grouped.count)), "whole geofences, nearest first")
            #expect(Set(grouped).count == grouped.count)
            for (index, id) in grouped.enumerated() {
                let own = circles.filter { $0.geofenceID == id }
                let region = monitored.first { $0.geofence.id == id }!
                let zone = min(100, Double(region.geofence.notificationRadius))
                let clampedZone = min(max(zone, 100), max(maximumRadius, 100))
                let clampedNotification = min(max(region.notificationRadius, 100), max(maximumRadius, 100))
                if clampedZone == clampedNotification {
                    #expect(own.map(\.role) == [.zone], "coinciding circles are one region")
                } else if index == grouped.count - 1 && own.count == 1 {
                    #expect(own.map(\.role) == [.notification] && circles.count == 20, "a last half pair only when the 20 are used")
                } else {
                    #expect(own.map(\.role) == [.notification, .zone])
                }
                for circle in own {
                    let radius = circle.role == .zone ? zone : region.notificationRadius
                    #expect(circle.exact == (circle.radius == radius))
                    #expect(circle.radius >= 100 && circle.radius <= max(maximumRadius, 100))
                    #expect(circle.center == region.geofence.coordinates.geoCoordinate)
                }
            }
            if grouped.count < monitored.count { #expect(circles.count == 20, "a geofence is left out only when the places are used") }
        }
    }

    @Test("precise updates run inside a notification circle until the hysteresis past it")
    func locationUpdatesInsideTheNotificationCircle() {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        var switches: [(Double, Bool)] = []
        var on = false
        // West to east through the strike, a fix every 10 m.
        for step in 0...240 {
            let x = -1_197 + Double(step) * 10
            let position = x < 0 ? GreatCircle.destination(from: Self.center, bearing: 270, distance: -x) : Self.east(x)
            _ = tracker.move(to: position, at: Self.t0.addingTimeInterval(Double(step)))
            let updates = tracker.locationUpdates
            #expect(updates.distanceFilter == 20)
            if updates.isOn != on {
                on = updates.isOn
                switches.append((x, on))
            }
            #expect(updates.geofenceIDs == (on ? ["S"] : []))
        }
        #expect(switches.map(\.1) == [true, false], "on once, off once: no flapping")
        #expect(switches[0].0 == -497, "on at the first fix inside the circle")
        #expect(switches[1].0 == 533, "off at the first fix past 525 m")
    }

    @Test("a zone's own region raises Entering and Leaving once, whether a fix or a crossing tells first")
    func crossingsOfTheZone() throws {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        #expect(tracker.move(to: Self.east(2_000), at: Self.t0).isEmpty)
        #expect(tracker.circles.map(\.role) == [.notification, .zone])
        #expect(tracker.circles.map(\.radius) == [500, 100])
        // No fix for two minutes (precise updates off or paused): the crossings decide.
        var time = Self.t0.addingTimeInterval(120)
        let near = tracker.crossed(.notification, of: "S", entering: true, at: time)
        #expect(near.map(\.kind) == [.near] && near.first?.source == .region && near.first?.distance == 500)
        #expect(tracker.locationUpdates.isOn, "the notification circle turns precise updates on")
        time += 60
        let entering = tracker.crossed(.zone, of: "S", entering: true, at: time)
        #expect(entering.map(\.kind) == [.entering] && entering.first?.distance == 100)
        #expect(tracker.crossed(.zone, of: "S", entering: true, at: time + 1).isEmpty, "the same transition is not raised twice")
        #expect(tracker.move(to: Self.east(60), at: time + 2).isEmpty, "a fix inside agrees: nothing new")
        // A fix 10 s ago says the phone is inside: a crossing out is not believed.
        #expect(tracker.crossed(.zone, of: "S", entering: false, at: time + 12).isEmpty)
        // Updates paused: no fix for two minutes, then the zone's region reports the exit.
        let leaving = tracker.crossed(.zone, of: "S", entering: false, at: time + 122)
        #expect(leaving.map(\.kind) == [.leaving] && leaving.first?.source == .region)
        #expect(tracker.locationUpdates.isOn, "still inside the notification circle")
        #expect(tracker.move(to: Self.east(200), at: time + 130).isEmpty, "no second Leaving, no second Near")
        #expect(tracker.crossed(.notification, of: "S", entering: false, at: time + 300).isEmpty)
        #expect(!tracker.locationUpdates.isOn, "out of the notification circle: precise updates off")
        // Leaving the notification circle while the zone was still entered raises Leaving.
        _ = tracker.crossed(.zone, of: "S", entering: true, at: time + 500)
        #expect(tracker.crossed(.notification, of: "S", entering: false, at: time + 600).map(\.kind) == [.leaving])
    }

    @Test("a recent fix outranks a crossing that contradicts it; an older one does not")
    func aRecentFixOutranksACrossing() {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        _ = tracker.move(to: Self.east(300), at: Self.t0)
        #expect(
            tracker.crossed(.zone, of: "S", entering: true, at: Self.t0.addingTimeInterval(30)).isEmpty, "the fix 30 s ago was 300 m out")
        #expect(tracker.crossed(.zone, of: "S", entering: true, at: Self.t0.addingTimeInterval(61)).map(\.kind) == [.entering])
        var jittery = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        _ = jittery.move(to: Self.east(80), at: Self.t0)
        _ = jittery.move(to: Self.east(120), at: Self.t0.addingTimeInterval(5))
        #expect(
            jittery.crossed(.zone, of: "S", entering: false, at: Self.t0.addingTimeInterval(20)).isEmpty,
            "120 m is within the hysteresis: still inside")
    }

    @Test("a circle monitored larger than it is (clamped to 100 m) only wakes the app; unknown circles raise nothing")
    func clampedCirclesOnlyWake() {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("small", Self.center, radius: 60)])
        _ = tracker.move(to: Self.east(1_000), at: Self.t0)
        #expect(tracker.circles == [GeofenceCircle(geofenceID: "small", role: .zone, center: Self.center, radius: 100, exact: false)])
        #expect(tracker.crossed(.zone, of: "small", entering: true, at: Self.t0.addingTimeInterval(300)).isEmpty)
        #expect(tracker.crossed(.notification, of: "small", entering: true, at: Self.t0.addingTimeInterval(300)).isEmpty)
        #expect(tracker.crossed(.zone, of: "gone", entering: true, at: Self.t0.addingTimeInterval(300)).isEmpty)
        #expect(tracker.move(to: Self.east(50), at: Self.t0.addingTimeInterval(310)).map(\.kind) == [.entering], "the fix decides")
    }

    @Test("a fix older than the last one changes nothing")
    func anOlderFixChangesNothing() {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        #expect(tracker.move(to: Self.center, at: Self.t0.addingTimeInterval(10)).map(\.kind) == [.entering])
        #expect(tracker.move(to: Self.east(3_000), at: Self.t0.addingTimeInterval(5)).isEmpty, "a cached fix from before")
        #expect(tracker.lastPosition == Self.center)
        #expect(tracker.locationUpdates.isOn)
        #expect(tracker.move(to: Self.east(3_000), at: Self.t0.addingTimeInterval(20)).map(\.kind) == [.leaving])
    }

    @Test("refresh: data from another server, and data past its expiry")
    func refreshServerAndExpiry() {
        var tracker = Self.tracker([])
        let server = "https://opl.example"
        #expect(tracker.refreshReason(at: Self.center, now: Self.t0.addingTimeInterval(60), server: server) == nil)
        #expect(
            tracker.refreshReason(at: Self.center, now: Self.t0.addingTimeInterval(60), server: "https://other.example") == .serverChanged)
        #expect(
            tracker.refreshReason(at: Self.center, now: Self.t0.addingTimeInterval(3_600), server: server)
                == .intervalElapsed(seconds: 3_600))
        #expect(
            tracker.refreshReason(at: Self.center, now: Self.t0.addingTimeInterval(86_400), server: server) == .expired(seconds: 86_400))
        #expect(tracker.planner.due(of: tracker.cache!) == Self.t0.addingTimeInterval(3_600))
        #expect(tracker.planner.expiry(of: tracker.cache!) == Self.t0.addingTimeInterval(86_400))
        tracker.confirmUnchanged(at: Self.center, now: Self.t0.addingTimeInterval(86_000))
        #expect(tracker.refreshReason(at: Self.center, now: Self.t0.addingTimeInterval(86_400), server: server) == nil, "a 304 renews it")
    }

    @Test("a tracker saved before circles and precise updates existed is read, its states kept")
    func anEarlierSavedTrackerIsRead() throws {
        var tracker = Self.tracker([GeofencePlannerTests.geofence("S", Self.center, radius: 500)])
        #expect(tracker.move(to: Self.center, at: Self.t0).map(\.kind) == [.entering])
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(tracker)) as? [String: Any])
        // What the earlier version wrote: no circles, no last fix, a planner of three settings.
        for key in ["circles", "lastPosition", "lastFixTime"] { json[key] = nil }
        json["planner"] = ["maximumRegions": 20, "zoneRadius": 100, "hysteresis": 25]
        var cache = try #require(json["cache"] as? [String: Any])
        cache["server"] = nil
        json["cache"] = cache
        var earlier = try JSONDecoder().decode(GeofenceTracker.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(earlier.planner == GeofencePlanner())
        #expect(earlier.cache?.server == nil)
        #expect(earlier.move(to: Self.east(20), at: Self.t0.addingTimeInterval(60)).isEmpty, "the zone it was in is not entered again")
        #expect(earlier.circles.count == 2)
    }
}
