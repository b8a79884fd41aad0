import ContentBlocker
import Foundation
import PepperTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A file system of its own that a test can fill: a tmpfs mounted on a new folder (which needs
/// root or `CAP_SYS_ADMIN`). Where mounting is not permitted the tests that need it say why and
/// skip, or fail under `PEPPER_REQUIRE_TMPFS=1` (which `scripts/test.sh` sets only when its own
/// probe mount succeeds).
final class SmallDisk {
    /// Why no tmpfs could be mounted.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Where it is mounted.
    let url: URL
    private var mounted = true
    private var filler: URL { url.appendingPathComponent("filler") }

    /// Mounts a tmpfs of `megabytes` on a new temporary folder.
    init(megabytes: Int) throws(Unavailable) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-disk-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let options = "size=\(megabytes)m,mode=0755"
        let mounted = options.withCString { mount("tmpfs", url.path, "tmpfs", 0, $0) }
        guard mounted == 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(url.path)
            throw Unavailable(description: "cannot mount a tmpfs on \(url.path) (\(reason); it needs root or CAP_SYS_ADMIN)")
        }
    }

    deinit { unmount() }

    /// Unmounts it (lazily if something still holds it) and removes the folder.
    func unmount() {
        guard mounted else { return }
        mounted = false
        // MNT_DETACH (2): lazily, should a process of a failed test still hold a file there.
        if umount2(url.path, 0) != 0 { umount2(url.path, 2) }
        rmdir(url.path)
    }

    /// Bytes free for writing.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Takes all the free space but `bytes` with a file of its own (outside any Pepper home),
    /// as another program filling the disk would.
    func fill(leaving bytes: Int) throws {
        makeRoom()
        let size = freeBytes - bytes
        guard size > 0 else { return }
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Unavailable(description: "cannot create \(filler.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let result = posix_fallocate(descriptor, 0, off_t(size))
        guard result == 0 else { throw Unavailable(description: "cannot fill \(url.path): \(String(cString: strerror(result)))") }
    }

    /// Frees the space taken by ``fill(leaving:)``.
    func makeRoom() {
        unlink(filler.path)
    }

    /// Whether a tmpfs can be mounted here (tried once); why not, if not.
    static let unavailable: String? = {
        do {
            let probe = try SmallDisk(megabytes: 1)
            probe.unmount()
            return nil
        } catch let error as Unavailable {
            return error.description
        } catch {
            return "\(error)"
        }
    }()

    /// Whether a missing tmpfs fails the run (`scripts/test.sh` and CI) instead of skipping.
    static let required = ProcessInfo.processInfo.environment["PEPPER_REQUIRE_TMPFS"] == "1"
}

/// The disk holding `PEPPER_HOME` full (a small tmpfs, filled by another file) during
/// `pepper update`, a rebuild (`pepper allowlist add`, `pepper compile`) and `pepper calls
/// import` of a large file, at several amounts of space left, so that the write runs out at
/// different points. Each time: exit status 1 and one error line that says the disk is full and
/// which file could not be written; the previous output and database intact and in use (the
/// output byte for byte the same and loading, SQLite's integrity check passing, the old lists
/// there, `pepper check` and `pepper calls check` still answering); no file left behind; and the
/// next run after space is freed succeeds.
@Suite(
    "Disk full", .serialized,
    .enabled(if: SmallDisk.unavailable == nil || SmallDisk.required, "\(SmallDisk.unavailable ?? ""); PEPPER_REQUIRE_TMPFS=1 fails instead")
)
struct DiskFullTests {
    /// Space left on the disk in each attempt: none, then a little more each time (within what
    /// the command needs, so it fails at a later write each time).
    static let levels = [0, 16 << 10, 96 << 10, 384 << 10]

    /// The disk, or an issue recorded (when it is required) and `nil`.
    static func disk(megabytes: Int) -> SmallDisk? {
        do {
            return try SmallDisk(megabytes: megabytes)
        } catch {
            Issue.record("PEPPER_REQUIRE_TMPFS=1 but \(error)")
            return nil
        }
    }

