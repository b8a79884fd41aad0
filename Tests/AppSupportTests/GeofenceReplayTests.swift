import AppSupport
import Foundation
import PepperTestSupport
import Picket
import Testing

/// What iOS hands the app while a person walks, as its documentation describes it, with the
/// numbers this model picks (they are not iOS's, which it does not publish): a crossing of a
/// monitored region is reported once the fix has been ``margin`` metres past the boundary for
/// ``dwell`` seconds; significant changes bring a fix every ``significantChange`` metres;
/// standard updates bring one each time the fix moved their distance filter, and iOS pauses them
/// after ``pauseAfter`` seconds of standing still until the app starts them again;
/// `requestLocation()` brings one fix. The app's side is the real `GeofenceSession`, applied as
/// `GeofenceMonitor` applies it; every application is checked against iOS's limit of 20 regions.
struct SimulatedPhone {
    static let dwell: TimeInterval = 20
    static let margin = 10.0
    static let significantChange = 500.0
    static let maximumRadius = 200_000.0

    /// One second of the walk: what the app raised and how the phone stood after it.
    struct Step {
        var time: Date
        var truth: GeoCoordinate
        var events: [GeofenceEvent]
        var regions: [GeofenceRegion]
        var updatesOn: Bool
        var paused: Bool
        var fixDelivered: GeoCoordinate?
    }

    var session: GeofenceSession
    /// Seconds of standing still (within 5 m) before iOS pauses standard updates; `nil`: never.
    var pauseAfter: TimeInterval?
    private(set) var regions: [GeofenceRegion] = []
    private(set) var updatesOn = false
    private(set) var paused = false
    private(set) var mostRegions = 0
    private var distanceFilter = 0.0
    private var pendingRequest = false
    private var lastDelivered: GeoCoordinate?
    private var lastSignificant: GeoCoordinate?
    private var still: (position: GeoCoordinate, since: Date)?
    private var reportedInside: [String: Bool] = [:]
    private var otherSideSince: [String: Date] = [:]

    init(session: GeofenceSession, pauseAfter: TimeInterval? = nil) {
        self.session = session
        self.pauseAfter = pauseAfter
    }

    /// The app starts with Always: significant changes from here, and one fix (`requestLocation`).
    mutating func launch(truth: GeoCoordinate, fix: GeoCoordinate, at time: Date) -> Step {
        pendingRequest = true
        return step(truth: truth, fix: fix, at: time)
    }

    mutating func step(truth: GeoCoordinate, fix: GeoCoordinate, at time: Date) -> Step {
        var events: [GeofenceEvent] = []
        if let pauseAfter, updatesOn, !paused {
            if let still, GreatCircle.distance(still.position, truth) <= 5 {
                if time.timeIntervalSince(still.since) >= pauseAfter { paused = true }
            } else {
                still = (truth, time)
            }
        }
        // Region monitoring, on the regions monitored now.
        for region in regions {
            let distance = GreatCircle.distance(fix, region.center)
            let inside = reportedInside[region.identifier] ?? false
            let across = inside ? distance > region.radius + Self.margin : distance < region.radius - Self.margin
            guard across else {
                otherSideSince[region.identifier] = nil
                continue
            }
            let since = otherSideSince[region.identifier] ?? time
            otherSideSince[region.identifier] = since
            // Still monitored (an earlier crossing this second may have rotated it out)?
            guard time.timeIntervalSince(since) >= Self.dwell, regions.contains(where: { $0.identifier == region.identifier }) else {
                continue
            }
            reportedInside[region.identifier] = !inside
            otherSideSince[region.identifier] = nil
            let update = session.crossed(
                region: region.identifier, entering: !inside, at: time, monitoring: regions, maximumRadius: Self.maximumRadius)
            events += apply(update, fix: fix)
        }
        // Fixes: a requested one, standard updates past their filter, a significant change.
        let significant = lastSignificant.map { GreatCircle.distance($0, truth) >= Self.significantChange } ?? true
        let standard = updatesOn && !paused && (lastDelivered.map { GreatCircle.distance($0, fix) >= distanceFilter } ?? true)
        var delivered: GeoCoordinate?
        if pendingRequest || standard || significant {
            pendingRequest = false
            if significant { lastSignificant = truth }
            lastDelivered = fix
            delivered = fix
            let update = session.move(to: fix, at: time, monitoring: regions, maximumRadius: Self.maximumRadius)
            events += apply(update, fix: fix)
        }
        return Step(
            time: time, truth: truth, events: events, regions: regions, updatesOn: updatesOn, paused: paused, fixDelivered: delivered)
    }

