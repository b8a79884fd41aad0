import DNSTestSupport
import Foundation
import PepperTestSupport
import Picket
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several `pepper picket serve` processes on one PostgreSQL database behind HAProxy, which runs
/// `deploy/haproxy-picket.cfg` byte for byte (its settings come from the environment, as
/// `/etc/default/haproxy` gives them on Debian): docs/deploy.md, "Setup 3".
///
/// PostgreSQL is the server `scripts/test.sh` starts (`PEPPER_TEST_POSTGRES_URL`; each test makes
/// a database of its own on it); HAProxy, the servers and the console are started and stopped
/// by the tests. Without PostgreSQL or HAProxy the tests are skipped, unless
/// `PEPPER_REQUIRE_POSTGRES=1` / `PEPPER_REQUIRE_HAPROXY=1` (scripts/test.sh sets both) make
/// that a failure.
@Suite("pepper picket serve: three servers behind HAProxy on one PostgreSQL", .serialized)
struct PicketClusterTests {
    /// `--refresh-check` of the servers: a request that comes more than this after a change made
    /// elsewhere gets the change.
    static let refreshWindow = 1.0

    @Test(
        "moderation on one console and revocation reach every server within the refresh window; same bytes and hashes everywhere; one rate limit for all"
    )
    func consistencyAcrossServers() async throws {
        // Rate limit 20 a minute for all servers together (HAProxy's stick table); each server keeps
        // its own default of 600 as a backstop, far above what it sees of one key.
        let cluster = try await PicketCluster(instances: 3, rateLimit: 20, serverArguments: ["--refresh-check", "1"])
        defer { cluster.stop() }
        let appKey = try await cluster.createKey()

        // A strike reported through the first server, as the iOS app sends it.
        let report = StrikeSubmission(
            employer: .init(name: "Cluster Foods", website: "https://clusterfoods.example"),
            action: .init(
                organization: "Cluster Workers", actionType: "lockout", location: "Unknown",
                startDate: ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3_600)), durationDays: 7,
                description: "Locked out", coordinates: GPSCoordinates(latitude: 47.61, longitude: -122.33)))
        let receipt = try await cluster.instanceClient(0, appKey).submit(report)

        // Approved on the console (its own process, on the same database), then published by
        // every server within the refresh window.
        let console = try await cluster.startConsole()
        defer { console.stop() }
        let approved = try await console.post("/moderation/decide", ["id": receipt.id, "decision": "approve"])
        #expect(approved.hasPrefix("30"), "a redirect back to the page: \(approved)")
        let published = try await Self.afterWindow(since: Date(), servers: 3) { index in
            try await cluster.instanceClient(index, appKey).activeStrikes().strikes.contains {
                $0.id == receipt.id && $0.actionType == "lockout"
            }
        }
        #expect(published.allSatisfy { $0 != nil }, "every server publishes the approved strike within the refresh window")
        print("PicketClusterTests: published by servers 1, 2, 3, answered \(Self.seconds(published)) after the approval (window 1 s)")

        // Every server answers the same request with the same bytes and hash; a client that got
        // a hash from one server gets its 304 from the others, and through HAProxy.
        let seattle: [URLQueryItem] = [.init(name: "lat", value: "47.6062"), .init(name: "lng", value: "-122.3321")]
        for (path, query) in [("/api/mobile/data", seattle), ("/api/blocklist.json", [])] {
            var answers: [(status: Int, headers: [String: String], body: Data)] = []
            for index in 0..<3 {
                answers.append(try await cluster.instanceClient(index, appKey).raw(method: "GET", path: path, query: query))
            }
            #expect(answers.allSatisfy { $0.status == 200 }, "\(path)")
            let hash = try #require(answers[0].headers["x-content-hash"])
            #expect(answers.allSatisfy { $0.headers["x-content-hash"] == hash && $0.body == answers[0].body }, "\(path): the same bytes")
            #expect(String(decoding: answers[0].body, as: UTF8.self).contains("clusterfoods.example"), "\(path)")
            for index in 0..<3 {
                let conditional = try await cluster.instanceClient(index, appKey).raw(
                    method: "GET", path: path, query: query + [.init(name: "hash", value: hash)])
                #expect(conditional.status == 304, "\(path): 304 from server \(index + 1)")
            }
            for _ in 0..<3 {
                let through = try await cluster.client(appKey).raw(
                    method: "GET", path: path, query: query + [.init(name: "hash", value: hash)])
                #expect(through.status == 304 && through.headers["x-content-hash"] == hash, "\(path) through HAProxy")
            }
        }

        // The rate limit: 20 requests a minute for a key across all three servers, not 20 each.
        let limitedKey = try await cluster.createKey()
        let before = try await cluster.stats()
        var statuses: [Int] = []
        var refusal: (headers: [String: String], body: Data)?
        for _ in 0..<30 {
            let answer = try await cluster.client(limitedKey).raw(method: "GET", path: "/api/mobile/active-strikes")
            statuses.append(answer.status)
            if answer.status == 429 { refusal = (answer.headers, answer.body) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 20, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count == 10, "\(statuses)")
        #expect(refusal?.headers["retry-after"] == "60")
        #expect(refusal?.headers["content-type"]?.hasPrefix("application/json") == true)
        let message = try refusal.map { try JSONDecoder().decode(APIErrorBody.self, from: $0.body).error }
        #expect(message == "rate limit of 20 requests per minute exceeded; retry after 60 s")
        let after = try await cluster.stats()
        let served = (1...3).map { (after["picket\($0)"]?.answered2xx ?? 0) - (before["picket\($0)"]?.answered2xx ?? 0) }
        #expect(served.reduce(0, +) == 20, "\(served)")
        #expect(served.allSatisfy { $0 >= 5 }, "the 20 were spread over the three servers: \(served)")
        #expect(try await cluster.client(appKey).raw(method: "GET", path: "/api/mobile/active-strikes").status == 200, "other keys go on")

        // A key revoked on the console is refused by every server within the refresh window.
        let keyID = try await cluster.keyID(label: "cluster test 1")
        let revoked = try await console.post("/moderation/keys/revoke", ["id": keyID])
        #expect(revoked.hasPrefix("30"), "a redirect back to the page: \(revoked)")
        let refused = try await Self.afterWindow(since: Date(), servers: 3) { index in
            let answer = try await cluster.instanceClient(index, appKey).raw(method: "GET", path: "/api/mobile/active-strikes")
            return answer.status == 401 && String(decoding: answer.body, as: UTF8.self).contains("revoked")
        }
        #expect(refused.allSatisfy { $0 != nil }, "every server refuses the revoked key within the refresh window")
        print("PicketClusterTests: revoked key refused by servers 1, 2, 3, answered \(Self.seconds(refused)) after the revocation")
        for _ in 0..<3 { #expect(try await cluster.client(appKey).raw(method: "GET", path: "/api/mobile/active-strikes").status == 401) }
    }

    @Test("one server SIGKILLed under load: HAProxy takes it out, no accepted submission is lost, it rejoins when restarted")
    func killedUnderLoad() async throws {
        // No rate limit to get in the way of the load (the servers' and HAProxy's).
        let cluster = try await PicketCluster(instances: 3, rateLimit: 1_000_000, serverArguments: ["--rate-limit", "0"])
        defer { cluster.stop() }
        let key = try await cluster.createKey()
        let workers = 6
        let load = try LoadClients(port: cluster.listenPort, key: key, workers: workers, directory: cluster.home)
        defer { load.requestStop() }

        // Under load: kill the second server with SIGKILL (no graceful stop, requests in flight lost).
        #expect(try await Self.poll(within: 60, since: Date()) { load.acceptedCount >= 100 } != nil, "the load runs")
        let killedAt = Date()
        cluster.kill(1)
        let down = try await Self.poll(within: 10, since: killedAt) {
            try await cluster.stats()["picket2"]?.status.hasPrefix("DOWN") == true
        }
        #expect(down != nil, "HAProxy's health check takes the killed server out")
        let acceptedWhileDown = load.acceptedCount
        #expect(
            try await Self.poll(within: 30, since: Date()) { load.acceptedCount >= acceptedWhileDown + 100 } != nil,
            "the other servers take the load")

        // Restarted on its address: HAProxy's health check brings it back, and it serves again.
        // HAProxy's part is timed from the moment the server listens (two good checks a second
        // apart): how long the process takes to start is the machine's load, not HAProxy's. And
        // by HAProxy's own clock: the statistics say how long ago the server's status last
        // changed (`lastchg`), so the moment it came back does not depend on how soon this
        // process reads them (in a full run, reading them through curl once took over a minute
        // while HAProxy had the server up 2 s after it listened).
        let restartedAt = Date()
        try await cluster.restart(1)
        let listeningAt = Date()
        var rejoinedAfter: TimeInterval?
        _ = try await Self.poll(within: 120, since: listeningAt) {
            guard let row = try await cluster.statsRow("picket2"), row["status"] == "UP", let ago = row["lastchg"].flatMap(Double.init)
            else { return false }
            rejoinedAfter = Date().addingTimeInterval(-ago).timeIntervalSince(listeningAt)
            return true
        }
        // `lastchg` counts whole seconds: a second of slack.
        if rejoinedAfter.map({ $0 > 15 + 1 }) ?? true {
            let seen = await cluster.describe("picket2", index: 1)
            let listening = String(format: "%.2f", listeningAt.timeIntervalSince(restartedAt))
            let after = rejoinedAfter.map { String(format: "%.1f s", $0) } ?? "not within 120 s"
            Issue.record(
                "HAProxy's health check brings the restarted server back within 15 s of its listening (\(listening) s after its start): \(after); \(seen)"
            )
        }
        let answeredAtRejoin = try await cluster.stats()["picket2"]?.answered2xx ?? 0
        let serving = try await Self.poll(within: 20, since: Date()) {
            (try await cluster.stats()["picket2"]?.answered2xx ?? 0) >= answeredAtRejoin + 20
        }
        #expect(serving != nil, "the restarted server answers requests again")
        await load.stop()

        // Every accepted (201) submission is in the database; a row without a 201 is one the
        // killed server stored and could not answer for, which only a failed request can be.
        let rows = Set(
            try await cluster.psql("SELECT id FROM picket_action WHERE origin = 'submission'").split(separator: "\n").map(String.init))
        let answers = load.answers
        let accepted = answers.compactMap(\.id)
        let lost = Set(accepted).subtracting(rows)
        #expect(lost.isEmpty, "accepted submissions missing from the database: \(lost.sorted())")
        #expect(Set(accepted).count == accepted.count, "no identifier answered twice")
        let failures = answers.filter(\.isFailure)
        #expect(rows.subtracting(accepted).count <= failures.count)
        // Only the killed server's requests fail: the ones in flight when it died and, until
        // HAProxy's health check took it out, ones sent on a connection HAProxy had kept open to
        // it; only submissions (a read is retried on another server, a submission never is), with
        // 502-504 or a connection closed without an answer.
        let outAt = killedAt.addingTimeInterval(down ?? 10)
        #expect(failures.allSatisfy { $0.method == "POST" }, "\(failures)")
        #expect(
            failures.allSatisfy { $0.time >= killedAt && $0.time <= outAt.addingTimeInterval(1) },
            "failures only between the kill and HAProxy taking the server out: \(failures.map { $0.time.timeIntervalSince(killedAt) })")
        let unexpected = answers.filter { !$0.isFailure && $0.id == nil && !($0.method == "GET" && $0.status == "200") }
        #expect(unexpected.isEmpty, "\(unexpected)")
        print(
            "PicketClusterTests: \(accepted.count) submissions accepted, \(rows.count) rows, "
                + "\(answers.filter { $0.method == "GET" && $0.status == "200" }.count) reads; failed: \(failures); server 2 out after "
                + String(format: "%.2f s", down ?? .infinity) + "; restarted, listening after "
                + String(format: "%.2f s", listeningAt.timeIntervalSince(restartedAt)) + ", back in HAProxy "
                + String(format: "%.0f s", rejoinedAfter ?? .infinity) + " later (HAProxy's clock, whole seconds)")
    }

    // MARK: Helpers

    /// Runs `condition` every 50 ms until it holds; the seconds since `start` when it did, or
    /// `nil` when it did not within `seconds` (a check that ends later does not count).
    static func poll(within seconds: TimeInterval, since start: Date, _ condition: () async throws -> Bool) async throws -> TimeInterval? {
        while Date().timeIntervalSince(start) < seconds {
            if try await condition() {
                let elapsed = Date().timeIntervalSince(start)
                return elapsed <= seconds ? elapsed : nil
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }

    /// What `--refresh-check` promises about a change made elsewhere at `change` (through
    /// another process: the console, the CLI): every request a server gets more than the refresh
    /// window later sees it. So: wait out the window, then ask each server once. Per server, the
    /// seconds from the change to the answer when `check` held, else `nil`. (How long an answer
    /// then takes is the machine's load, seconds on a busy CI run, not the window.)
    static func afterWindow(
        since change: Date, servers: Int, _ check: (Int) async throws -> Bool
    ) async throws -> [TimeInterval?] {
        let wait = change.addingTimeInterval(refreshWindow + 0.05).timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
        var result: [TimeInterval?] = []
        for index in 0..<servers {
            result.append(try await check(index) ? Date().timeIntervalSince(change) : nil)
        }
        return result
    }

    static func seconds(_ values: [TimeInterval?]) -> String {
        values.map { $0.map { String(format: "%.2f s", $0) } ?? "never" }.joined(separator: ", ")
    }

}

/// The processes of one cluster test: a new database on the test PostgreSQL server, the
/// `pepper picket serve` processes, and HAProxy running `deploy/haproxy-picket.cfg`.
final class PicketCluster: @unchecked Sendable {
    let home: URL
    let database: String
    let ports: [Int]
    private(set) var listenPort = 0
    private(set) var statsPort = 0
    private let serverArguments: [String]
    private var servers: [ServerProcess?]
    private var haproxy = Process()
    private let haproxyLog: URL
    private var keys = 0

    static let configuration = TestPaths.repository.appendingPathComponent("deploy/haproxy-picket.cfg")

    /// Starts `instances` servers with `serverArguments` on a new database, then HAProxy with
    /// `rateLimit` requests per minute per key, and waits until HAProxy sees every server up.
    init(instances: Int, rateLimit: Int, serverArguments: [String]) async throws {
        let (postgres, haproxyBinary) = try Self.requirements()
        home = TestPaths.temporaryDirectory("picket-cluster")
        database = try await Self.createDatabase(on: postgres)
        self.serverArguments = serverArguments
        var started: [ServerProcess] = []
        for _ in 0..<instances {
            await started.append(
                try ServerProcess(
                    ["picket", "serve", "--listen", "127.0.0.1:0", "--database", database] + serverArguments, home: home))
        }
        servers = started
        ports = started.map(\.port)
        haproxyLog = home.appendingPathComponent("haproxy.log")
        // Ready when HAProxy reports every server up (a minute at most). A HAProxy that has not
        // opened its statistics port after 20 s is started again on new ports, three tries: the
        // whole suite runs beside this on two cores, and a port found free can be taken before
        // HAProxy binds it. What each try saw goes into the error.
        var attempts: [String] = []
        for _ in 1...3 {
            try startHAProxy(binary: haproxyBinary, rateLimit: rateLimit)
            guard let failure = try await waitUntilUp(instances: instances, answering: 20, up: 60) else { return }
            attempts.append(failure)
            stopHAProxy()
            if !failure.hasPrefix("no statistics") { break }
        }
        stop()
        throw CocoaError(
            .fileReadUnknown,
            userInfo: [NSLocalizedDescriptionKey: "HAProxy did not see the servers up: " + attempts.joined(separator: " | ")])
    }

    /// Starts HAProxy on two new ports with the servers' addresses, as `/etc/default/haproxy` would give them.
    private func startHAProxy(binary: URL, rateLimit: Int) throws {
        listenPort = Self.freePort()
        repeat { statsPort = Self.freePort() } while statsPort == listenPort
        _ = FileManager.default.createFile(atPath: haproxyLog.path, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment["PICKET_LISTEN"] = "127.0.0.1:\(listenPort)"
        environment["PICKET_HAPROXY_STATS"] = "127.0.0.1:\(statsPort)"
        environment["PICKET_RATE_LIMIT"] = String(rateLimit)
        for (index, port) in ports.enumerated() { environment["PICKET_SERVER_\(index + 1)"] = "127.0.0.1:\(port)" }
        // Root (CI) runs HAProxy as the config says, dropping to the haproxy user; anyone else
        // cannot, and runs it as themselves.
        if getuid() != 0 { environment["PICKET_HAPROXY_AS_INVOKER"] = "1" }
        // Through a shell that opens the log itself and execs HAProxy (same process): the test
        // process hands HAProxy no descriptor of its own.
        haproxy = Process()
        haproxy.executableURL = URL(fileURLWithPath: "/bin/sh")
        haproxy.arguments = [
            "-c", #"exec "$0" -db -f "$1" >"$2" 2>&1 </dev/null"#, binary.path, Self.configuration.path, haproxyLog.path,
        ]
        haproxy.environment = environment
        try haproxy.run()
    }

    /// Waits until HAProxy's statistics say every server is up: `nil` then, else what was seen,
    /// starting with "no statistics" when its statistics port did not answer within `answering` s.
    private func waitUntilUp(instances: Int, answering: TimeInterval, up: TimeInterval) async throws -> String? {
        var seen = "nothing"
        func check(_ ready: ([String: (status: String, answered2xx: Int)]) -> Bool) async -> Bool {
            guard haproxy.isRunning else { return false }
            do {
                let stats = try await stats()
                seen = "\(stats)"
                return ready(stats)
            } catch {
                seen = "\(error)"
                return false
            }
        }
        let start = Date()
        let answered = try await PicketClusterTests.poll(within: answering, since: start) { await check { _ in true } } != nil
        let allUp =
            answered
            ? try await PicketClusterTests.poll(within: up, since: start) {
                await check { stats in (1...instances).allSatisfy { stats["picket\($0)"]?.status == "UP" } }
            } : nil
        guard allUp == nil else { return nil }
        let log = (try? String(contentsOf: haproxyLog, encoding: .utf8)) ?? ""
        let pid = haproxy.processIdentifier
        // The process's state (R, S, T for stopped…) and what listens on its ports, to tell a
        // HAProxy that never bound from one that was stopped or lost its port.
        let state =
            ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "")
            .split(separator: " ").dropFirst(2).first.map(String.init) ?? "gone"
        let listening = ((try? await Subprocess.run(URL(fileURLWithPath: "/usr/bin/ss"), ["-Hltnp"]))?.stdout ?? "")
            .split(separator: "\n").filter { $0.contains(":\(statsPort) ") || $0.contains(":\(listenPort) ") }
        return (answered ? "" : "no statistics; ")
            + "HAProxy pid \(pid) (running: \(haproxy.isRunning), state \(state)), ports \(listenPort) and \(statsPort), listening there: \(listening); last statistics: \(seen); log: \(log)"
    }

    private func stopHAProxy() {
        if haproxy.isRunning {
            haproxy.terminate()
            haproxy.waitUntilExit()
        }
    }

    /// PostgreSQL's URL and HAProxy's binary; the test is skipped (or fails when required) without them.
    static func requirements() throws -> (postgres: String, haproxy: URL) {
        let environment = ProcessInfo.processInfo.environment
        guard let postgres = environment["PEPPER_TEST_POSTGRES_URL"], !postgres.isEmpty else {
            if environment["PEPPER_REQUIRE_POSTGRES"] == "1" {
                Issue.record("PEPPER_REQUIRE_POSTGRES=1 but PEPPER_TEST_POSTGRES_URL is not set")
            }
            try Test.cancel("needs PEPPER_TEST_POSTGRES_URL (scripts/test.sh starts a throwaway PostgreSQL)")
        }
        guard
            let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first(
                where: FileManager.default.isExecutableFile)
        else {
            if environment["PEPPER_REQUIRE_HAPROXY"] == "1" { Issue.record("PEPPER_REQUIRE_HAPROXY=1 but haproxy is not installed") }
            try Test.cancel("needs HAProxy (apt-get install haproxy; scripts/test.sh installs it)")
        }
        return (postgres, URL(fileURLWithPath: haproxy))
    }

    /// A client of HAProxy's address.
    func client(_ key: String) -> PicketClient {
        PicketClient(server: URL(string: "http://127.0.0.1:\(listenPort)")!, apiKey: key, timeout: 20)
    }

    /// A client of one server's own address.
    func instanceClient(_ index: Int, _ key: String) -> PicketClient {
        PicketClient(server: URL(string: "http://127.0.0.1:\(ports[index])")!, apiKey: key, timeout: 20)
    }

    /// A new key for the mobile apps, labelled `cluster test N`, once every server accepts it
    /// (they read new keys within their refresh window, like revocations).
    func createKey() async throws -> String {
        keys += 1
        let created = try await pepper(["picket", "keys", "create", "--preset", "mobile-apps", "--label", "cluster test \(keys)"])
        guard created.status == 0, let key = created.stdout.split(separator: "\n").last.map(String.init) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "keys create failed: \(created.stderr)"])
        }
        let accepted = try await PicketClusterTests.afterWindow(since: Date(), servers: ports.count) { index in
            try await instanceClient(index, key).raw(method: "GET", path: "/api/mobile/active-strikes").status == 200
        }
        #expect(accepted.allSatisfy { $0 != nil }, "every server accepts a new key within the refresh window")
        return key
    }

    /// The identifier of the key labelled `label`.
    func keyID(label: String) async throws -> String {
        let listed = try await pepper(["picket", "keys", "list", "--json"])
        let keys = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        guard let id = keys.first(where: { $0["label"] as? String == label })?["id"] as? String else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no key labelled \(label): \(listed.stdout)"])
        }
        return id
    }

    /// `pepper` with `--database` of this cluster.
    func pepper(_ arguments: [String]) async throws -> PepperProcess.Outcome {
        try await PepperProcess.run(arguments + ["--database", database], home: home)
    }

    /// `pepper console` on the cluster's database (a process of its own, as on another machine).
    func startConsole() async throws -> ConsoleSession {
        try await ConsoleSession(database: database, home: home)
    }

    /// Kills server `index` with SIGKILL: no graceful stop.
    func kill(_ index: Int) {
        guard let server = servers[index] else { return }
        Foundation.kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        servers[index] = nil
    }

    /// Starts server `index` again on its address.
    func restart(_ index: Int) async throws {
        servers[index] = try await ServerProcess(
            ["picket", "serve", "--listen", "127.0.0.1:\(ports[index])", "--database", database] + serverArguments, home: home)
    }

    /// HAProxy's view of the servers (`/stats;csv`): each server's status (`UP`, `DOWN`,
    /// `DOWN 1/2` …) and how many 2xx answers it gave.
    func stats() async throws -> [String: (status: String, answered2xx: Int)] {
        try await statsRows().mapValues { ($0["status"] ?? "", Int($0["hrsp_2xx"] ?? "") ?? 0) }
    }

    /// HAProxy's statistics row of server `name` (column → value), if it has one.
    func statsRow(_ name: String) async throws -> [String: String]? {
        try await statsRows()[name]
    }

    /// What HAProxy says of server `name` and, for a server this cluster runs, of its process:
    /// for a failure message (the last health check's result and time, whether the process
    /// still runs, what it printed on stderr).
    func describe(_ name: String, index: Int) async -> String {
        var text: String
        if let row = try? await statsRows()[name] {
            let fields = ["status", "check_status", "check_code", "check_duration", "last_chk", "chkfail", "lastchg"]
            text = fields.map { "\($0)=\(row[$0] ?? "?")" }.joined(separator: " ")
        } else {
            text = "no statistics"
        }
        if let server = servers[index] {
            let stderr = server.errors.suffix(600)
            text += "; process \(server.process.isRunning ? "running" : "exited \(server.process.terminationStatus)"), stderr: \(stderr)"
        }
        return text
    }

    /// Every server row of HAProxy's `/stats;csv`, by server name, each a column → value map.
    private func statsRows() async throws -> [String: [String: String]] {
        // With curl, a process of its own: in a full run the test process's URLSession was once
        // refused this port for a minute while HAProxy listened on it (ss showed it), and curl
        // says which error it got.
        let url = "http://127.0.0.1:\(statsPort)/stats;csv"
        let fetched = try await Subprocess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--fail", "--max-time", "10", url])
        guard fetched.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "curl \(url): \(fetched.stderr)"])
        }
        let lines = fetched.stdout.split(separator: "\n")
        guard let header = lines.first?.dropFirst(2).split(separator: ",", omittingEmptySubsequences: false).map(String.init),
            let name = header.firstIndex(of: "svname")
        else { throw CocoaError(.fileReadCorruptFile) }
        var result: [String: [String: String]] = [:]
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= header.count, fields[0] == "picket", fields[name].hasPrefix("picket") else { continue }
            result[fields[name]] = Dictionary(zip(header, fields)) { first, _ in first }
        }
        return result
    }

    /// Runs SQL on the cluster's database; the rows, one a line.
    func psql(_ sql: String) async throws -> String {
        let run = try await Subprocess.run(Self.psqlBinary, [database, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql])
        guard run.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: run.stderr]) }
        return run.stdout
    }

    /// Stops HAProxy and the servers, and removes the home.
    func stop() {
        stopHAProxy()
        for server in servers { _ = server?.stop(signal: SIGTERM) }
        servers = servers.map { _ in nil }
        try? FileManager.default.removeItem(at: home)
    }

    static var psqlBinary: URL {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedDescending }) {
            let path = "/usr/lib/postgresql/\(version)/bin/psql"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        return URL(fileURLWithPath: "/usr/bin/psql")
    }

    /// A new, empty database on the server at `url`; its URL.
    static func createDatabase(on url: String) async throws -> String {
        let name = "pepper_cluster_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let run = try await Subprocess.run(psqlBinary, [url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", "CREATE DATABASE \(name)"])
        guard run.status == 0, var components = URLComponents(string: url) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot create a database: \(run.stderr)"])
        }
        components.path = "/" + name
        return components.string!
    }

    /// A free TCP port on loopback (HAProxy needs a port number in its configuration): chosen
    /// as every test that must name a port chooses it (`DNSTools.freePort`).
    static func freePort() -> Int {
        DNSTools.freePort()
    }
}

