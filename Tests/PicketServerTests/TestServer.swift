import Foundation
import Logging
import PepperTestSupport
import Picket
import PicketServer
import Testing

/// A Picket server on a free loopback port, for the length of a test.
final class TestServer: Sendable {
    let url: URL
    let port: Int
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.url = URL(string: "http://127.0.0.1:\(port)")!
        self.task = task
    }

    /// Starts a server over `store`; by default it checks the store's revision on every request
    /// (interval 0), so changes made through another connection show at once.
    static func start(
        store: any PicketStore,
        configuration: PicketServer.Configuration = .init(port: 0, requestsPerMinute: nil, revisionCheckInterval: 0),
        metrics: PicketServerMetrics = PicketServerMetrics()
    ) async throws -> TestServer {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var logger = Logger(label: "pepper.test.picket")
        logger.logLevel = .critical
        let server = PicketServer(store: store, configuration: configuration, logger: logger, metrics: metrics)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // On the cooperative threads, as in production: the tests wait for their child
        // processes on threads of their own (`onOwnThread`), never on these.
        let task = Task { try await server.run(handleSignals: false) { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return TestServer(port: port, task: task)
    }

    /// A client with `key`.
    func client(_ key: String) -> PicketClient {
        PicketClient(server: url, apiKey: key, timeout: 20)
    }

    /// Stops the server (gracefully) and waits for it.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// Keys for tests.
struct TestKeys {
    let read: String
    let write: String
    let all: String

    static func create(in store: any PicketStore) async throws -> TestKeys {
        TestKeys(
            read: try await APIKeys.create(scopes: [.readMobile], label: "read", in: store).key,
            write: try await APIKeys.create(scopes: [.writeGPSSnapshot, .writeSubmitStrike], label: "write", in: store).key,
            all: try await APIKeys.create(scopes: APIScope.allCases, label: "all", in: store).key)
    }
}

/// Places and records used across tests.
enum Fixtures {
    static let seattle = GeoCoordinate(latitude: 47.6062, longitude: -122.3321)
    static let tacoma = GeoCoordinate(latitude: 47.2529, longitude: -122.4443)
    static let tokyo = GeoCoordinate(latitude: 35.6762, longitude: 139.6503)

    /// One employer with a current strike in Seattle (and a picket site), one with a strike
    /// that ended, one pending.
    static func records(now: Date = Date()) -> ImportRecords {
        let day = 86_400.0
        return ImportRecords(
            employers: [
                EmployerRecord(id: "emp_a", name: "Acme Retail", domains: ["acme.example", "shop-acme.example"], status: .approved),
                EmployerRecord(id: "emp_old", name: "Old Corp", domains: ["old.example"], status: .approved),
            ],
            actions: [
                ActionRecord(
                    id: "act_a", employerId: "emp_a", organization: "Retail Workers", actionType: "strike", location: "Seattle, WA",
                    startDate: now.addingTimeInterval(-2 * day), endDate: now.addingTimeInterval(20 * day), description: "On strike",
                    coordinate: GeoCoordinate(latitude: 47.6100, longitude: -122.3400), status: .approved, origin: "import"),
                ActionRecord(
                    id: "act_old", employerId: "emp_old", actionType: "boycott", startDate: now.addingTimeInterval(-30 * day),
                    endDate: now.addingTimeInterval(-1 * day), coordinate: seattle, status: .approved, origin: "import"),
            ],
            locations: [
                LocationRecord(
                    id: "site_a", employerId: "emp_a", actionId: "act_a", kind: .picketSite, name: "Main gate",
                    coordinate: GeoCoordinate(latitude: 47.6110, longitude: -122.3410)),
                LocationRecord(
                    id: "loc_a_tacoma", employerId: "emp_a", kind: .employerLocation, name: "Acme Tacoma", locationType: "store",
                    coordinate: tacoma),
            ])
    }
}
