import Foundation
import PepperTestSupport
import Picket
import Storage
import Testing
import UTCTime

/// `pepper picket …` as a user runs it: the built binary, a real server process, curl.
@Suite("pepper picket", .serialized)
struct PicketCommandTests {
    @Test("serve --demo: the README's curl examples work as written, the metrics count them; SIGINT stops it cleanly")
    func demoAndReadmeExamples() async throws {
        let home = TestPaths.temporaryDirectory("picket-demo")
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try await ServerProcess(
            ["picket", "serve", "--demo", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0"], home: home)
        defer { server.kill() }
        // First the one key the apps need (to read and to report), labelled for them; then a key per side.
        let keyLines = server.output.split(separator: "\n").filter { $0.contains(" key (") }
        #expect(keyLines.first?.hasPrefix("App key (for the mobile apps: read:mobile write:submit-strike write:gps-snapshot): ") == true)
        let appKey = try #require(
            server.output.firstMatch(after: "App key (for the mobile apps: read:mobile write:submit-strike write:gps-snapshot): "))
        let readKey = try #require(server.output.firstMatch(after: "Read key (read:mobile): "))
        let writeKey = try #require(server.output.firstMatch(after: "Write key (write:gps-snapshot write:submit-strike): "))
        #expect(APIKeyFormat.isWellFormed(appKey) && APIKeyFormat.isWellFormed(readKey) && APIKeyFormat.isWellFormed(writeKey))
        #expect(server.output.contains("Demo data: 4 employers, 6 actions (1 pending), 4 locations."))

        // The README's block of curl commands, run as a script with the app key: only the port differs.
        let readme = try String(contentsOf: TestPaths.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(Self.codeBlock(in: readme, containing: "export KEY=opl_"))
        let script = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("export KEY=") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(server.port)")
        #expect(script.components(separatedBy: "curl ").count - 1 == 9, "the README shows nine curl commands")
        #expect(!script.contains("WRITE_KEY"), "one key reads and reports, as in the apps")
        let run = try await Subprocess.run(
            URL(fileURLWithPath: "/bin/bash"), ["-euo", "pipefail", "-c", script], environment: ["KEY": appKey])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 8, "\(run.stdout)")
        let data = try JSONDecoder().decode(MobileData.self, from: Data(lines[0].utf8))
        #expect(data.geofences.all.first?.id == "act_demo_brightmart")
        #expect(data.blocklist.urls.map(\.url).contains("brightmart.example"))
        #expect(lines[1] == "304")
        #expect(try JSONDecoder().decode(ActiveStrikes.self, from: Data(lines[2].utf8)).count == 4)
        let feed = try #require(try JSONSerialization.jsonObject(with: Data(lines[3].utf8)) as? [String: Any])
        let brightMart = try #require(feed["BrightMart"] as? [String: Any], "keyed by employer name")
        #expect(brightMart["matchingUrlRegexes"] as? [String] == ["brightmart-deals.example", "brightmart.example"])
        #expect((feed["_meta"] as? [String: Any])?["totalEmployers"] as? Int == feed.count - 1)
        let geocoded = try JSONDecoder().decode(GeocodeResponse.self, from: Data(lines[4].utf8))
        #expect(geocoded.result?.displayName == "Seattle, Washington, United States")
        let reverse = try JSONDecoder().decode(ReverseGeocodeResponse.self, from: Data(lines[5].utf8))
        #expect(reverse.result?.city == "Chicago")
        #expect(try JSONDecoder().decode(SubmissionReceipt.self, from: Data(lines[6].utf8)).message == "Snapshot submitted for moderation")
        let strike = try JSONDecoder().decode(SubmissionReceipt.self, from: Data(lines[7].utf8))
        #expect(strike.message == "Submitted for moderation")

        // The metrics listener counted exactly those requests.
        let metricsPort = try #require(
            server.output.firstMatch(after: "Listening on http://127.0.0.1:\(server.port) ")?.components(
                separatedBy: "Metrics on http://127.0.0.1:"
            )
            .last?.prefix { $0.isNumber })
        let scrape = try await Subprocess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "http://127.0.0.1:\(metricsPort)/metrics"])
        let counts: [String: Int] = [
            #"route="/api/mobile/data",method="GET",status="200""#: 2, #"route="/api/mobile/data",method="GET",status="304""#: 1,
            #"route="/api/mobile/active-strikes",method="GET",status="200""#: 1,
            #"route="/api/blocklist.json",method="GET",status="200""#: 1, #"route="/api/mobile/geocode",method="POST",status="200""#: 1,
            #"route="/api/mobile/reverse-geocode",method="POST",status="200""#: 1,
            #"route="/api/mobile/gps-snapshot",method="POST",status="201""#: 1,
            #"route="/api/mobile/submit-strike",method="POST",status="201""#: 1,
        ]
        let requestLines = scrape.stdout.split(separator: "\n").filter { $0.hasPrefix("pepper_picket_requests_total{") }
        #expect(requestLines.count == counts.count, "\(scrape.stdout)")
        for (labels, count) in counts {
            #expect(requestLines.contains("pepper_picket_requests_total{\(labels)} \(count)"), "\(labels): \(scrape.stdout)")
        }

        // Moderation sees both reports and the demo's pending one; approving changes the data.
        let pending = try await PepperProcess.run(["picket", "moderate", "list", "--json"], home: home)
        #expect(pending.status == 0, "\(pending.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(pending.stdout.utf8)) as? [[String: Any]])
        #expect(Set(items.compactMap { $0["kind"] as? String }) == ["strike", "snapshot"])
        #expect(items.count == 3)
        #expect(items.allSatisfy { $0["id"] is String && $0["submittedAt"] is String })
        let client = PicketClient(server: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: readKey)
        let downtown = GeoCoordinate(latitude: 47.61, longitude: -122.33)
        let first = try await Self.wait { try await client.mobileData(at: downtown) }
        guard case .updated(_, let hash, _) = first else {
            Issue.record("the first data request must be answered with the data, not \(first)")
            return
        }
        let approved = try await PepperProcess.run(["picket", "moderate", "approve", strike.id], home: home)
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(approved.stdout.contains("Approved strike \(strike.id)"))
        let refreshed = try await Self.wait { try await client.mobileData(at: downtown, lastHash: hash) }
        guard case .updated(let after, _, _) = refreshed else {
            Issue.record("an approved strike must change the data; the server answered \(refreshed)")
            return
        }
        #expect(after.blocklist.urls.map(\.url).contains("cascadefoods.example"), "the approved strike's website is blocklisted")

        let stopped = server.stop(signal: SIGINT)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("Stopped."))
    }

    @Test("keys, import, moderate, policy: output, JSON and exit codes")
    func administration() async throws {
        let home = TestPaths.temporaryDirectory("picket-admin")
        defer { try? FileManager.default.removeItem(at: home) }
        let created = try await PepperProcess.run(
            ["picket", "keys", "create", "--scope", "read:mobile", "--scope", "write:gps-snapshot", "--json"], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        let key = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        #expect(Set(key.keys) == ["id", "key", "scopes"])
        #expect((key["scopes"] as? [String]) == ["read:mobile", "write:gps-snapshot"])
        #expect(APIKeyFormat.isWellFormed(key["key"] as? String ?? ""))
        let id = try #require(key["id"] as? String)
        // The mobile apps' preset: the three scopes the OPL apps use with their one key.
        let app = try await PepperProcess.run(["picket", "keys", "create", "--preset", "mobile-apps", "--json"], home: home)
        #expect(app.status == 0, "\(app.stderr)")
        let appKey = try #require(try JSONSerialization.jsonObject(with: Data(app.stdout.utf8)) as? [String: Any])
        #expect((appKey["scopes"] as? [String]) == ["read:mobile", "write:gps-snapshot", "write:submit-strike"])
        #expect(
            try await PepperProcess.run(["picket", "keys", "list"], home: home).stdout.contains("mobile apps"), "labelled for the apps")
        let human = try await PepperProcess.run(
            ["picket", "keys", "create", "--scope", "write:submit-strike", "--label", "phone"], home: home)
        #expect(human.stdout.split(separator: "\n").last.map { APIKeyFormat.isWellFormed(String($0)) } == true)
        let listed = try await PepperProcess.run(["picket", "keys", "list"], home: home)
        #expect(listed.stdout.contains(id) && listed.stdout.contains("phone"))
        #expect(!listed.stdout.contains(key["key"] as! String), "keys are never shown again")
        #expect(try await PepperProcess.run(["picket", "keys", "revoke", id], home: home).stdout == "Revoked \(id)\n")
        let again = try await PepperProcess.run(["picket", "keys", "revoke", id], home: home)
        #expect(again.status == 1)
        #expect(again.stderr.contains("no active key"))
        let listedJSON = try await PepperProcess.run(["picket", "keys", "list", "--json"], home: home)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [[String: Any]])
        #expect(keys.first { $0["id"] as? String == id }?["revokedAt"] is String)

        // Usage errors exit 64, failures 1.
        #expect(try await PepperProcess.run(["picket", "keys", "create"], home: home).status == 64)
        #expect(try await PepperProcess.run(["picket", "keys", "create", "--scope", "admin"], home: home).status == 64)
        #expect(try await PepperProcess.run(["picket", "keys", "create", "--preset", "everything"], home: home).status == 64)
        #expect(
            try await PepperProcess.run(["picket", "keys", "create", "--preset", "mobile-apps", "--scope", "read:mobile"], home: home)
                .status
                == 64)
        #expect(try await PepperProcess.run(["picket", "keys", "list", "--database", "mysql://x"], home: home).status == 64)
        #expect(try await PepperProcess.run(["picket", "serve", "--listen", "nowhere"], home: home).status == 64)
        #expect(try await PepperProcess.run(["picket", "moderate", "approve", "act_missing"], home: home).status == 1)
        #expect(try await PepperProcess.run(["picket", "policy", "sometimes"], home: home).status == 64)

        // A PostgreSQL server that is not there: the server and the one-shot commands fail at
        // once with the reason, not after the connection pool's minute of retries.
        for command in [["picket", "serve", "--listen", "127.0.0.1:0"], ["picket", "keys", "list"]] {
            let started = Date()
            let down = try await PepperProcess.run(command + ["--database", "postgres://pepper@127.0.0.1:1/picket"], home: home)
            #expect(down.status == 1)
            #expect(down.stderr.contains("cannot open the Picket database") && down.stderr.contains("Connection refused"), "\(down.stderr)")
            #expect(Date().timeIntervalSince(started) < 20, "\(command)")
        }

        // Import: checked field by field, then idempotent.
        let file = home.appendingPathComponent("seed.json")
        try Data(Self.seed.utf8).write(to: file)
        let imported = try await PepperProcess.run(["picket", "import", file.path], home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 1 employers, 2 actions, 2 locations\n")
        #expect(try await PepperProcess.run(["picket", "import", file.path], home: home).status == 0)
        let broken = home.appendingPathComponent("broken.json")
        try Data(Self.seed.replacingOccurrences(of: #""actionType": "strike""#, with: #""actionType": "riot""#).utf8).write(to: broken)
        let refused = try await PepperProcess.run(["picket", "import", broken.path], home: home)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("actions[0].actionType must be one of"))

        // The imported pending action is moderated; a second decision fails.
        let list = try await PepperProcess.run(["picket", "moderate", "list"], home: home)
        #expect(list.stdout.contains("act_seed_pending  strike"))
        #expect(
            try await PepperProcess.run(["picket", "moderate", "reject", "act_seed_pending", "--reason", "Duplicate report"], home: home)
                .stdout
                .hasPrefix("Rejected strike act_seed_pending"))
        let twice = try await PepperProcess.run(["picket", "moderate", "approve", "act_seed_pending"], home: home)
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("already rejected"))
        // The audit trail records who (cli), when and why; a refused decision left no row.
        let trail = try await PepperProcess.run(["picket", "moderate", "log"], home: home)
        #expect(trail.stdout.split(separator: "\n").count == 1, "\(trail.stdout)")
        #expect(trail.stdout.contains("reject   strike    act_seed_pending") && trail.stdout.hasSuffix("by cli  — Duplicate report\n"))
        let trailJSON = try await PepperProcess.run(["picket", "moderate", "log", "--json"], home: home)
        #expect(
            trailJSON.stdout.contains(#""moderator" : "cli""#) || trailJSON.stdout.contains(#""moderator":"cli""#), "\(trailJSON.stdout)")
        let tooLong = try await PepperProcess.run(
            ["picket", "moderate", "approve", "act_x", "--reason", String(repeating: "r", count: 501)], home: home)
        #expect(tooLong.status == 1 && tooLong.stderr.contains("the reason must be at most 500 characters"))

        // A separate SQLite file with --database.
        let other = home.appendingPathComponent("other.sqlite").path
        #expect(
            try await PepperProcess.run(
                ["picket", "keys", "create", "--scope", "read:mobile", "--database", "sqlite:" + other], home: home
            )
            .status == 0)
        #expect(FileManager.default.fileExists(atPath: other))

        #expect(try await PepperProcess.run(["picket", "policy"], home: home).stdout == "ask\n")
        #expect(try await PepperProcess.run(["picket", "policy", "allow"], home: home).status == 0)
        #expect(try await PepperProcess.run(["picket", "policy"], home: home).stdout == "allow\n")
    }

    @Test("track: refreshes (200, then 304 an hour later) and zone events from a CSV and a GPX route")
    func track() async throws {
        let home = TestPaths.temporaryDirectory("picket-track")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("seed.json")
        try Data(Self.seed.utf8).write(to: file)
        #expect(try await PepperProcess.run(["picket", "import", file.path], home: home).status == 0)
        let key =
            try await PepperProcess.run(["picket", "keys", "create", "--scope", "read:mobile"], home: home).stdout
            .split(separator: "\n").last.map(String.init) ?? ""
        let server = try await ServerProcess(["picket", "serve", "--listen", "127.0.0.1:0"], home: home)
        defer { server.kill() }

        // Walk east along 45.5° N through the strike (at -122.6750) and its picket site (-122.6700).
        var csv = "lat,lng,timestamp\n"
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        for step in 0...60 {
            let point = GreatCircle.destination(
                from: GeoCoordinate(latitude: 45.5, longitude: -122.6850), bearing: 90, distance: Double(step) * 25)
            csv += "\(point.latitude),\(point.longitude),\(Int(start.timeIntervalSince1970) + step * 20)\n"
        }
        // Two hours later, back in the first position's 0.01° cell: the data has not changed, 304.
        csv += "45.5,-122.6860,\(Int(start.timeIntervalSince1970) + 7_200)\n"
        let route = home.appendingPathComponent("walk.csv")
        try Data(csv.utf8).write(to: route)
        let run = try await PepperProcess.run(
            ["picket", "track", "--server", "http://127.0.0.1:\(server.port)", "--key", key, "--route", route.path, "--json"], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let events = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let summary = events.map { event -> String in
            let name = event["event"] as? String ?? "?"
            return name == "refresh" ? "refresh \(event["status"] ?? "?")" : "\(name) \(event["geofenceId"] ?? "?")"
        }
        #expect(
            summary == [
                "refresh 200", "Near Strike act_seed", "Entering Strike Zone act_seed", "Near Strike site_seed",
                "Leaving Strike Zone act_seed", "Entering Strike Zone site_seed", "Leaving Strike Zone site_seed", "refresh 304",
            ])
        #expect(events.first?["time"] as? String == trackTime(start))
        #expect(run.stderr.contains("62 points, 2 refreshes (1 × 200, 1 × 304), 6 events"))

        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="pepper-test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="45.5" lon="-122.6800"><time>2026-11-22T09:00:00Z</time></trkpt>
            <trkpt lat="45.5" lon="-122.6750"><time>2026-11-22T09:05:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let gpxFile = home.appendingPathComponent("walk.gpx")
        try Data(gpx.utf8).write(to: gpxFile)
        let human = try await PepperProcess.run(
            ["picket", "track", "--server", "http://127.0.0.1:\(server.port)", "--key", key, "--route", gpxFile.path], home: home)
        #expect(human.status == 0, "\(human.stderr)")
        let lines = human.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("2026-11-22T09:00:00Z  refresh  200  2 geofences, 2 blocklist entries") == true, "\(human.stdout)")
        #expect(lines.last?.hasPrefix("2026-11-22T09:05:00Z  Entering Strike Zone  Seed Co — strike (action, act_seed), 0 m") == true)

        let badKey = try await PepperProcess.run(
            [
                "picket", "track", "--server", "http://127.0.0.1:\(server.port)", "--key", "opl_" + String(repeating: "0", count: 64),
                "--route", gpxFile.path,
            ],
            home: home)
        #expect(badKey.status == 1)
        #expect(badKey.stderr.contains("unknown API key"))
        #expect(
            try await PepperProcess.run(["picket", "track", "--server", "x", "--key", key, "--route", gpxFile.path], home: home).status
                == 64)
        #expect(server.stop(signal: SIGTERM).status == 0, "SIGTERM stops the server cleanly")
    }

    @Test("the blocklist as a list source: add, update with 304, compile, policy")
    func listSource() async throws {
        let home = TestPaths.temporaryDirectory("picket-lists")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("seed.json")
        try Data(Self.seed.utf8).write(to: file)
        #expect(try await PepperProcess.run(["picket", "import", file.path], home: home).status == 0)
        let key =
            try await PepperProcess.run(["picket", "keys", "create", "--scope", "read:mobile"], home: home).stdout
            .split(separator: "\n").last.map(String.init) ?? ""
        let server = try await ServerProcess(["picket", "serve", "--listen", "127.0.0.1:0"], home: home)
        defer { server.kill() }
        let location = "picket:http://127.0.0.1:\(server.port)"
        for name in ["easylist", "easyprivacy"] { _ = try await PepperProcess.run(["lists", "disable", name, "--no-compile"], home: home) }

        #expect(try await PepperProcess.run(["lists", "add", location], home: home).status == 64, "a key is required")
        let added = try await PepperProcess.run(["lists", "add", location, "--key", key], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Added picket-127.0.0.1 (2 rules)"))
        let rules = try Self.compiledRules(home)
        #expect(rules.contains(#"seedco\\.example"#) && rules.contains(#"seed-shop\\.example"#))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/.picket-picket-127.0.0.1.strikes.json").path))

        let unchanged = try await PepperProcess.run(["update", "--force"], home: home)
        #expect(unchanged.stdout.contains("picket-127.0.0.1: not modified"), "\(unchanged.stdout)")

        // A new employer's strike is approved: the next update downloads it.
        let strike = """
            {"employers": [{"id": "emp_new", "name": "Newco", "domains": ["newco.example"]}],
             "actions": [{"id": "act_new", "employerId": "emp_new", "actionType": "boycott", "startDate": "2024-01-01"}]}
            """
        let second = home.appendingPathComponent("second.json")
        try Data(strike.utf8).write(to: second)
        #expect(try await PepperProcess.run(["picket", "import", second.path], home: home).status == 0)
        let updated = try await Self.waitForUpdate(home)
        #expect(updated.contains("picket-127.0.0.1: updated"), "\(updated)")
        #expect(try Self.compiledRules(home).contains(#"newco\\.example"#))

        #expect(try await PepperProcess.run(["picket", "policy", "allow"], home: home).status == 0)
        #expect(!(try Self.compiledRules(home).contains(#"newco\\.example"#)), "allow: no rules")
        #expect(try await PepperProcess.run(["picket", "policy", "ask"], home: home).status == 0)
        #expect(try Self.compiledRules(home).contains(#"newco\\.example"#), "ask: the content blocker blocks")

        let compiled = try await PepperProcess.run(
            ["compile", "picket:http://localhost:\(server.port)", "--output", home.appendingPathComponent("o").path], home: home,
            environment: ["PEPPER_PICKET_KEY": key])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        #expect(compiled.stdout.contains("3 WebKit rules"))
        let noKey = try await PepperProcess.run(
            ["compile", "picket:http://localhost:\(server.port)", "--output", home.appendingPathComponent("o2").path], home: home,
            environment: ["PEPPER_PICKET_KEY": ""])
        #expect(noKey.status == 1)
        #expect(noKey.stderr.contains("needs an API key"))
        // The key of the Picket list with that very location, read from the key store (on
        // Linux the state's preferences), never from the list's settings.
        let fromList = try await PepperProcess.run(
            ["compile", location, "--output", home.appendingPathComponent("o3").path], home: home, environment: ["PEPPER_PICKET_KEY": ""])
        #expect(fromList.status == 0 && fromList.stdout.contains("3 WebKit rules"), "\(fromList.stderr)")
        let database = try PepperDatabase(home: PepperHome(url: home))
        let list = try #require(try ListSourceStore(database: database).source(named: "picket-127.0.0.1"))
        #expect(list.settings == nil, "no key in the list's settings")
        #expect(try PreferenceStore(database: database).value(.picketListKeys)?.contains(key) == true)
    }

    @Test("serve and keys on PostgreSQL")
    func postgres() async throws {
        guard let url = ProcessInfo.processInfo.environment["PEPPER_TEST_POSTGRES_URL"], !url.isEmpty else {
            if ProcessInfo.processInfo.environment["PEPPER_REQUIRE_POSTGRES"] == "1" {
                Issue.record("PEPPER_REQUIRE_POSTGRES=1 but PEPPER_TEST_POSTGRES_URL is not set")
            }
            try Test.cancel("PostgreSQL tests need PEPPER_TEST_POSTGRES_URL (scripts/test.sh starts a throwaway server)")
        }
        let home = TestPaths.temporaryDirectory("picket-pg")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("seed.json")
        try Data(Self.seed.utf8).write(to: file)
        #expect(try await PepperProcess.run(["picket", "import", file.path, "--database", url], home: home).status == 0)
        let created = try await PepperProcess.run(["picket", "keys", "create", "--scope", "read:mobile", "--database", url], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        let key = created.stdout.split(separator: "\n").last.map(String.init) ?? ""
        // The URL from the environment, as docs/deploy.md's units give it (out of `ps`).
        let server = try await ServerProcess(
            ["picket", "serve", "--listen", "127.0.0.1:0"], home: home, environment: ["PEPPER_PICKET_DATABASE": url])
        defer { server.kill() }
        #expect(server.output.contains("(store: postgres://"))
        let client = PicketClient(server: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: key)
        let strikes = try await Self.wait { try await client.activeStrikes() }
        #expect(strikes.strikes.contains { $0.id == "act_seed" })
        #expect(server.stop(signal: SIGTERM).status == 0)
        // Moderation and its audit trail on PostgreSQL, as the console's --picket-database does.
        let rejected = try await PepperProcess.run(
            ["picket", "moderate", "reject", "act_seed_pending", "--reason", "Not a labor action", "--database", url], home: home)
        #expect(rejected.status == 0, "\(rejected.stderr)")
        let log = try await PepperProcess.run(["picket", "moderate", "log", "--database", url], home: home).stdout
        #expect(log.contains("act_seed_pending  Seed Co  by cli  — Not a labor action"), "\(log)")
    }

    @Test("console --picket-database: a location that cannot be used is a clear error")
    func consoleStoreErrors() async throws {
        let home = TestPaths.temporaryDirectory("console-store")
        defer { try? FileManager.default.removeItem(at: home) }
        let bad = try await PepperProcess.run(["console", "--listen", "127.0.0.1:0", "--picket-database", "ftp://x"], home: home)
        #expect(bad.status == 64 && bad.stderr.contains("--picket-database"), "\(bad.stderr)")
        let closed = try await PepperProcess.run(
            ["console", "--listen", "127.0.0.1:0", "--picket-database", "postgres://pepper@127.0.0.1:1/none?sslmode=disable"], home: home)
        #expect(closed.status == 1 && closed.stderr.contains("cannot open the Picket database"), "\(closed.stderr)")
    }

    // MARK: Helpers

    static let seed = """
        {"employers": [{"id": "emp_seed", "name": "Seed Co", "website": "https://seedco.example",
                        "domains": ["seedco.example", "seed-shop.example"],
                        "locations": [{"id": "loc_far", "name": "Seed Co Boise", "locationType": "store", "latitude": 43.6, "longitude": -116.2}]}],
         "actions": [{"id": "act_seed", "employerId": "emp_seed", "organization": "Seed Workers", "actionType": "strike",
                      "location": "Portland, OR", "startDate": "2024-01-01", "description": "Strike at the plant",
                      "coordinates": {"latitude": 45.5, "longitude": -122.6750},
                      "picketSites": [{"id": "site_seed", "name": "East gate", "latitude": 45.5, "longitude": -122.6700, "notificationRadius": 300}]},
                     {"id": "act_seed_pending", "employerId": "emp_seed", "actionType": "strike", "startDate": "2024-02-01",
                      "status": "pending", "description": "Not yet moderated"}]}
        """

    static func codeBlock(in markdown: String, containing marker: String) -> String? {
        let parts = markdown.components(separatedBy: "```")
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }.first { $0.contains(marker) }.map { block in
            block.split(separator: "\n", maxSplits: 1).last.map(String.init) ?? ""
        }
    }

    static func compiledRules(_ home: URL) throws -> String {
        try String(contentsOf: home.appendingPathComponent("out/blocker-1.json"), encoding: .utf8)
    }

    /// `pepper update --force` until the server's change arrives (it checks the store every second).
    static func waitForUpdate(_ home: URL) async throws -> String {
        var output = ""
        for _ in 0..<20 {
            output = try await PepperProcess.run(["update", "--force"], home: home).stdout
            if output.contains(": updated") { return output }
            try await Task.sleep(for: .milliseconds(250))
        }
        return output
    }

    /// Runs client code until the server's change shows (it checks the store every second).
    static func wait<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        var last: Result<Value, any Error> = .failure(CancellationError())
        for _ in 0..<20 {
            do {
                let value = try await body()
                last = .success(value)
                if case .updated = value as? PicketClient.DataResult { break }
                if !(value is PicketClient.DataResult) { break }
            } catch {
                last = .failure(error)
            }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        return try last.get()
    }
}