    /// Runs `body` on a thread of its own (it runs processes and waits) with a new disk of
    /// `megabytes`, unmounted afterwards whatever happens.
    static func onDisk(megabytes: Int, _ body: (SmallDisk) async throws -> Void) async throws {
        // Recorded here rather than on the thread, so that the issue names its test.
        if let reason = SmallDisk.unavailable {
            Issue.record("PEPPER_REQUIRE_TMPFS=1 but \(reason)")
            return
        }
        guard let disk = Self.disk(megabytes: megabytes) else { return }
        defer { disk.unmount() }
        try await body(disk)
    }

    /// The names of every file and folder under `home` (the output's generation folders by
    /// name only), to find files a failed command left behind.
    static func entries(_ home: URL) -> Set<String> {
        var names = Set<String>()
        let walker = FileManager.default.enumerator(atPath: home.path)
        while let path = walker?.nextObject() as? String {
            if path.hasPrefix(".out.") && path.contains("/") { continue }
            names.insert(path)
        }
        return names
    }

    /// Checks one failed run: status 1, one error line naming the full disk and a file of the
    /// home; returns the file named.
    static func expectFull(_ run: PepperProcess.Outcome, home: URL, _ what: String) -> String? {
        #expect(run.status == 1, "\(what): status \(run.status)\n\(run.stderr)")
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1, "\(what): one error line, not \(errors.count):\n\(run.stderr)")
        let marker = "no space left on device while writing "
        guard let line = errors.first, let range = line.range(of: marker) else {
            Issue.record("\(what): the error does not say that the disk is full:\n\(run.stderr)")
            return nil
        }
        let path = String(line[range.upperBound...].prefix { $0 != " " && $0 != ";" })
        #expect(path.hasPrefix(home.path + "/"), "\(what): the file named is not in the home: \(line)")
        return path
    }

    /// The output in place: its manifest and every rule list, which must be JSON arrays.
    static func expectOutputLoads(_ home: URL, _ what: String) throws -> UpdateKillTests.Snapshot {
        let out = home.appendingPathComponent("out")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: out.path)
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(target).path), "\(what): out points at \(target)")
        let snapshot = try UpdateKillTests.Snapshot(home: home)
        for (name, data) in snapshot.files {
            #expect((try? JSONSerialization.jsonObject(with: data)) is [Any], "\(what): \(name) is not a rule list")
        }
        return snapshot
    }

    @Test(.timeLimit(.minutes(5)))
    func anUpdateOnAFullDiskKeepsTheOutputAndTheListsAndTheNextOneSucceeds() async throws {
        try await Self.onDisk(megabytes: 24) { disk in
            try await Self.update(disk: disk, server: try ListServer(routes: UpdateKillTests.routes(version: 0)))
        }
    }

    /// A home on `disk` with the lists `a` (3,000 rules) and `b` (1,000 domains) of `server`
    /// (version 0), downloaded and compiled: an output of some 500 kB, more than the levels leave.
    static func homeWithLists(disk: SmallDisk, server: ListServer) async throws -> URL {
        let home = disk.url.appendingPathComponent("home")
        for builtIn in ["easylist", "easyprivacy"] {
            #expect(try await PepperProcess.run(["lists", "disable", builtIn, "--no-compile"], home: home).status == 0)
        }
        for name in ["a", "b"] {
            #expect(
                try await PepperProcess.run(["lists", "add", server.url("/\(name).txt"), "--name", name, "--no-compile"], home: home).status
                    == 0)
        }
        let first = try await PepperProcess.run(["update", "--force"], home: home)
        try #require(first.status == 0, "\(first.stderr)")
        return home
    }

    /// Seconds `body` took.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let started = Date()
        let value = try await body()
        return (value, Date().timeIntervalSince(started))
    }

    static func update(disk: SmallDisk, server: ListServer) async throws {
        let home = try await homeWithLists(disk: disk, server: server)
        let before = try expectOutputLoads(home, "before")
        let stored = try await StoredState.read(home)
        let files = entries(home)

        try server.set(UpdateKillTests.routes(version: 1))
        var named: [String] = []
        for level in levels {
            try disk.fill(leaving: level)
            let what = "update with \(level) bytes free"
            let run = try await PepperProcess.run(["update", "--force"], home: home)
            named.append(expectFull(run, home: home, what) ?? "?")
            #expect(try expectOutputLoads(home, what) == before, "\(what): the output changed")
            let now = try await StoredState.read(home)
            #expect(now.integrity == "ok", "\(what): \(now.integrity)")
            for name in ["a", "b"] {
                // The old record and copy, or (when the copy fitted but the output did not) the
                // new ones: each record describes the copy in use.
                let record = try #require(now.list(name))
                let copy = try #require(StoredState.copyInUse(record, home: home))
                #expect(ContentBlockerOutput.SourceIdentity.sha256Hex(copy) == record.sha256, "\(what): \(name)")
                #expect(record.lastError == stored.list(name)?.lastError, "\(what): \(name) failed because of the disk, not the list")
            }
            #expect(entries(home) == files, "\(what): files left behind: \(entries(home).symmetricDifference(files))")
            // In use while the disk is still full: the saved engine, which follows the output,
            // judges a request by the old lists (even when the new copies fitted and their
            // records say so: the output follows them at the next update that has room).
            let check = try await PepperProcess.run(["check", "https://a0-1.example/x.js"], home: home)
            #expect(check.status == 0 && check.stdout.hasPrefix("BLOCKED"), "\(what): \(check.stdout) \(check.stderr)")
        }

        // Space again: a plain update (nothing is due, nothing forced) finishes the job.
        disk.makeRoom()
        let (again, recovery) = try await timed { try await PepperProcess.run(["update"], home: home) }
        #expect(again.status == 0, "\(again.stderr)")
        _ = try expectOutputLoads(home, "after")
        let manifest = try Manifest.decode(Data(contentsOf: home.appendingPathComponent("out/manifest.json")))
        let (a, b) = UpdateKillTests.lists(version: 1)
        #expect(
            manifest.sources.map { [$0.name, $0.sha256] }
                == [
                    ["a", ContentBlockerOutput.SourceIdentity.sha256Hex(Data(a.utf8))],
                    ["b", ContentBlockerOutput.SourceIdentity.sha256Hex(Data(b.utf8))],
                ],
            "the output is of the new lists")
        print(
            "disk full during pepper update: \(zip(levels, named).map { "\($0.0) B free: \($0.1)" }.joined(separator: "; ")); "
                + "recovered by the next update in \(String(format: "%.2f", recovery)) s")
    }

    @Test(.timeLimit(.minutes(5)))
    func aRebuildOnAFullDiskKeepsTheOutputAndTheNextOneSucceeds() async throws {
        try await Self.onDisk(megabytes: 24) { disk in
            try await Self.rebuild(disk: disk, server: try ListServer(routes: UpdateKillTests.routes(version: 0)))
        }
    }

    static func rebuild(disk: SmallDisk, server: ListServer) async throws {
        let home = try await homeWithLists(disk: disk, server: server)
        let before = try expectOutputLoads(home, "before")
        let files = entries(home)
        var named: [String] = []
        for (index, level) in levels.enumerated() {
            try disk.fill(leaving: level)
            let what = "allowlist add with \(level) bytes free"
            let allowlisted = try await StoredState.read(home).allowlist
            let run = try await PepperProcess.run(["allowlist", "add", "site\(index).example"], home: home)
            let path = expectFull(run, home: home, what) ?? "?"
            named.append(path)
            #expect(try expectOutputLoads(home, what) == before, "\(what): the output changed")
            let now = try await StoredState.read(home)
            #expect(now.integrity == "ok", "\(what): \(now.integrity)")
            if path.hasSuffix("pepper.sqlite") {
                #expect(now.allowlist == allowlisted, "\(what): the database said full, yet the entry is stored")
            }
            #expect(entries(home) == files, "\(what): files left behind: \(entries(home).symmetricDifference(files))")
            // `pepper compile` has the same output to publish when the entry was stored, and
            // fails the same way; when it was not, the output is current and nothing is written.
            let compile = try await PepperProcess.run(["compile"], home: home)
            if now.allowlist == allowlisted {
                #expect(compile.status == 0, "compile with \(level) bytes free, nothing to write: \(compile.stderr)")
            } else {
                _ = expectFull(compile, home: home, "compile with \(level) bytes free")
            }
            #expect(try expectOutputLoads(home, what) == before, "compile with \(level) bytes free: the output changed")
            let check = try await PepperProcess.run(["check", "https://a0-1.example/x.js"], home: home)
            #expect(check.status == 0 && check.stdout.hasPrefix("BLOCKED"), "\(what): \(check.stdout) \(check.stderr)")
        }

        disk.makeRoom()
        let (again, recovery) = try await timed { try await PepperProcess.run(["allowlist", "add", "site0.example"], home: home) }
        #expect(again.status == 0, "\(again.stderr)")
        _ = try expectOutputLoads(home, "after")
        let manifest = try Manifest.decode(Data(contentsOf: home.appendingPathComponent("out/manifest.json")))
        await #expect(Set(manifest.allowlist) == Set(try StoredState.read(home).allowlist), "every stored entry is in the output")
        #expect(manifest.allowlist.contains("site0.example"))
        print(
            "disk full during a rebuild: \(zip(levels, named).map { "\($0.0) B free: \($0.1)" }.joined(separator: "; ")); "
                + "recovered by the next allowlist add in \(String(format: "%.2f", recovery)) s")
    }

    /// 100,000 numbers, one a line (1.6 MB), replacing a list of 10,000.
    static let importedNumbers = 100_000

    @Test(.timeLimit(.minutes(5)))
    func aCallListImportOnAFullDiskKeepsTheOldListsAndTheNextOneSucceeds() async throws {
        try await Self.onDisk(megabytes: 24) { disk in try await Self.callsImport(disk: disk) }
    }

    static func callsImport(disk: SmallDisk) async throws {
        let home = disk.url.appendingPathComponent("home")
        // The import files live on the ordinary disk: only the home is on the full one.
        let files = TestPaths.temporaryDirectory("disk-full-numbers")
        defer { try? FileManager.default.removeItem(at: files) }
        let small = files.appendingPathComponent("small.txt")
        try "+1 425 555 ####\n".write(to: small, atomically: true, encoding: .utf8)
        let large = files.appendingPathComponent("large.txt")
        try (0..<importedNumbers).map { "+1 206 \(200 + $0 / 10_000) \(String(format: "%04d", $0 % 10_000))" }.joined(separator: "\n")
            .write(to: large, atomically: true, encoding: .utf8)
        let first = try await PepperProcess.run(["calls", "import", "--replace", small.path], home: home)
        try #require(first.status == 0, "\(first.stderr)")
        let before = try await StoredState.read(home)
        #expect(before.blocks == 10_000)
        let files0 = entries(home)

        var named: [String] = []
        var took: [Double] = []
        for level in levels {
            try disk.fill(leaving: level)
            let what = "calls import with \(level) bytes free"
            let started = Date()
            let run = try await PepperProcess.run(["calls", "import", "--replace", large.path], home: home)
            took.append(Date().timeIntervalSince(started))
            named.append(expectFull(run, home: home, what) ?? "?")
            let now = try await StoredState.read(home)
            #expect(now.integrity == "ok", "\(what): \(now.integrity)")
            #expect(
                now.blocks == before.blocks && now.blockSum == before.blockSum && now.callVersion == before.callVersion,
                "\(what): the old list is not intact: \(now.blocks) numbers, version \(now.callVersion)")
            #expect(entries(home) == files0, "\(what): files left behind: \(entries(home).symmetricDifference(files0))")
            // In use while the disk is still full.
            let check = try await PepperProcess.run(["calls", "check", "+14255550123", "--no-record"], home: home)
            #expect(check.status == 0 && check.stdout.contains("block"), "\(what): \(check.stdout) \(check.stderr)")
        }

        disk.makeRoom()
        let (again, recovery) = try await timed { try await PepperProcess.run(["calls", "import", "--replace", large.path], home: home) }
        #expect(again.status == 0, "\(again.stderr)")
        let after = try await StoredState.read(home)
        #expect(after.integrity == "ok" && after.blocks == importedNumbers && after.callVersion > before.callVersion, "\(after)")
        let wal =
            (try? FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("pepper.sqlite-wal").path)[.size] as? Int) ?? 0
        print(
            "disk full during calls import of \(importedNumbers) numbers: "
                + zip(levels, zip(named, took)).map { "\($0.0) B free: \($0.1.0) after \(String(format: "%.1f", $0.1.1)) s" }
                .joined(separator: "; ")
                + "; recovered by the next import in \(String(format: "%.1f", recovery)) s; WAL afterwards \(wal / 1024) kB")
    }
}