    /// What `GeofenceMonitor.handle` does with an update.
    private mutating func apply(_ update: GeofenceSession.Update, fix: GeoCoordinate) -> [GeofenceEvent] {
        let ours = Set(regions.map(\.identifier))
        #expect(Set(update.regions.stop).isSubset(of: ours), "only monitored regions are stopped")
        regions.removeAll { update.regions.stop.contains($0.identifier) }
        #expect(regions.count + update.regions.start.count <= 20, "never more than 20 regions, at any moment")
        for region in update.regions.start {
            regions.append(region)
            // iOS learns the state of a new region without reporting a crossing.
            reportedInside[region.identifier] = GreatCircle.distance(fix, region.center) <= region.radius
            otherSideSince[region.identifier] = nil
        }
        #expect(Set(regions.map(\.identifier)) == Set(update.planned.map(\.identifier)), "the changes reach the plan")
        mostRegions = max(mostRegions, regions.count)
        if update.locationUpdates.isOn {
            if !updatesOn || paused { lastDelivered = nil }  // startUpdatingLocation brings a fix at once
            updatesOn = true
            paused = false
            still = nil
            distanceFilter = update.locationUpdates.distanceFilter
        } else {
            updatesOn = false
        }
        if update.requestsLocation && !updatesOn { pendingRequest = true }
        return update.events
    }
}

/// Replayed walks through the app's geofencing (the real planner, tracker and session) on the
/// simulated phone: the three alerts, the regions monitored at each step, and when precise
/// location updates run.
@Suite("Geofence replays")
struct GeofenceReplayTests {
    static let center = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// `x` metres east of the centre (west when negative), `y` north.
    static func point(_ x: Double, _ y: Double = 0) -> GeoCoordinate {
        let along = GreatCircle.destination(from: center, bearing: x < 0 ? 270 : 90, distance: abs(x))
        return GreatCircle.destination(from: along, bearing: y < 0 ? 180 : 0, distance: abs(y))
    }

    static func session(_ geofences: [Geofence]) -> GeofenceSession {
        var session = GeofenceSession()
        session.received(.updated(GeofenceSessionTests.data(geofences, center: center), hash: "h", body: Data()), at: center, now: t0)
        return session
    }

    /// A walk: east-west positions (metres from the centre) a second apart, walking at 1.4 m/s
    /// between `stops`, standing at each for its seconds.
    static func walk(_ legs: [(to: Double, stand: Int)], from start: Double) -> [Double] {
        var xs = [start]
        var x = start
        for leg in legs {
            let steps = Int((abs(leg.to - x) / 1.4).rounded(.up))
            for index in 1...max(steps, 1) { xs.append(x + (leg.to - x) * Double(index) / Double(max(steps, 1))) }
            x = leg.to
            xs += Array(repeating: x, count: leg.stand)
        }
        return xs
    }

