import Foundation
import PepperTestSupport
import Testing

@testable import Picket

/// Distances on the sphere: known values, an independent formula, and the properties a
/// distance must have.
@Suite("Great-circle distance")
struct GreatCircleTests {
    @Test("known distances")
    func knownDistances() {
        let oneDegree = GreatCircle.earthRadius * .pi / 180
        #expect(abs(GreatCircle.distance(.init(latitude: 0, longitude: 0), .init(latitude: 0, longitude: 1)) - oneDegree) < 1e-6)
        #expect(abs(GreatCircle.distance(.init(latitude: 0, longitude: 0), .init(latitude: 1, longitude: 0)) - oneDegree) < 1e-6)
        // London – Paris: 343.5 km on the mean sphere (published haversine value 343,556 m).
        let london = GeoCoordinate(latitude: 51.5074, longitude: -0.1278)
        let paris = GeoCoordinate(latitude: 48.8566, longitude: 2.3522)
        #expect(abs(GreatCircle.distance(london, paris) - 343_556) < 100)
        // Seattle – New York: 3,866 km.
        let seattle = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)
        let newYork = GeoCoordinate(latitude: 40.7128, longitude: -74.0060)
        #expect(abs(GreatCircle.distance(seattle, newYork) - 3_866_000) < 2_000)
        // Antipodes: half the circumference, without NaN.
        let antipode = GreatCircle.distance(.init(latitude: 10, longitude: 20), .init(latitude: -10, longitude: -160))
        #expect(abs(antipode - .pi * GreatCircle.earthRadius) < 1e-3)
        // Across the antimeridian: 0.2° of longitude at the equator, not 359.8°.
        #expect(
            abs(GreatCircle.distance(.init(latitude: 0, longitude: 179.9), .init(latitude: 0, longitude: -179.9)) - 0.2 * oneDegree) < 1e-3)
        // Pole to pole.
        #expect(
            abs(
                GreatCircle.distance(.init(latitude: 90, longitude: 0), .init(latitude: -90, longitude: 45)) - .pi * GreatCircle.earthRadius
            ) < 1e-3)
        // A metre stays a metre (the law of cosines loses this).
        let start = GeoCoordinate(latitude: 47.6, longitude: -122.3)
        let metre = GreatCircle.destination(from: start, bearing: 90, distance: 1)
        #expect(abs(GreatCircle.distance(start, metre) - 1) < 1e-6)
        #expect(GreatCircle.distance(start, start) == 0)
    }

    @Test("agrees with haversine and the law of cosines; symmetric; triangle inequality")
    func properties() {
        var random = SplitMix64(seed: 20_261_122)
        for _ in 0..<2_000 {
            let a = random.coordinate()
            let b = random.coordinate()
            let c = random.coordinate()
            let ab = GreatCircle.distance(a, b)
            #expect(abs(ab - GreatCircle.distance(b, a)) < 1e-6)
            #expect(ab >= 0 && ab <= .pi * GreatCircle.earthRadius + 1e-6)
            #expect(ab <= GreatCircle.distance(a, c) + GreatCircle.distance(c, b) + 1e-6)
            // Independent formulas: haversine (good except near antipodes) and the law of
            // cosines (good above a few kilometres).
            let phiA = a.latitude * .pi / 180
            let phiB = b.latitude * .pi / 180
            let h = pow(sin((phiB - phiA) / 2), 2) + cos(phiA) * cos(phiB) * pow(sin((b.longitude - a.longitude) * .pi / 360), 2)
            if ab < 19_000_000 { #expect(abs(ab - 2 * GreatCircle.earthRadius * asin(min(1, h.squareRoot()))) < 1e-3) }
            if ab > 10_000 {
                let phi1 = a.latitude * .pi / 180
                let phi2 = b.latitude * .pi / 180
                let cosine = sin(phi1) * sin(phi2) + cos(phi1) * cos(phi2) * cos((b.longitude - a.longitude) * .pi / 180)
                let lawOfCosines = acos(max(-1, min(1, cosine))) * GreatCircle.earthRadius
                #expect(abs(ab - lawOfCosines) < 1, "\(a) \(b)")
            }
        }
    }

    @Test("destination and bearing invert distance")
    func destination() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            let start = GeoCoordinate(latitude: random.uniform(-80, 80), longitude: random.uniform(-180, 180))
            let bearing = random.uniform(0, 360)
            let distance = random.uniform(1, 2_000_000)
            let end = GreatCircle.destination(from: start, bearing: bearing, distance: distance)
            #expect(end.isValid)
            #expect(abs(GreatCircle.distance(start, end) - distance) < 1e-3 * max(1, distance / 1_000))
            let back = GreatCircle.bearing(from: start, to: end)
            let difference = abs((back - bearing + 540).truncatingRemainder(dividingBy: 360) - 180)
            #expect(difference < 1e-6 || distance < 10, "bearing \(bearing) vs \(back)")
        }
    }

    @Test("bounding spans contain every point of the circle")
    func boundingSpans() {
        var random = SplitMix64(seed: 99)
        for _ in 0..<500 {
            let center = GeoCoordinate(latitude: random.uniform(-85, 85), longitude: random.uniform(-180, 180))
            let radius = random.uniform(100, 500_000)
            let spans = GreatCircle.boundingSpans(center: center, radius: radius)
            for step in 0..<36 {
                let point = GreatCircle.destination(from: center, bearing: Double(step) * 10, distance: radius)
                #expect(abs(point.latitude - center.latitude) <= spans.latitude + 1e-9)
                let longitudeDifference = abs((point.longitude - center.longitude + 540).truncatingRemainder(dividingBy: 360) - 180)
                #expect(longitudeDifference <= spans.longitude + 1e-9, "\(center) r=\(radius) bearing \(step * 10)")
            }
        }
    }
}

extension SplitMix64 {
    /// A number uniform in `low..<high`.
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// A point uniform on the sphere, so the poles are not over-represented.
    mutating func coordinate() -> GeoCoordinate {
        GeoCoordinate(latitude: asin(uniform(-1, 1)) * 180 / .pi, longitude: uniform(-180, 180))
    }
}