/// `pepper console --picket-database` signed in as a person would be: its one-time link opened
/// by curl with a cookie jar, forms posted with the page's CSRF token.
final class ConsoleSession: @unchecked Sendable {
    private let server: ServerProcess
    private let jar: URL
    private let base: String
    private var csrf = ""

    init(database: String, home: URL) async throws {
        server = try await ServerProcess(
            ["console", "--listen", "127.0.0.1:0", "--picket-database", database], home: home, ready: "Pepper console: open http://")
        base = "http://127.0.0.1:\(server.port)"
        jar = home.appendingPathComponent("console-cookies-\(UUID().uuidString.prefix(8)).txt")
        guard let link = server.output.firstMatch(after: "Pepper console: open ") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no link: \(server.output)"])
        }
        _ = try await curl(["-o", "/dev/null", link])
        let page = try await curl(["\(base)/moderation"])
        guard let range = page.range(of: #"name="csrf" content=""#) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "not signed in: \(page.prefix(300))"])
        }
        csrf = String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Posts a form; `status redirect-URL` as curl writes them.
    func post(_ path: String, _ fields: [String: String]) async throws -> String {
        let form = (fields.merging(["csrf": csrf]) { $1 }).sorted { $0.key < $1.key }.flatMap {
            ["--data-urlencode", "\($0.key)=\($0.value)"]
        }
        return try await curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}"] + form + ["\(base)\(path)"])
    }

    func stop() {
        _ = server.stop(signal: SIGTERM)
    }

    private func curl(_ arguments: [String]) async throws -> String {
        try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "--max-time", "30", "-c", jar.path, "-b", jar.path] + arguments
        )
        .stdout
    }
}

