import Foundation
import GRDB
import Logging
import NIOPosix
import Picket
import PicketServer
import PostgresNIO
import ServerMetrics
import Storage
import Testing

/// `pepper picket serve --metrics`: the counters move exactly with real requests, and a store
/// that fails shows in them while the last content keeps being served.
@Suite("Picket server metrics")
struct PicketMetricsTests {
    /// The samples the registry would serve now: `name{labels}` → value.
    static func samples(_ endpoint: MetricsEndpoint) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in endpoint.registry.emitToString().split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func endpoint() -> MetricsEndpoint {
        MetricsEndpoint(
            host: "127.0.0.1", port: 0,
            durationBuckets: [PicketServerMetrics.requestDurationName: PicketServerMetrics.requestDurationBuckets])
    }

    @Test("requests by route and status, conditional requests, rate limits, the content revision", arguments: StoreKind.allCases)
    func counts(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let keys = try await TestKeys.create(in: test.store)
        let endpoint = Self.endpoint()
        let server = try await TestServer.start(
            store: test.store, configuration: .init(port: 0, requestsPerMinute: 6, revisionCheckInterval: 0),
            metrics: PicketServerMetrics(factory: endpoint.factory))
        defer {
            Task {
                await server.stop()
                await test.store.close()
            }
        }
        let client = server.client(keys.all)
        let seattle: [URLQueryItem] = [.init(name: "lat", value: "47.6062"), .init(name: "lng", value: "-122.3321")]
        // What the client saw, by route and status: the counters must say exactly the same.
        var seen: [String: Double] = [:]
        func get(_ path: String, _ query: [URLQueryItem] = [], key: Bool = true) async throws -> (Int, String?) {
            let answer = try await client.raw(method: "GET", path: path, query: query, includeKey: key)
            let route = path.hasPrefix("/api/") ? path : PicketServerMetrics.unmatchedRoute
            seen[#"route="\#(route)",method="GET",status="\#(answer.status)""#, default: 0] += 1
            return (answer.status, answer.headers["x-content-hash"])
        }
        let (first, feedHash) = try await get("/api/blocklist.json")
        #expect(first == 200)
        let currentFeedHash = try #require(feedHash)
        #expect(try await get("/api/blocklist.json", [.init(name: "hash", value: currentFeedHash)]).0 == 304)
        let (data, dataHash) = try await get("/api/mobile/data", seattle)
        #expect(data == 200)
        let currentDataHash = try #require(dataHash)
        #expect(try await get("/api/mobile/data", seattle + [.init(name: "hash", value: currentDataHash)]).0 == 304)
        #expect(try await get("/api/blocklist.json", [.init(name: "hash", value: "nothex")]).0 == 400)
        #expect(try await get("/api/mobile/active-strikes").0 == 200)
        // The seventh request of a key allowed six a minute is refused, unless a loaded machine
        // took ten seconds over the six (a token came back): then one of the next ones is.
        var limited = false
        for _ in 0..<10 where !limited {
            limited = try await get("/api/blocklist.json").0 == 429
        }
        #expect(limited, "a key allowed six a minute is refused")
        #expect(try await get("/api/blocklist.json", key: false).0 == 401)
        #expect(try await get("/no/such/endpoint").0 == 404)

        let samples = Self.samples(endpoint)
        let revision = try await test.store.revision().content
        let feedRequests = seen.filter { $0.key.hasPrefix(#"route="/api/blocklist.json""#) }.values.reduce(0, +)
        var expected: [String: Double] = [
            #"pepper_picket_request_duration_seconds_count{route="/api/blocklist.json"}"#: feedRequests,
            #"pepper_picket_request_duration_seconds_count{route="/api/mobile/data"}"#: 2,
            #"pepper_picket_conditional_requests_total{route="/api/blocklist.json",result="not_modified"}"#: 1,
            #"pepper_picket_conditional_requests_total{route="/api/blocklist.json",result="modified"}"#: 0,
            #"pepper_picket_conditional_requests_total{route="/api/mobile/data",result="not_modified"}"#: 1,
            #"pepper_picket_rate_limited_requests_total"#: seen[#"route="/api/blocklist.json",method="GET",status="429""#] ?? 0,
            #"pepper_picket_store_errors_total{operation="refresh"}"#: 0,
            #"pepper_picket_content_revision"#: Double(revision),
        ]
        for (labels, count) in seen { expected["pepper_picket_requests_total{\(labels)}"] = count }
        #expect(seen.count == 9, "200, 304, 400, 429 and 401 of the feed, 200 and 304 of data, active strikes, 404")
        for (sample, value) in expected {
            let found = samples[sample]
            #expect(found == value, "\(sample): \(found.map { "\($0)" } ?? "absent")")
        }
        #expect(
            samples.keys.filter { $0.hasPrefix("pepper_picket_requests_total") }.count == seen.count, "no other route, method or status")
    }

    /// Renames the tables the revision check and snapshot submissions use, through a connection
    /// of its own, as a broken or half-migrated database would look (and back).
    static func breakStore(_ test: TestStore, broken: Bool) async throws {
        let names =
            test.kind == .sqlite
            ? [("picketState", "picketStateGone"), ("picketSnapshot", "picketSnapshotGone")]
            : [
                ("picket_state", "picket_state_gone"), ("picket_snapshot", "picket_snapshot_gone"),
            ]
        let statements = names.map { from, to in broken ? "ALTER TABLE \(from) RENAME TO \(to)" : "ALTER TABLE \(to) RENAME TO \(from)" }
        switch test.kind {
        case .sqlite:
            let database = try PepperDatabase(url: URL(fileURLWithPath: test.location))
            try await database.writer.write { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        case .postgresql:
            let components = try #require(URLComponents(string: test.location))
            let configuration = PostgresConnection.Configuration(
                host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
                password: components.password, database: String(components.path.dropFirst()), tls: .disable)
            let logger = Logger(label: "pepper.test.postgres")
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 2, logger: logger)
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.close()
        }
    }

    @Test(
        "a failing store: the last content is served, the errors are counted, writes get 503 with Retry-After",
        arguments: StoreKind.allCases)
    func storeErrors(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        _ = try await test.store.importRecords(Fixtures.records())
        let keys = try await TestKeys.create(in: test.store)
        let endpoint = Self.endpoint()
        let server = try await TestServer.start(store: test.store, metrics: PicketServerMetrics(factory: endpoint.factory))
        defer {
            Task {
                await server.stop()
                await test.store.close()
            }
        }
        let client = server.client(keys.all)
        let first = try await client.raw(method: "GET", path: "/api/blocklist.json")
        #expect(first.status == 200)
        let revision = Self.samples(endpoint)["pepper_picket_content_revision"]

        try await Self.breakStore(test, broken: true)
        let during = try await client.raw(method: "GET", path: "/api/blocklist.json")
        #expect(during.status == 200, "the last published content keeps being served")
        #expect(during.body == first.body)
        let snapshot = try await client.raw(
            method: "POST", path: "/api/mobile/gps-snapshot",
            body: Data(#"{"actionId": "act_a", "latitude": 47.61, "longitude": -122.34}"#.utf8))
        // Nothing was stored: 503 with Retry-After, never a 2xx (and no details of the failure).
        #expect(snapshot.status == 503)
        #expect(snapshot.headers["Retry-After"] == "5" || snapshot.headers["retry-after"] == "5", "\(snapshot.headers)")
        #expect(String(decoding: snapshot.body, as: UTF8.self).contains("nothing was stored"), "no details leak")
        let samples = Self.samples(endpoint)
        #expect((samples[#"pepper_picket_store_errors_total{operation="refresh"}"#] ?? 0) >= 1)
        #expect(samples[#"pepper_picket_store_errors_total{operation="write"}"#] == 1)
        #expect(samples["pepper_picket_content_revision"] == revision)

        // Mended: requests refresh from the store again.
        try await Self.breakStore(test, broken: false)
        let refreshErrors = Self.samples(endpoint)[#"pepper_picket_store_errors_total{operation="refresh"}"#]
        #expect(try await client.raw(method: "GET", path: "/api/blocklist.json").status == 200)
        #expect(Self.samples(endpoint)[#"pepper_picket_store_errors_total{operation="refresh"}"#] == refreshErrors)
    }
}
