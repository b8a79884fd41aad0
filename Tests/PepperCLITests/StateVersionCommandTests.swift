import Foundation
import GRDB
import PepperCLI
import PepperTestSupport
import PicketServer
import Storage
import Testing

/// `pepper --version` names the schema versions, and a state written by a newer Pepper is
/// refused by every command with one line, exit 1, and left as it was.
@Suite("pepper --version and newer states")
struct StateVersionCommandTests {
    @Test func versionSaysTheReleaseThenTheSchemaVersions() async throws {
        let home = TestPaths.temporaryDirectory("version")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(["--version"], home: home)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(outcome.stdout)")
        // The release is the first word (packaging reads it so); the schemas are counted from
        // the migrations themselves.
        #expect(lines[0].split(separator: " ").first.map(String.init) == PepperVersion.current)
        #expect(
            lines[0]
                == "\(PepperVersion.current) (state schema \(PepperDatabase.migrator.migrations.count), Picket PostgreSQL schema \(PostgresPicketStore.schemaVersion))"
        )
        #expect(PepperDatabase.migrator.migrations.count >= 12 && PostgresPicketStore.schemaVersion >= 3)
        #expect(try await PepperProcess.run(["--version"], home: home).stdout == outcome.stdout)
        // Nothing was created to say it.
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("pepper.sqlite").path))
    }

    @Test func aNewerStateIsRefusedByEveryCommandAndLeftAsItWas() async throws {
        let home = TestPaths.temporaryDirectory("newer")
        defer { try? FileManager.default.removeItem(at: home) }
        let url = home.appendingPathComponent("pepper.sqlite")
        do {
            // This Pepper's state, then one more migration by a "newer Pepper", left as that
            // Pepper (with persistent WAL) leaves it.
            let database = try PepperDatabase(url: url)
            try database.write { db in
                try db.execute(sql: "CREATE TABLE futureThing (id INTEGER PRIMARY KEY)")
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v-future-1-from-a-newer-pepper')")
            }
        }
        let before = try Self.files(home)
        let known = PepperDatabase.migrator.migrations.count
        let message =
            "\(url.path) was written by a newer Pepper (schema \(known + 1); this Pepper knows up to \(known) and not v-future-1-from-a-newer-pepper): upgrade Pepper to use it; the file was left unchanged"
        for arguments in [
            ["allowlist", "list"], ["allowlist", "add", "example.com"], ["compile"], ["dns", "stats"], ["calls", "list"],
            ["picket", "keys", "list", "--database", "sqlite:\(url.path)"],
        ] {
            let outcome = try await PepperProcess.run(arguments, home: home)
            #expect(outcome.status == 1, "\(arguments): \(outcome.stdout) \(outcome.stderr)")
            let lines = outcome.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
        }
        #expect(try Self.files(home) == before)
    }

    /// Every file of the folder and its bytes, but the `-shm` (SQLite's shared-memory index,
    /// where every reader leaves its read marks).
    static func files(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
            files[name] = name.hasSuffix("-shm") || isFolder.boolValue ? Data() : try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }
}