    /// Replays `positions` with fixes off by up to `noise` metres in any direction.
    static func replay(
        _ phone: inout SimulatedPhone, _ positions: [GeoCoordinate], noise: Double, seed: UInt64
    ) -> [SimulatedPhone.Step] {
        var random = SplitMix64(seed: seed)
        var steps: [SimulatedPhone.Step] = []
        for (index, truth) in positions.enumerated() {
            let fix = GreatCircle.destination(
                from: truth, bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...noise, using: &random))
            let time = t0.addingTimeInterval(60 + Double(index))
            steps.append(index == 0 ? phone.launch(truth: truth, fix: fix, at: time) : phone.step(truth: truth, fix: fix, at: time))
        }
        return steps
    }

    /// The steps at which precise updates turned on or off: (index, on).
    static func switches(_ steps: [SimulatedPhone.Step]) -> [(Int, Bool)] {
        var result: [(Int, Bool)] = []
        var on = false
        for (index, step) in steps.enumerated() where step.updatesOn != on {
            on = step.updatesOn
            result.append((index, on))
        }
        return result
    }

    @Test func walkInStandStillWalkOut() throws {
        let strike = GeofenceSessionTests.geofence("S", Self.center, radius: 500)
        var phone = SimulatedPhone(session: Self.session([strike]))
        let xs = Self.walk([(to: -30, stand: 20 * 60), (to: 1_700, stand: 0)], from: -1_700)
        let steps = Self.replay(&phone, xs.map { Self.point($0) }, noise: 5, seed: 1)
        let events = steps.flatMap(\.events)
        #expect(events.map(\.kind) == [.near, .entering, .leaving])
        #expect(events.map(\.source) == [.region, .position, .position], "the circle's region, then fixes from precise updates")
        #expect(events[1].distance <= 100 && events[1].distance > 60, "entered within a fix or two of the zone's edge")
        #expect(events[2].distance > 125 && events[2].distance < 160, "left past the 25 m hysteresis")
        // One strike: its notification circle and its zone, at every step.
        #expect(steps.allSatisfy { $0.regions.count == 2 })
        #expect(Set(steps.last!.regions.map(\.radius)) == [500, 100])
        #expect(phone.mostRegions == 2)
        // Precise updates: on at Near, off past 525 m, once each; standing still costs no fixes.
        let switches = Self.switches(steps)
        #expect(switches.map(\.1) == [true, false])
        let nearStep = try #require(steps.firstIndex { !$0.events.isEmpty })
        #expect(switches.first?.0 == nearStep)
        let offAt = GreatCircle.distance(steps[try #require(switches.last?.0)].truth, Self.center)
        #expect(offAt > 515 && offAt < 565, "off at the first fix past 525 m (\(offAt))")
        let standing = steps.indices.filter { xs[$0] == -30 }
        #expect(standing.count > 20 * 60)
        #expect(standing.filter { steps[$0].fixDelivered != nil }.count <= 2, "a still phone within the filter gets no fixes")
    }

    @Test func pausedUpdatesLeaveItToTheZonesOwnRegion() throws {
        let strike = GeofenceSessionTests.geofence("S", Self.center, radius: 500)
        var phone = SimulatedPhone(session: Self.session([strike]), pauseAfter: 300)
        // In to 300 m and wait 10 minutes (iOS pauses the updates), walk in to the picket line and
        // stand there 10 minutes (paused again), walk out. (From 1,320 m, significant changes
        // come at 820 m and 320 m out, then 180 m past the centre: none while paused.)
        let xs = Self.walk([(to: -300, stand: 600), (to: -30, stand: 600), (to: 1_700, stand: 0)], from: -1_320)
        let steps = Self.replay(&phone, xs.map { Self.point($0) }, noise: 5, seed: 2)
        let events = steps.flatMap(\.events)
        #expect(events.map(\.kind) == [.near, .entering, .leaving])
        #expect(events.map(\.source) == [.region, .region, .region], "no fix came: the zone's own region raised both")
        let entering = try #require(steps.firstIndex { $0.events.contains { $0.kind == .entering } })
        let leaving = try #require(steps.firstIndex { $0.events.contains { $0.kind == .leaving } })
        #expect(steps[entering - 1].paused && steps[leaving - 1].paused, "paused updates before each")
        #expect(!steps[entering].paused && steps[entering].updatesOn, "the crossing starts them again")
        let enteredAt = GreatCircle.distance(steps[entering].truth, Self.center)
        let leftAt = GreatCircle.distance(steps[leaving].truth, Self.center)
        #expect(enteredAt < 90 && enteredAt > 40, "\(enteredAt)")
        #expect(leftAt > 110 && leftAt < 160, "\(leftAt)")
        #expect(steps.allSatisfy { $0.regions.count == 2 })
        #expect(!steps.last!.updatesOn, "off once out of the notification circle")
    }

    @Test func gpsJitterAtTheEdgesRaisesEachAlertOnce() {
        let strike = GeofenceSessionTests.geofence("S", Self.center, radius: 500)
        // Standing 30 minutes on the zone's edge, fixes up to 20 m off (less than the 25 m
        // hysteresis), then walking away.
        var atZone = SimulatedPhone(session: Self.session([strike]))
        let zoneWalk = Self.walk([(to: -100, stand: 1_800), (to: -1_000, stand: 0)], from: -1_000)
        let zoneSteps = Self.replay(&atZone, zoneWalk.map { Self.point($0) }, noise: 20, seed: 3)
        #expect(zoneSteps.flatMap(\.events).map(\.kind) == [.near, .entering, .leaving])
        #expect(Self.switches(zoneSteps).map(\.1) == [true, false], "precise updates on once, off once")
        let standingAtZone = zoneSteps.indices.filter { zoneWalk[$0] == -100 }
        #expect(standingAtZone.filter { zoneSteps[$0].fixDelivered != nil }.count > 100, "the jitter does deliver fixes")
        #expect(standingAtZone.allSatisfy { zoneSteps[$0].updatesOn })
        // In just past the notification circle's edge, then standing 30 minutes 5 m outside it.
        var atCircle = SimulatedPhone(session: Self.session([strike]))
        let circleWalk = Self.walk([(to: -470, stand: 0), (to: -505, stand: 1_800), (to: -1_500, stand: 0)], from: -1_500)
        let circleSteps = Self.replay(&atCircle, circleWalk.map { Self.point($0) }, noise: 20, seed: 4)
        #expect(circleSteps.flatMap(\.events).map(\.kind) == [.near])
        #expect(Self.switches(circleSteps).map(\.1) == [true, false], "no on/off flapping at the circle's edge")
        #expect(circleSteps.indices.filter { circleWalk[$0] == -505 }.allSatisfy { circleSteps[$0].updatesOn })
        #expect(circleSteps.allSatisfy { $0.regions.count == 2 })
    }

    @Test func fortyStrikesInACity() throws {
        // Five strikes on a 4 km street, ten 200 m off its western half (their circles overlap,
        // so precise updates run all along it), twenty-five 700–1,500 m away. In the eastern half
        // the phone walks out of every circle and into the next one's.
        var geofences: [Geofence] = []
        for (index, x) in [-1_600.0, -800, 0, 800, 1_600].enumerated() {
            geofences.append(GeofenceSessionTests.geofence("on\(index)", Self.point(x), radius: 300))
        }
        for index in 0..<10 {
            geofences.append(
                GeofenceSessionTests.geofence(
                    "off\(index)", Self.point(-1_900 + 200 * Double(index), index % 2 == 0 ? 200 : -200), radius: 300))
        }
        for index in 0..<25 {
            let y = (700 + Double(index % 5) * 200) * (index % 2 == 0 ? 1 : -1)
            geofences.append(GeofenceSessionTests.geofence("far\(index)", Self.point(-2_000 + 160 * Double(index), y), radius: 300))
        }
        #expect(geofences.count == 40)
        var phone = SimulatedPhone(session: Self.session(geofences))
        let xs = Self.walk([(to: 2_000, stand: 0)], from: -2_000)
        let steps = Self.replay(&phone, xs.map { Self.point($0) }, noise: 5, seed: 5)

        // The oracle: from the walk's geometry alone, what each strike should raise.
        for geofence in geofences {
            let center = geofence.coordinates.geoCoordinate
            let closest = steps.map { GreatCircle.distance($0.truth, center) }.min()!
            let radius = Double(geofence.notificationRadius)
            let expected: [GeofenceEvent.Kind]
            if closest < 70 {
                expected = [.near, .entering, .leaving]
            } else if closest > 165 && closest < radius - 60 {
                expected = [.near]
            } else if closest > radius + 60 {
                expected = []
            } else {
                Issue.record("\(geofence.id) passes \(closest) m from its centre: the layout has a borderline strike")
                continue
            }
            let raised = steps.flatMap(\.events).filter { $0.geofence.id == geofence.id }.map(\.kind)
            #expect(raised == expected, "\(geofence.id), closest \(Int(closest)) m")
        }
        // Twenty regions at every step, the ten nearest strikes' pairs at each fix.
        #expect(steps.allSatisfy { $0.regions.count == 20 })
        #expect(phone.mostRegions == 20)
        for step in steps {
            guard let fix = step.fixDelivered else { continue }
            let nearest = geofences.sorted {
                GreatCircle.distance(fix, $0.coordinates.geoCoordinate) < GreatCircle.distance(fix, $1.coordinates.geoCoordinate)
            }
            .prefix(10).map(\.id)
            let monitored = step.regions.compactMap { GeofenceRegions.circle(named: $0.identifier)?.geofenceID }
            #expect(Set(monitored) == Set(nearest))
        }
        // Precise updates: on well inside any notification circle, off well outside all of them.
        for step in steps {
            let margins = geofences.map { GreatCircle.distance(step.truth, $0.coordinates.geoCoordinate) - Double($0.notificationRadius) }
            if margins.contains(where: { $0 < -60 }) { #expect(step.updatesOn, "inside a circle at \(step.time)") }
            if margins.allSatisfy({ $0 > 60 }) { #expect(!step.updatesOn, "outside every circle at \(step.time)") }
        }
        #expect(Self.switches(steps).count > 2, "on and off along the street")
    }
}