/// The load: `workers` clients in a Python process, each reporting a strike as the apps send it
/// and reading the data through HAProxy, again and again until stopped; every answer is a line
/// of a results file: the time, then `POST 201 act_…`, `GET 200`, `POST 502` or `POST ERR
/// RemoteDisconnected`.
/// Out of the test process on purpose: connections a killed server leaves half-answered stay in
/// the clients' process, and the test reads only the results.
final class LoadClients: @unchecked Sendable {
    private let process = Process()
    private let results: URL
    private let stopFile: URL

    init(port: Int, key: String, workers: Int, directory: URL) throws {
        results = directory.appendingPathComponent("load-results.txt")
        stopFile = directory.appendingPathComponent("load-stop")
        _ = FileManager.default.createFile(atPath: results.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", Self.script, String(port), key, String(workers), results.path, stopFile.path,
            ActionType.allCases.map(\.rawValue).joined(separator: ","),
        ]
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Stops the clients and waits for them (each finishes the request it is in).
    func stop() async {
        requestStop()
        await process.exited()
    }

    /// Asks the clients to stop, without waiting (for a `defer`).
    func requestStop() {
        _ = FileManager.default.createFile(atPath: stopFile.path, contents: nil)
    }

    /// One answer (or failure) as a client saw it.
    struct Answer: Sendable, CustomStringConvertible {
        /// When the client had it.
        var time: Date
        /// `POST` (a strike report) or `GET` (the data).
        var method: String
        /// The status, or `ERR` and the error's kind when there was no answer.
        var status: String
        /// A 201's identifier.
        var id: String?

        var description: String { "\(method) \(status)" }
        /// 502-504, or no answer: what a request a dying server had gets.
        var isFailure: Bool { ["502", "503", "504"].contains(status) || status.hasPrefix("ERR") }
    }

    /// Every answer so far.
    var answers: [Answer] {
        ((try? String(contentsOf: results, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard fields.count >= 3, let seconds = Double(fields[0]) else { return nil }
            let isAccepted = fields[1] == "POST" && fields[2] == "201"
            return Answer(
                time: Date(timeIntervalSince1970: seconds), method: fields[1],
                status: fields[2] == "ERR" ? "ERR " + (fields.count > 3 ? fields[3] : "") : fields[2],
                id: isAccepted && fields.count > 3 ? fields[3] : nil)
        }
    }

    /// How many submissions were answered 201 so far.
    var acceptedCount: Int { answers.filter { $0.id != nil }.count }

    static let script = """
        import http.client, json, os, sys, threading, time
        port, key, workers, results, stop = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
        types = sys.argv[6].split(",")
        lock = threading.Lock()
        out = open(results, "a", buffering=1)
        def record(line):
            with lock:
                out.write(line + "\\n")
        def worker(number):
            connection = None
            round = 0
            while not os.path.exists(stop):
                round += 1
                report = json.dumps({"employer": {"name": "Load Co %d-%d" % (number, round)},
                                     "action": {"organization": "Load Union", "actionType": types[round % len(types)],
                                                "location": "Unknown", "startDate": "2026-01-01", "durationDays": 7,
                                                "description": "Load %d-%d" % (number, round)}})
                for method, path, body in (("POST", "/api/mobile/submit-strike", report),
                                           ("GET", "/api/mobile/data?lat=%.2f&lng=-122.33" % (47 + (round % 100) / 100), None)):
                    try:
                        if connection is None:
                            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
                        headers = {"X-API-Key": key}
                        if body is not None:
                            headers["Content-Type"] = "application/json"
                        connection.request(method, path, body, headers)
                        response = connection.getresponse()
                        data = response.read()
                        if method == "POST" and response.status == 201:
                            record("%f POST 201 %s" % (time.time(), json.loads(data)["id"]))
                        else:
                            record("%f %s %d" % (time.time(), method, response.status))
                        if (response.getheader("Connection") or "").lower() == "close":
                            connection.close()
                            connection = None
                    except Exception as error:
                        record("%f %s ERR %s" % (time.time(), method, type(error).__name__))
                        if connection is not None:
                            connection.close()
                        connection = None
        threads = [threading.Thread(target=worker, args=(number,)) for number in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        """
}
