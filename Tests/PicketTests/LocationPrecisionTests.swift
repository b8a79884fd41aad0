import Foundation
import PepperTestSupport
import Testing

@testable import Picket

/// What leaves the device of a position: the area in the background, the point when the person
/// chose it; and which geocoder answers which question first.
@Suite("Location precision and the place finder")
struct LocationPrecisionTests {
    @Test func backgroundPositionsAreRoundedToTwoDecimals() {
        #expect(LocationPrecision.backgroundDecimals == 2)
        let seattle = LocationPrecision.background(GeoCoordinate(latitude: 47.606209, longitude: -122.332069))
        #expect(seattle == GeoCoordinate(latitude: 47.61, longitude: -122.33))
        #expect(
            LocationPrecision.background(GeoCoordinate(latitude: -33.868820, longitude: 151.209296))
                == GeoCoordinate(latitude: -33.87, longitude: 151.21))
        #expect(LocationPrecision.background(GeoCoordinate(latitude: 0.004, longitude: -0.004)) == GeoCoordinate(latitude: 0, longitude: 0))
        #expect(LocationPrecision.background(GeoCoordinate(latitude: 0.004, longitude: -0.004)).longitude.sign == .plus, "no -0")
        #expect(
            LocationPrecision.background(GeoCoordinate(latitude: 89.996, longitude: -179.996))
                == GeoCoordinate(latitude: 90, longitude: 180))
        #expect(PicketClient.format(seattle.latitude) == "47.61" && PicketClient.format(seattle.longitude) == "-122.33")
        // Chosen points keep what a phone's fix can tell apart.
        #expect(
            LocationPrecision.rounded(
                GeoCoordinate(latitude: 47.6205123, longitude: -122.3493456), decimals: LocationPrecision.chosenDecimals)
                == GeoCoordinate(latitude: 47.620512, longitude: -122.349346))

        // Everywhere on Earth, the area sent is within 0.005° of the point on each axis: at most
        // 556 m north or south and, across the diagonal, 787 m away ("about 1 km").
        var random = SplitMix64(seed: 37)
        var farthest = 0.0
        for _ in 0..<20_000 {
            let point = GeoCoordinate(
                latitude: Double.random(in: -89.99...89.99, using: &random), longitude: Double.random(in: -180...180, using: &random))
            let area = LocationPrecision.background(point)
            #expect(abs(area.latitude - point.latitude) <= 0.005 + 1e-9)
            #expect(
                abs(area.longitude - point.longitude) <= 0.005 + 1e-9 || abs(abs(area.longitude - point.longitude) - 360) <= 0.005 + 1e-9)
            #expect(area == LocationPrecision.background(area), "rounding twice changes nothing")
            farthest = max(farthest, GreatCircle.distance(point, area))
        }
        #expect(farthest <= 787 && farthest > 600, "\(farthest) m")
    }

    @Test func aDataFetchSendsOnlyTheArea() async throws {
        let payload = MobileData(
            version: "1", generatedAt: "2025-05-01T00:00:00Z", suggestedRefreshInterval: 3_600,
            cachedRegion: CachedRegion(
                center: Coordinates(lat: 47.61, lng: -122.33), radiusMeters: 160_934, refreshThresholdMeters: 128_747),
            geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
            blocklist: Blocklist(totalUrls: 0, totalEmployers: 0, urls: []))
        let body = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let server = try ListServer(routes: [
            "/api/mobile/data": .init(body: body, contentType: "application/json", headers: ["X-Content-Hash": "abc123"])
        ])
        let client = PicketClient(server: URL(string: server.url(""))!, apiKey: "opl_" + String(repeating: "0", count: 64))
        let answer = try await client.mobileData(at: GeoCoordinate(latitude: 47.6205123, longitude: -122.3493456), lastHash: "old")
        #expect(answer == .updated(payload, hash: "abc123", body: Data(body.utf8)))
        let query = try #require(server.requests.last?.query)
        #expect(query == "lat=47.62&lng=-122.35&hash=old", "\(query)")
        #expect(!query.contains("47.6205") && !query.contains("122.349"), "nothing finer than the area leaves")
    }

    // MARK: Which geocoder answers

    /// A geocoder that answers from a table, says it does not know, or fails; it notes what it was asked.
    final class FakeGeocoder: Geocoder, @unchecked Sendable {
        enum Behaviour { case answer, unknown, fail }
        let name: String
        let behaviour: Behaviour
        private let lock = NSLock()
        private var asked: [String] = []

        init(_ name: String, _ behaviour: Behaviour) {
            self.name = name
            self.behaviour = behaviour
        }

        var questions: [String] { lock.withLock { asked } }

        func geocode(_ request: GeocodeRequest) async throws -> GeocodeResult? {
            lock.withLock { asked.append("geocode \(request.singleLine)") }
            switch behaviour {
            case .answer: return GeocodeResult(latitude: 1, longitude: 2, displayName: "by \(name)", confidence: nil, source: name)
            case .unknown: return nil
            case .fail: throw PicketClientError.transport("\(name) is offline")
            }
        }

        func reverseGeocode(_ coordinate: GeoCoordinate) async throws -> ReverseGeocodeResult? {
            lock.withLock { asked.append("reverse \(coordinate)") }
            switch behaviour {
            case .answer: return ReverseGeocodeResult(displayName: "by \(name)", source: name)
            case .unknown: return nil
            case .fail: throw PicketClientError.unauthorized("\(name) refused")
            }
        }
    }

    @Test func addressesAskTheDeviceFirstAndPointsAskTheServerFirst() async throws {
        let address = GeocodeRequest(address: "400 Pine St, Seattle")
        let point = GeoCoordinate(latitude: 47.6, longitude: -122.3)

        // The device knows the address: the server is never asked.
        var device = FakeGeocoder("device", .answer)
        var server = FakeGeocoder("picket-server", .answer)
        var finder = PlaceFinder(device: device, server: server)
        #expect(await finder.geocode(address).value?.displayName == "by device")
        #expect(device.questions == ["geocode 400 Pine St, Seattle"] && server.questions.isEmpty)
        // A point: the server first, the device not asked.
        #expect(await finder.reverseGeocode(point).value?.displayName == "by picket-server")
        #expect(server.questions.count == 1 && device.questions.count == 1)

        // The device does not know it, or fails: the server answers.
        for behaviour in [FakeGeocoder.Behaviour.unknown, .fail] {
            device = FakeGeocoder("device", behaviour)
            server = FakeGeocoder("picket-server", .answer)
            finder = PlaceFinder(device: device, server: server)
            guard case .found(let result, let source) = await finder.geocode(address) else {
                Issue.record("the server answers when the device cannot (\(behaviour))")
                continue
            }
            #expect(result.displayName == "by picket-server" && source == "picket-server")
            #expect(device.questions.count == 1 && server.questions.count == 1)
        }

        // The server cannot say what is at the point: the device does.
        device = FakeGeocoder("device", .answer)
        server = FakeGeocoder("picket-server", .fail)
        finder = PlaceFinder(device: device, server: server)
        #expect(await finder.reverseGeocode(point).value?.source == "device")
        #expect(server.questions.count == 1 && device.questions.count == 1)

        // No one knows: not found. Someone failed: its failure is said, not hidden by "unknown".
        finder = PlaceFinder(device: FakeGeocoder("device", .unknown), server: FakeGeocoder("picket-server", .unknown))
        guard case .notFound = await finder.geocode(address) else { throw Failure("both unknown: not found") }
        finder = PlaceFinder(device: FakeGeocoder("device", .unknown), server: FakeGeocoder("picket-server", .fail))
        guard case .failed(let failures) = await finder.geocode(address) else { throw Failure("a failed server is said") }
        #expect(failures.map(\.source) == ["picket-server"])
        #expect((failures.first?.error as? PicketClientError) == .transport("picket-server is offline"))

        // A face without a device geocoder (the console) asks the server alone; nothing to ask at all is said.
        server = FakeGeocoder("picket-server", .answer)
        #expect(await PlaceFinder(device: nil, server: server).geocode(address).value?.source == "picket-server")
        #expect(PlaceFinder(device: nil, server: server).addressOrder.map(\.name) == ["picket-server"])
        guard case .noGeocoder = await PlaceFinder(device: nil, server: nil).reverseGeocode(point) else { throw Failure("no geocoder") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