/// What `pepper picket track` prints for a time.
func trackTime(_ date: Date) -> String {
    let text = ISO8601.format(date)
    return text.hasSuffix(".000Z") ? String(text.dropLast(5)) + "Z" : text
}

/// A long-running `pepper` process (a server): its stdout goes to a file the test reads as it
/// grows, so a test can wait for "Listening on …" and read the port. (A file, not a pipe with a
/// `readabilityHandler`: Foundation's handler keeps firing at end of file once the process is
/// gone, and its file descriptor's lifetime is not the test's to control; with many servers
/// started, killed and restarted in one test process, plain files are the safe way.)
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let outputURL: URL
    private let errorURL: URL

    /// What the process printed on stdout so far.
    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    /// What the process printed on stderr so far.
    var errors: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// Starts `pepper` with `arguments` and waits (a minute at most) for the line starting with
    /// `ready` and an address (`Listening on http://127.0.0.1:8080 …`, or the console's `Pepper
    /// console: open http://127.0.0.1:5380/?token=…`), whose port it keeps.
    init(_ arguments: [String], home: URL, environment: [String: String] = [:], ready: String = "Listening on http://") async throws {
        process.executableURL = PepperProcess.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PEPPER_HOME": home.path]) { $1 }.merging(environment) { $1 }
        let unique = UUID().uuidString
        outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-serve-out-\(unique)")
        errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-serve-err-\(unique)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        var port: Int?
        while Date() < deadline, process.isRunning {
            let printed = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            if let line = printed.split(separator: "\n").first(where: { $0.hasPrefix(ready) }) {
                let address = line.dropFirst(ready.count).prefix { $0 != " " && $0 != "/" }
                port = address.lastIndex(of: ":").flatMap { Int(address[address.index(after: $0)...]) }
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let port else {
            process.terminate()
            process.waitUntilExit()
            let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the server did not start: \(errors)"])
        }
        self.port = port
    }

    deinit {
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }

    /// Sends `signal` and waits for the exit.
    func stop(signal: Int32) -> (status: Int32, stderr: String) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")
    }

    func kill() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

extension String {
    /// The rest of the first line that starts with `prefix`.
    func firstMatch(after prefix: String) -> String? {
        split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
