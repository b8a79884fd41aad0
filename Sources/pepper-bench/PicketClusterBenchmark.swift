import ArgumentParser
import Foundation
import Picket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `pepper-bench picket-cluster`: wrk through HAProxy (running `deploy/haproxy-picket.cfg` as it
/// is) in front of 1, 2 and 3 `pepper picket serve` processes on one PostgreSQL database.
struct PicketClusterBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picket-cluster",
        abstract: "Requests per second and p99 through HAProxy in front of 1, 2 and 3 Picket servers on one PostgreSQL.",
        discussion: """
            Seeds the PostgreSQL database with --actions approved actions (the data of
            `pepper-bench picket`), then for each --instances count starts that many release
            `pepper picket serve` (rate limit off) and HAProxy with deploy/haproxy-picket.cfg
            (its rate limit set out of the way), and runs wrk through HAProxy: `data` with
            304 answers (each request sends its position's hash), `data` with full 200
            answers, and strike reports (POST submit-strike, 201: a row in PostgreSQL each).
            On one machine the servers, HAProxy, PostgreSQL and wrk share the cores: more
            servers add no cores, so this shows what the balancer costs and that answers stay
            right, not how a cluster of machines scales. scripts/bench-picket.sh --cluster
            installs wrk and HAProxy and starts a PostgreSQL server.
            """
    )

    @Option(help: "Server counts to measure, in order.") var instances: [Int] = [1, 2, 3]
    @Option(help: "Approved actions in the store.") var actions = 10_000
    @Option(help: "Distinct positions requested.") var positions = 1_000
    @Option(help: "Seconds per wrk run.") var duration = 10
    @Option(help: "wrk connections.") var connections = 32
    @Option(help: "wrk threads.") var threads = 2
    @Option(help: ArgumentHelp("A PostgreSQL server URL (default: $PEPPER_TEST_POSTGRES_URL).", valueName: "url")) var postgresUrl: String?
    @Option(help: ArgumentHelp("The pepper binary (default: next to pepper-bench).", valueName: "path")) var pepper: String?
    @Option(help: ArgumentHelp("HAProxy's configuration.", valueName: "path")) var haproxyConfig = "deploy/haproxy-picket.cfg"

    func run() async throws {
        let binary =
            pepper
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("pepper").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("no pepper binary at \(binary)") }
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
            throw ValidationError("wrk is not installed (apt-get install wrk, or scripts/bench-picket.sh)")
        }
        guard
            let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first(
                where: FileManager.default.isExecutableFile)
        else { throw ValidationError("HAProxy is not installed (apt-get install haproxy, or scripts/bench-picket.sh --cluster)") }
        guard FileManager.default.fileExists(atPath: haproxyConfig) else {
            throw ValidationError("no HAProxy configuration at \(haproxyConfig)")
        }
        guard let database = postgresUrl ?? ProcessInfo.processInfo.environment["PEPPER_TEST_POSTGRES_URL"] else {
            throw ValidationError("give --postgres-url or PEPPER_TEST_POSTGRES_URL")
        }
        guard instances.allSatisfy({ (1...3).contains($0) }) else {
            throw ValidationError("--instances are 1, 2 or 3 (the servers the configuration names)")
        }

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-cluster-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (seed, places) = PicketBenchmark.seed(actions: actions, positions: positions)
        let seedURL = work.appendingPathComponent("seed.json")
        try seed.write(to: seedURL)
        let environment = ["PEPPER_HOME": work.appendingPathComponent("home").path]
        let imported = try Measurement.run(binary, ["picket", "import", seedURL.path, "--database", database], environment: environment)
        guard imported.status == 0 else { throw ValidationError("import failed: \(imported.stderr)") }
        let created = try Measurement.run(
            binary, ["picket", "keys", "create", "--preset", "mobile-apps", "--label", "bench", "--database", database],
            environment: environment)
        guard created.status == 0, let key = created.stdout.split(separator: "\n").last.map(String.init) else {
            throw ValidationError("keys create failed: \(created.stderr)")
        }
        print("Data: \(actions) approved actions of 500 employers (1,000 domains) on PostgreSQL; \(places.count) request positions")
        print(
            "wrk through HAProxy (\(haproxyConfig)): \(threads) threads, \(connections) connections, \(duration) s per run; "
                + "servers, HAProxy, PostgreSQL and wrk share this machine's \(ProcessInfo.processInfo.activeProcessorCount) cores")

        var rows: [(servers: Int, responses: String, result: PicketBenchmark.Result)] = []
        for count in instances {
            var servers: [ServerChild] = []
            var ports: [Int] = []
            for _ in 0..<count {
                let port = try PicketBenchmark.freePort()
                servers.append(
                    try ServerChild(
                        binary, ["picket", "serve", "--listen", "127.0.0.1:\(port)", "--database", database, "--rate-limit", "0"],
                        environment: environment))
                ports.append(port)
                try await PicketBenchmark.waitUntilUp(port: port)
            }
            let listen = try PicketBenchmark.freePort()
            let stats = try PicketBenchmark.freePort()
            var balancerEnvironment = [
                "PICKET_LISTEN": "127.0.0.1:\(listen)", "PICKET_HAPROXY_STATS": "127.0.0.1:\(stats)", "PICKET_RATE_LIMIT": "1000000000",
            ]
            for (index, port) in ports.enumerated() { balancerEnvironment["PICKET_SERVER_\(index + 1)"] = "127.0.0.1:\(port)" }
            if getuid() != 0 { balancerEnvironment["PICKET_HAPROXY_AS_INVOKER"] = "1" }
            let balancer = try ServerChild(haproxy, ["-db", "-f", haproxyConfig], environment: balancerEnvironment)
            defer {
                balancer.stop()
                for server in servers { server.stop() }
            }
            try await PicketBenchmark.waitUntilUp(port: listen)

            let client = PicketClient(server: URL(string: "http://127.0.0.1:\(listen)")!, apiKey: key)
            var fullPaths: [String] = []
            var conditionalPaths: [String] = []
            for place in places {
                let path = "/api/mobile/data?lat=\(PicketClient.format(place.latitude))&lng=\(PicketClient.format(place.longitude))"
                guard case .updated(_, let hash, _) = try await client.mobileData(at: place) else { continue }
                fullPaths.append(path)
                conditionalPaths.append(path + "&hash=" + hash)
            }
            func measure(_ label: String, _ paths: [String], script: String = PicketBenchmark.lua) throws -> PicketBenchmark.Result {
                try PicketBenchmark.runWrk(
                    wrk, port: listen, key: key, paths: paths, work: work, label: "\(count)-\(label)", threads: threads,
                    connections: connections, duration: duration, script: script)
            }
            print("== \(count) server\(count == 1 ? "" : "s") ==")
            rows.append((count, "data 304", try measure("304", conditionalPaths)))
            rows.append((count, "data 200", try measure("200", fullPaths)))
            rows.append((count, "submit-strike 201", try measure("submit", ["/api/mobile/submit-strike"], script: Self.submitLua)))
        }

        print("")
        print("| servers | responses | requests/s | p50 | p99 | non-2xx/3xx |")
        print("|---|---|---|---|---|---|")
        for row in rows {
            let result = row.result
            print(
                "| \(row.servers) | \(row.responses) | \(String(format: "%.0f", result.requestsPerSecond)) | "
                    + "\(String(format: "%.2f ms", result.p50)) | \(String(format: "%.2f ms", result.p99)) | \(result.errors) |")
        }
    }

    /// Strike reports as the iOS app sends them, each with an employer of its own.
    static let submitLua = """
        local counter = 0
        local prefix = ""
        setup = function(thread)
          thread:set("prefix", tostring(counter))
          counter = counter + 1
        end
        init = function(args)
          prefix = wrk.thread:get("prefix") or ""
          wrk.headers["X-API-Key"] = os.getenv("PEPPER_BENCH_KEY")
          wrk.headers["Content-Type"] = "application/json"
        end
        local index = 0
        request = function()
          index = index + 1
          local body = '{"employer":{"name":"Bench Report ' .. prefix .. '-' .. index .. '"},"action":{"organization":"Bench Union",'
            .. '"actionType":"walkout","location":"Unknown","startDate":"2026-01-01T08:00:00Z","durationDays":7,'
            .. '"description":"A benchmark report","coordinates":{"latitude":47.61,"longitude":-122.33}}}'
          return wrk.format("POST", "/api/mobile/submit-strike", nil, body)
        end
        """
}
