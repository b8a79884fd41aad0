import ArgumentParser
import Foundation
import Picket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `pepper-bench picket`: `wrk` against `GET /api/mobile/data` and `GET /api/blocklist.json`
/// of `pepper picket serve`, with 10,000 approved actions in the store, for 200 and 304
/// responses, on SQLite and PostgreSQL.
struct PicketBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picket",
        abstract: "Requests per second and p99 latency of the Picket data and blocklist endpoints (wrk, loopback).",
        discussion: """
            Seeds a store with --actions approved actions (500 employers with two domains
            each; actions at GeoNames places, more where more people live), starts the
            release `pepper picket serve` with the rate limit off, and runs wrk four times
            per store: `data` with full 200 responses (no hash) and with 304 responses
            (each request sends the current hash of its position; requests cycle
            through --positions places, so neither the server nor the kernel answers
            one URL over and over), then `blocklist.json` without and with its hash.
            scripts/bench-picket.sh installs wrk and starts a PostgreSQL server.
            """
    )

    @Option(help: "Approved actions in the store.") var actions = 10_000
    @Option(help: "Distinct positions requested.") var positions = 1_000
    @Option(help: "Seconds per wrk run.") var duration = 10
    @Option(help: "wrk connections.") var connections = 32
    @Option(help: "wrk threads.") var threads = 2
    @Option(help: "Stores to measure: sqlite, postgresql.") var stores: [String] = ["sqlite", "postgresql"]
    @Option(help: ArgumentHelp("A PostgreSQL server URL (default: $PEPPER_TEST_POSTGRES_URL).", valueName: "url")) var postgresUrl: String?
    @Option(help: ArgumentHelp("The pepper binary (default: next to pepper-bench).", valueName: "path")) var pepper: String?
    @Flag(help: "Run the server with --metrics (Prometheus counters on), to measure what they cost.") var serverMetrics = false

    func run() async throws {
        let binary =
            pepper
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("pepper").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("no pepper binary at \(binary)") }
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
            throw ValidationError("wrk is not installed (apt-get install wrk, or scripts/bench-picket.sh)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-picket-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let (seed, places) = Self.seed(actions: actions, positions: positions)
        let seedURL = work.appendingPathComponent("seed.json")
        try seed.write(to: seedURL)
        print("Data: \(actions) approved actions of 500 employers (1,000 domains); \(places.count) request positions")
        print("Server metrics (--metrics): \(serverMetrics ? "on" : "off")")
        print(
            "wrk: \(threads) threads, \(connections) connections, \(duration) s per run; server and wrk share this machine's \(ProcessInfo.processInfo.activeProcessorCount) cores"
        )

        var rows: [(store: String, responses: String, result: Result)] = []
        for store in stores {
            let database: String
            switch store {
            case "sqlite":
                database = "sqlite:" + work.appendingPathComponent("bench.sqlite").path
            case "postgresql":
                guard let url = postgresUrl ?? ProcessInfo.processInfo.environment["PEPPER_TEST_POSTGRES_URL"] else {
                    print("postgresql: skipped (no --postgres-url or PEPPER_TEST_POSTGRES_URL)")
                    continue
                }
                database = url
            default:
                throw ValidationError("unknown store \(store)")
            }
            let home = work.appendingPathComponent("home-\(store)")
            let environment = ["PEPPER_HOME": home.path]
            let imported = try Measurement.run(
                binary, ["picket", "import", seedURL.path, "--database", database], environment: environment)
            guard imported.status == 0 else { throw ValidationError("import failed: \(imported.stderr)") }
            let created = try Measurement.run(
                binary, ["picket", "keys", "create", "--scope", "read:mobile", "--database", database], environment: environment)
            guard created.status == 0, let key = created.stdout.split(separator: "\n").last.map(String.init) else {
                throw ValidationError("keys create failed: \(created.stderr)")
            }
            let port = try Self.freePort()
            let server = try ServerChild(
                binary,
                ["picket", "serve", "--listen", "127.0.0.1:\(port)", "--database", database, "--rate-limit", "0"]
                    + (serverMetrics ? ["--metrics", "127.0.0.1:0"] : []),
                environment: environment)
            defer { server.stop() }
            try await Self.waitUntilUp(port: port)

            // Paths for both runs; the 304 run carries each position's current hash.
            let client = PicketClient(server: URL(string: "http://127.0.0.1:\(port)")!, apiKey: key)
            var fullPaths: [String] = []
            var conditionalPaths: [String] = []
            var bodyBytes = 0
            var geofences = 0
            for place in places {
                let path = "/api/mobile/data?lat=\(PicketClient.format(place.latitude))&lng=\(PicketClient.format(place.longitude))"
                guard case .updated(let data, let hash, let body) = try await client.mobileData(at: place) else { continue }
                bodyBytes += body.count
                geofences += data.geofences.total
                fullPaths.append(path)
                conditionalPaths.append(path + "&hash=" + hash)
            }
            let averageBody = bodyBytes / max(1, fullPaths.count)
            print(
                "\(store): average 200 body \(Measurement.megabytes(averageBody * 1_024 * 1_024 / 1_024 / 1_024)) "
                    + "(\(averageBody) bytes, \(geofences / max(1, fullPaths.count)) geofences and \(1_000) blocklist entries on average)")
            rows.append((store, "data 200 (full body)", try runWrk(wrk, port: port, key: key, paths: fullPaths, work: work, label: "200")))
            rows.append(
                (store, "data 304 (hash matches)", try runWrk(wrk, port: port, key: key, paths: conditionalPaths, work: work, label: "304"))
            )

            // The blocklist feed of the other OPL clients: one body for everyone.
            let feed = try await client.raw(method: "GET", path: "/api/blocklist.json")
            guard feed.status == 200, let feedHash = feed.headers["x-content-hash"] else {
                throw ValidationError("/api/blocklist.json answered \(feed.status)")
            }
            print("\(store): /api/blocklist.json body \(feed.body.count) bytes")
            let feedPath = "/api/blocklist.json"
            rows.append((store, "blocklist.json 200", try runWrk(wrk, port: port, key: key, paths: [feedPath], work: work, label: "200")))
            rows.append(
                (
                    store, "blocklist.json 304",
                    try runWrk(wrk, port: port, key: key, paths: [feedPath + "?hash=" + feedHash], work: work, label: "304")
                ))
        }

        print("")
        print("| store | responses | requests/s | p50 | p99 | non-2xx/3xx |")
        print("|---|---|---|---|---|---|")
        for row in rows {
            let result = row.result
            print(
                "| \(row.store) | \(row.responses) | \(String(format: "%.0f", result.requestsPerSecond)) | \(String(format: "%.2f ms", result.p50)) | "
                    + "\(String(format: "%.2f ms", result.p99)) | \(result.errors) |")
        }
        print("")
        print("Targets (both endpoints): ≥ 15,000 req/s for 304, ≥ 3,000 req/s for 200, p99 < 20 ms.")
    }

    struct Result {
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
        var errors: Int
    }

    private func runWrk(_ wrk: String, port: Int, key: String, paths: [String], work: URL, label: String) throws -> Result {
        try Self.runWrk(
            wrk, port: port, key: key, paths: paths, work: work, label: label, threads: threads, connections: connections,
            duration: duration)
    }

    /// wrk with `script` (by default ``lua``: GET `paths` in turn) against the port, after a 2 s
    /// warm-up; prints wrk's report under `label` and returns its figures.
    static func runWrk(
        _ wrk: String, port: Int, key: String, paths: [String], work: URL, label: String, threads: Int, connections: Int, duration: Int,
        script: String = lua
    ) throws -> Result {
        let pathsURL = work.appendingPathComponent("paths-\(label).txt")
        try (paths.joined(separator: "\n") + "\n").write(to: pathsURL, atomically: true, encoding: .utf8)
        let scriptURL = work.appendingPathComponent("picket-\(label).lua")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let environment = ["PEPPER_BENCH_PATHS": pathsURL.path, "PEPPER_BENCH_KEY": key]
        // A short warm-up, then the measured run.
        _ = try Measurement.run(wrk, ["-t1", "-c4", "-d2s", "-s", scriptURL.path, "http://127.0.0.1:\(port)"], environment: environment)
        let run = try Measurement.run(
            wrk, ["-t\(threads)", "-c\(connections)", "-d\(duration)s", "--latency", "-s", scriptURL.path, "http://127.0.0.1:\(port)"],
            environment: environment)
        guard run.status == 0 else { throw ValidationError("wrk failed: \(run.stderr)") }
        print("--- \(label) ---")
        print(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        return parse(run.stdout)
    }

    /// Requests/sec, the 50th and 99th latency percentiles (ms) and the error count of a wrk report.
    static func parse(_ report: String) -> Result {
        var result = Result(requestsPerSecond: 0, p50: .nan, p99: .nan, errors: 0)
        for line in report.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) { result.requestsPerSecond = value }
            if fields.count == 2, fields[0] == "50%" { result.p50 = milliseconds(String(fields[1])) }
            if fields.count == 2, fields[0] == "99%" { result.p99 = milliseconds(String(fields[1])) }
            if line.hasPrefix("Non-2xx or 3xx responses:"), let value = fields.last.flatMap({ Int($0) }) { result.errors += value }
            if line.hasPrefix("Socket errors:") {
                result.errors += line.split(separator: ",").compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
        }
        return result
    }

    static func milliseconds(_ text: String) -> Double {
        for (suffix, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1_000.0), ("m", 60_000.0)] where text.hasSuffix(suffix) {
            return (Double(text.dropLast(suffix.count)) ?? .nan) * factor
        }
        return .nan
    }

    /// Cycles through the paths (one list per wrk thread, each starting at its own offset).
    static let lua = """
        local paths = {}
        for line in io.lines(os.getenv("PEPPER_BENCH_PATHS")) do paths[#paths + 1] = line end
        local counter = 0
        local offset = 0
        setup = function(thread)
          thread:set("offset", counter * 97)
          counter = counter + 1
        end
        init = function(args)
          offset = tonumber(wrk.thread:get("offset")) or 0
          wrk.headers["X-API-Key"] = os.getenv("PEPPER_BENCH_KEY")
        end
        local index = 0
        request = function()
          index = index + 1
          return wrk.format("GET", paths[((index + offset) % #paths) + 1])
        end
        """

    /// The seed file and the request positions. Deterministic: the same arguments give the
    /// same data.
    /// The action types of the seed: the five of the first benchmarks (2026-11-22), so that every
    /// figure since is for the same data, and a build from before the apps' other types (lockout,
    /// walkout, …) can import it for a before-and-after run.
    static let seedActionTypes = ["strike", "boycott", "picket", "protest", "other"]

    static func seed(actions: Int, positions: Int) -> (Data, [GeoCoordinate]) {
        var random = SplitMix(seed: 2_026)
        // Places weighted by population (square root, so big cities do not take everything).
        let places = Gazetteer.shared.places.sorted { $0.population > $1.population }.prefix(8_000)
        var cumulative: [Double] = []
        var total = 0.0
        for place in places {
            total += Double(place.population).squareRoot()
            cumulative.append(total)
        }
        func pick() -> Gazetteer.Place {
            let target = random.uniform() * total
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return places[places.startIndex + low]
        }
        func jitter(_ coordinate: GeoCoordinate, _ meters: Double) -> GeoCoordinate {
            GreatCircle.destination(from: coordinate, bearing: random.uniform() * 360, distance: random.uniform() * meters)
        }
        var employers: [[String: Any]] = []
        for index in 0..<500 {
            employers.append([
                "id": String(format: "emp_bench_%04d", index), "name": "Bench Employer \(index)",
                "domains": ["employer\(index).example", "shop-employer\(index).example"],
            ])
        }
        var items: [[String: Any]] = []
        for index in 0..<actions {
            let place = pick()
            let point = jitter(place.coordinate, 5_000)
            items.append([
                "id": String(format: "act_bench_%05d", index), "employerId": String(format: "emp_bench_%04d", index % 500),
                "organization": "Union \(index % 97)", "actionType": seedActionTypes[index % seedActionTypes.count],
                "location": "\(place.name), \(place.countryCode)", "startDate": "2024-01-01", "durationDays": 3_650,
                "description": "Benchmark action \(index): workers at this site are on strike for a fair contract.",
                "coordinates": ["latitude": point.latitude, "longitude": point.longitude],
            ])
        }
        let document: [String: Any] = ["employers": employers, "actions": items]
        let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        let requests = (0..<positions).map { _ in jitter(pick().coordinate, 2_000) }
        return (data, requests)
    }

    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitUntilUp(port: Int) async throws {
        for _ in 0..<200 {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw ValidationError("the server did not start on port \(port)")
    }
}

/// `pepper picket serve` running beside the benchmark.
final class ServerChild {
    private let process = Process()

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

extension SplitMix {
    /// A uniform value in 0..<1.
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
