import ContentBlocker
import Foundation
import PepperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pepper update` killed with SIGKILL at random moments must always leave an output that is
/// exactly the old one or exactly the new one — never a mix — and that WebKit accepts; and
/// a database whose list records each describe one whole download and the copy Pepper uses.
@Suite("Update killed at random moments", .serialized)
struct UpdateKillTests {
    static let trials = 100

    static func lists(version: Int) -> (String, String) {
        let a =
            "! Title: A v\(version)\n" + (0..<3_000).map { "||a\(version)-\($0).example^" }.joined(separator: "\n")
            + "\n##.ad-v\(version)\n"
        let b = (0..<1_000).map { "b\(version)-\($0).example" }.joined(separator: "\n") + "\n"
        return (a, b)
    }

    static func routes(version: Int) -> [String: ListServer.Route] {
        let (a, b) = lists(version: version)
        return ["/a.txt": .init(body: a, etag: true), "/b.txt": .init(body: b, etag: true)]
    }

    /// The output's identifier and the bytes of each rule list.
    struct Snapshot: Equatable {
        var identifier: String
        var files: [String: Data]
        /// Each source's name and SHA-256, to tell which lists a wrong output came from.
        var sources: [String]

        init(home: URL) throws {
            let out = home.appendingPathComponent("out")
            let manifest = try Manifest.decode(Data(contentsOf: out.appendingPathComponent("manifest.json")))
            identifier = manifest.identifier
            sources = manifest.sources.map { "\($0.name) \($0.sha256.prefix(12)) etag \($0.etag ?? "-")" }
            files = [:]
            for file in manifest.files { files[file.path] = try Data(contentsOf: out.appendingPathComponent(file.path)) }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func killedUpdatesLeaveTheOldOrTheNewOutput() async throws {
        let server = try ListServer(routes: Self.routes(version: 0))
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        for name in ["a", "b"] {
            #expect(
                try await PepperProcess.run(["lists", "add", server.url("/\(name).txt"), "--name", name, "--no-compile"], home: home).status
                    == 0)
        }

        // The two possible outputs, from complete updates, and the two downloads of each list
        // (its digest and the server's ETag for it).
        var references: [Snapshot] = []
        var durations: [Double] = []
        var downloads = Downloads()
        for version in [1, 0] {
            try server.set(Self.routes(version: version))
            let started = Date()
            let run = try await PepperProcess.run(["update", "--force"], home: home)
            durations.append(Date().timeIntervalSince(started))
            #expect(run.status == 0, "\(run.stderr)")
            references.append(try Snapshot(home: home))
            for record in try await StoredState.read(home).lists where ["a", "b"].contains(record.name) {
                downloads.etags[try #require(record.sha256), default: []].insert(record.etag ?? "-")
            }
        }
        #expect(references[0] != references[1])
        #expect(downloads.etags.count == 4 && downloads.etags.values.allSatisfy { $0.count == 1 }, "\(downloads.etags)")

        // WebKit accepts both.
        if WebKitJudge.ready() {
            for reference in references {
                let directory = TestPaths.temporaryDirectory("ref")
                defer { try? FileManager.default.removeItem(at: directory) }
                let files = try reference.files.map { name, data in
                    let url = directory.appendingPathComponent(name)
                    try data.write(to: url)
                    return url
                }
                #expect(try await WebKitJudge.compile(files).allSatisfy(\.ok))
            }
        }

        // Kill updates at random moments over a window that follows how long updates take now
        // (a full test run in parallel makes them several times slower from one minute to the
        // next): it grows a little after each kill and shrinks after each update that finished
        // first, which settles at about two kills in three, so both outcomes happen.
        var window = durations.min() ?? 0.5
        var generator = SplitMix64(seed: 20_261_122)
        var outcomes = [0, 0]
        var killedMidway = 0
        for trial in 0..<Self.trials {
            try server.set(Self.routes(version: trial % 2))
            let delay = Double(generator.next() % 10_000) / 10_000 * window
            let errors = home.appendingPathComponent("update-stderr.txt")
            // Start, wait, kill and reap on a thread of its own (see `onOwnThread`).
            let (killed, status) = try await onOwnThread { [home] in
                let process = Process()
                process.executableURL = PepperProcess.executable
                process.arguments = ["update", "--force", "--attempts", "1"]
                process.environment = ["PEPPER_HOME": home.path]
                process.standardOutput = FileHandle.nullDevice
                _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
                let errorHandle = try FileHandle(forWritingTo: errors)
                defer { try? errorHandle.close() }
                process.standardError = errorHandle
                try process.run()
                Thread.sleep(forTimeInterval: delay)
                let killed = process.isRunning
                if killed { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                return (killed, process.terminationStatus)
            }
            if killed { killedMidway += 1 }
            window *= killed ? 1.05 : 0.9

            let snapshot = try Snapshot(home: home)
            guard let index = references.firstIndex(of: snapshot) else {
                let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                Issue.record(
                    """
                    trial \(trial) (\(killed ? "killed after \(delay) s" : "exited \(status)")): \
                    the output is neither the old nor the new one
                    output sources: \(snapshot.sources)
                    references: \(references.map(\.sources))
                    stderr: \(stderr)
                    """)
                return
            }
            outcomes[index] += 1

            // The database: whole, and its list records agree with the copies and the output.
            if let problem = try await downloads.check(home: home) {
                let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                Issue.record("trial \(trial) (\(killed ? "killed after \(delay) s" : "exited \(status)")): \(problem)\nstderr: \(stderr)")
                return
            }
        }
        // The kills really landed during updates, and both outcomes happened.
        #expect(killedMidway >= Self.trials * 2 / 5, "only \(killedMidway) of \(Self.trials) processes were killed before finishing")
        #expect(outcomes.allSatisfy { $0 > 0 }, "outcomes \(outcomes)")
        print(
            "update killed: \(Self.trials) trials, \(killedMidway) killed midway, outputs \(outcomes); "
                + "\(downloads.pendingSeen) kills left a committed copy not yet in place, "
                + "\(downloads.recordsAheadOfOutput) left records newer than the output")

        // A later complete update repairs everything the kills left behind.
        try server.set(Self.routes(version: 1))
        #expect(try await PepperProcess.run(["update", "--force"], home: home).status == 0)
        #expect(try Snapshot(home: home) == references[0])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix(".out.") }
        #expect(leftovers.count <= 2, "old generations are cleaned up: \(leftovers)")
        // And the records describe exactly the files in lists/, with no copy left pending.
        #expect(try await downloads.check(home: home) == nil)
        let stored = try await StoredState.read(home)
        for name in ["a", "b"] {
            let record = try #require(stored.list(name))
            let copy = try Data(contentsOf: home.appendingPathComponent("lists/\(name)"))
            #expect(ContentBlockerOutput.SourceIdentity.sha256Hex(copy) == record.sha256, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/.\(name).pending").path))
        }
    }

    /// The moment between writing a new copy and committing its record, which random kills
    /// seldom hit (a few milliseconds of an update), held open on purpose: another program
    /// holds the database's write lock, so the record waits (the busy timeout is 10 s), and the
    /// update is killed then. The old copy must still be the one in use, with its record; the
    /// next update stores the new one.
    @Test(.timeLimit(.minutes(2)))
    func anUpdateKilledWhileItsRecordWaitsForTheDatabaseKeepsTheOldCopyAndRecord() async throws {
        let server = try ListServer(routes: Self.routes(version: 1))
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        for name in ["a", "b"] {
            #expect(
                try await PepperProcess.run(["lists", "add", server.url("/\(name).txt"), "--name", name, "--no-compile"], home: home).status
                    == 0)
        }
        var downloads = Downloads()
        for version in [1, 0] {
            try server.set(Self.routes(version: version))
            #expect(try await PepperProcess.run(["update", "--force"], home: home).status == 0)
            for record in try await StoredState.read(home).lists where ["a", "b"].contains(record.name) {
                downloads.etags[try #require(record.sha256), default: []].insert(record.etag ?? "-")
            }
        }
        let before = try await StoredState.read(home)
        try server.set(Self.routes(version: 1))

        let reached = try await onOwnThread { [home] () throws -> Bool in
            // The write lock, held until this thread lets it go.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: StoredState.python)
            holder.arguments = [
                "-c",
                "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                    + "db.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\nsys.stdin.read()\n",
                home.appendingPathComponent("pepper.sqlite").path,
            ]
            let locked = Pipe()
            let release = Pipe()
            holder.standardOutput = locked
            holder.standardInput = release
            try holder.run()
            defer {
                try? release.fileHandleForWriting.close()
                holder.waitUntilExit()
            }
            _ = locked.fileHandleForReading.availableData

            let update = Process()
            update.executableURL = PepperProcess.executable
            update.arguments = ["update", "--force", "--attempts", "1"]
            update.environment = ["PEPPER_HOME": home.path]
            update.standardOutput = FileHandle.nullDevice
            update.standardError = FileHandle.nullDevice
            try update.run()
            // Wait for the new copy of `a` to be written (beside the old one, or, were the
            // order wrong, over it), then a little longer: the update is then waiting to commit.
            let old = try Data(contentsOf: home.appendingPathComponent("lists/a"))
            var reached = false
            for _ in 0..<160 where !reached {
                Thread.sleep(forTimeInterval: 0.05)
                let pending = FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/.a.pending").path)
                reached = pending || (try? Data(contentsOf: home.appendingPathComponent("lists/a"))) != old
            }
            Thread.sleep(forTimeInterval: 0.3)
            kill(update.processIdentifier, SIGKILL)
            update.waitUntilExit()
            return reached
        }
        #expect(reached, "the update never wrote its new copy of a")
        #expect(try await downloads.check(home: home) == nil)
        let after = try await StoredState.read(home)
        #expect(after.list("a") == before.list("a"), "the record of a is the one from before the kill")
        let copy = try Data(contentsOf: home.appendingPathComponent("lists/a"))
        #expect(ContentBlockerOutput.SourceIdentity.sha256Hex(copy) == before.list("a")?.sha256, "the copy of a is the old one")

        // The next update stores the new copies, with their records, and leaves nothing pending.
        #expect(try await PepperProcess.run(["update", "--force"], home: home).status == 0)
        #expect(try await downloads.check(home: home) == nil)
        let (a1, _) = Self.lists(version: 1)
        #expect(try await StoredState.read(home).list("a")?.sha256 == ContentBlockerOutput.SourceIdentity.sha256Hex(Data(a1.utf8)))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/.a.pending").path))
    }

    /// What the list records may hold after a kill, and what was seen.
    struct Downloads {
        /// The server's ETag for each digest of a list it served (one each).
        var etags: [String: Set<String>] = [:]
        /// The last success recorded for each list so far.
        var lastSuccess: [String: String] = [:]
        /// Kills after a record's commit and before its copy was moved in place.
        var pendingSeen = 0
        /// Kills after a record's commit and before the output was rebuilt.
        var recordsAheadOfOutput = 0

        /// Why the database does not agree with itself, the copies or the output; `nil` when it does.
        ///
        /// After any kill: SQLite's integrity check passes; each list's record is one whole
        /// download (a digest the server served, with that download's ETag); the copy Pepper uses
        /// is the one the record describes; the output pairs each list's digest with that
        /// download's ETag; and no list's last success goes back.
        mutating func check(home: URL) async throws -> String? {
            let stored = try await StoredState.read(home)
            guard stored.integrity == "ok" else { return "integrity check: \(stored.integrity)" }
            let manifest = try Manifest.decode(Data(contentsOf: home.appendingPathComponent("out/manifest.json")))
            for name in ["a", "b"] {
                guard let record = stored.list(name), let sha256 = record.sha256 else { return "\(name): no record of a download" }
                guard let etags = etags[sha256] else { return "\(name): the record's digest \(sha256.prefix(12)) is no download's" }
                guard etags.contains(record.etag ?? "-") else {
                    return "\(name): the record pairs \(sha256.prefix(12)) with ETag \(record.etag ?? "-"), the server's is \(etags)"
                }
                guard let copy = StoredState.copyInUse(record, home: home) else { return "\(name): no copy" }
                let copySHA = ContentBlockerOutput.SourceIdentity.sha256Hex(copy)
                guard copySHA == sha256 else {
                    return "\(name): the record describes \(sha256.prefix(12)), the copy in use is \(copySHA.prefix(12))"
                }
                if FileManager.default.fileExists(atPath: home.appendingPathComponent("lists/.\(name).pending").path) { pendingSeen += 1 }
                guard let output = manifest.sources.first(where: { $0.name == name }) else { return "\(name) is not in the output" }
                guard self.etags[output.sha256].map({ $0.contains(output.etag ?? "-") }) == true else {
                    return "\(name): the output pairs \(output.sha256.prefix(12)) with ETag \(output.etag ?? "-")"
                }
                if output.sha256 != sha256 { recordsAheadOfOutput += 1 }
                if let success = record.lastSuccess {
                    if let previous = lastSuccess[name], success < previous {
                        return "\(name): the last success went back from \(previous) to \(success)"
                    }
                    lastSuccess[name] = success
                }
            }
            return nil
        }
    }
}
