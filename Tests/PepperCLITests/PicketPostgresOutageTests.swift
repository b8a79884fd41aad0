import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// PostgreSQL restarted, then stopped for 30 s, under a steady load of reads and submissions to
/// `pepper picket serve`: reads keep being answered from the last published content, a
/// submission during the outage gets 503 with Retry-After (never a 2xx for something not
/// stored), the server recovers by itself, and every 2xx submission is a row afterwards. The
/// test runs a PostgreSQL cluster of its own (scripts/postgres-server.sh) to stop and start.
@Suite("pepper picket serve: PostgreSQL down, then back", .serialized)
struct PicketPostgresOutageTests {
    /// A throwaway cluster this test may stop and start.
    final class Cluster: @unchecked Sendable {
        let url: String
        let directory: String

        init() async throws {
            let script = TestPaths.repository.appendingPathComponent("scripts/postgres-server.sh").path
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-cluster-\(UUID())")
            defer { try? FileManager.default.removeItem(at: output) }
            // posix_spawn and waitpid (ChildProcess): Foundation's Process can miss the exit of a
            // shell whose grandchild (the server) lives on.
            let log = try await ChildProcess.output(
                "/bin/bash",
                [
                    "-c",
                    "source \(script) >/dev/null && pepper_postgres_start && echo \"$PEPPER_TEST_POSTGRES_URL $PEPPER_POSTGRES_DIR\" > \(output.path)",
                ])
            let parts = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: " ").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard parts.count == 2 else { throw ClusterError(text: log) }
            url = parts[0]
            directory = parts[1]
        }

        /// `pg_ctl stop|start|restart` on the cluster; returns whether it worked.
        @discardableResult
        func control(_ action: String) -> Bool {
            guard let child = try? ChildProcess(directory + "/ctl", [action], output: "/dev/null") else { return false }
            return child.wait() == 0
        }

        deinit {
            control("stop")
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    struct ClusterError: Error, CustomStringConvertible {
        var text: String
        var description: String { "cannot start PostgreSQL: \(text)" }
    }

    /// One request's outcome during the run.
    struct Sample: Sendable {
        var at: TimeInterval
        var submission: Bool
        var status: Int
        var retryAfter: String?
        var id: String?
    }

    final class Samples: @unchecked Sendable {
        /// A switch the load loop reads.
        final class Flag: @unchecked Sendable {
            private let lock = NSLock()
            private var on = true
            var value: Bool {
                get { lock.withLock { on } }
                set { lock.withLock { on = newValue } }
            }
        }

        private let lock = NSLock()
        private var values: [Sample] = []
        func append(_ sample: Sample) { lock.withLock { values.append(sample) } }
        var all: [Sample] { lock.withLock { values } }
    }

    static func request(_ url: URL, key: String, body: Data? = nil) async -> (status: Int, retryAfter: String?, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.setValue(key, forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as? HTTPURLResponse
            return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Retry-After"), data)
        } catch {
            return (0, nil, Data())
        }
    }

    static var postgresInstalled: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/postgresql") || FileManager.default.fileExists(atPath: "/usr/bin/pg_ctl")
    }

    @Test(
        .enabled(
            if: PicketPostgresOutageTests.postgresInstalled || ProcessInfo.processInfo.environment["PEPPER_REQUIRE_POSTGRES"] == "1",
            "PostgreSQL is not installed (scripts/test.sh installs it)"),
        .timeLimit(.minutes(4)))
    func readsGoOnSubmissionsGet503AndEveryAcceptedOneIsStored() async throws {
        try #require(Self.postgresInstalled, "PostgreSQL is needed")
        let cluster = try await Cluster()
        let home = TestPaths.temporaryDirectory("picket-outage")
        defer { try? FileManager.default.removeItem(at: home) }
        let seed = home.appendingPathComponent("seed.json")
        try Data(PicketCommandTests.seed.utf8).write(to: seed)
        #expect(try await PepperProcess.run(["picket", "import", seed.path, "--database", cluster.url], home: home).status == 0)
        let created = try await PepperProcess.run(
            ["picket", "keys", "create", "--scope", "read:mobile", "--scope", "write:submit-strike", "--database", cluster.url], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        let key = created.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let server = try await ServerProcess(
            ["picket", "serve", "--listen", "127.0.0.1:0", "--database", cluster.url, "--rate-limit", "0"], home: home)
        defer { server.kill() }
        let base = "http://127.0.0.1:\(server.port)"
        let read = URL(string: base + "/api/mobile/data?lat=45.5&lng=-122.67")!
        let submit = URL(string: base + "/api/mobile/submit-strike")!

        // The load, from the start to the end: a reader asking every 50 ms, and two reporters
        // each sending a strike report every 100 ms (each waits for its answer).
        let samples = Samples()
        let started = Date()
        let running = Samples.Flag()
        let reader = Task {
            while running.value {
                let r = await Self.request(read, key: key)
                samples.append(Sample(at: Date().timeIntervalSince(started), submission: false, status: r.status, retryAfter: r.retryAfter))
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        let reporters = (0..<2).map { reporter in
            Task {
                var number = 0
                while running.value {
                    number += 1
                    let body = Data(
                        """
                        {"employer": {"name": "Outage Co \(reporter)-\(number)"}, "action": {"organization": "Load Workers",
                         "actionType": "strike", "location": "Portland, OR", "startDate": "2026-11-20", "durationDays": 3,
                         "description": "load \(reporter)-\(number)"}}
                        """.utf8)
                    let s = await Self.request(submit, key: key, body: body)
                    let id = (try? JSONSerialization.jsonObject(with: s.body) as? [String: Any])?["id"] as? String
                    samples.append(
                        Sample(at: Date().timeIntervalSince(started), submission: true, status: s.status, retryAfter: s.retryAfter, id: id))
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }

        func elapsed() -> TimeInterval { Date().timeIntervalSince(started) }
        func wait(until time: TimeInterval) async { while elapsed() < time { try? await Task.sleep(for: .milliseconds(20)) } }

        await wait(until: 3)
        // A restart first (a few hundred milliseconds down), then 30 s stopped.
        let restartAt = elapsed()
        #expect(try await onOwnThread { cluster.control("restart") })
        await wait(until: restartAt + 4)
        let downAt = elapsed()
        #expect(try await onOwnThread { cluster.control("stop") })
        let stoppedAt = elapsed()
        await wait(until: stoppedAt + 30)
        #expect(try await onOwnThread { cluster.control("start") })
        let backAt = elapsed()
        // Recovery: the first accepted submission after PostgreSQL is back, without restarting
        // the server; then a few more seconds of load.
        var recoveredAt: TimeInterval?
        while elapsed() < backAt + 30 {
            recoveredAt = samples.all.first { $0.submission && $0.at > backAt && (200..<300).contains($0.status) }?.at
            if recoveredAt != nil { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await wait(until: elapsed() + 3)
        running.value = false
        await reader.value
        for reporter in reporters { await reporter.value }
        server.kill()

        let all = samples.all
        let reads = all.filter { !$0.submission }
        let submissions = all.filter(\.submission)
        let outage = submissions.filter { $0.at > stoppedAt + 1 && $0.at < backAt }
        // Reads: every one answered from the published content, outage or not.
        let failedReads = reads.filter { !(200..<300).contains($0.status) && $0.status != 304 }
        #expect(failedReads.isEmpty, "reads not answered: \(failedReads.prefix(5))")
        // Submissions: 2xx, or 503 with Retry-After; nothing else, ever.
        let odd = submissions.filter { !(200..<300).contains($0.status) && !($0.status == 503 && $0.retryAfter != nil) }
        #expect(odd.isEmpty, "submissions neither stored nor 503 with Retry-After: \(odd.prefix(5))")
        #expect(!outage.isEmpty && outage.allSatisfy { $0.status == 503 }, "during the outage every submission gets 503")
        #expect(recoveredAt != nil, "the server did not recover by itself")
        // Nothing lost: every 2xx submission is a row.
        let accepted = Set(submissions.filter { (200..<300).contains($0.status) }.compactMap(\.id))
        #expect(accepted.count == submissions.filter { (200..<300).contains($0.status) }.count, "every 2xx carried an id")
        let listed = try await PepperProcess.run(["picket", "moderate", "list", "--json", "--database", cluster.url], home: home)
        let pending = Set(
            ((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]) ?? []).compactMap {
                $0["id"] as? String
            })
        let missing = accepted.subtracting(pending)
        #expect(missing.isEmpty, "accepted but not stored: \(missing.sorted().prefix(5))")
        print(
            """
            picket outage: \(reads.count) reads (\(failedReads.count) failed), \(submissions.count) submissions \
            (\(accepted.count) stored, \(submissions.filter { $0.status == 503 }.count) 503, \(missing.count) lost); \
            restart at \(String(format: "%.1f", restartAt)) s, down \(String(format: "%.1f", downAt))–\(String(format: "%.1f", backAt)) s; \
            first stored submission \(String(format: "%.2f", (recoveredAt ?? .nan) - backAt)) s after PostgreSQL was back
            """)
    }
}
