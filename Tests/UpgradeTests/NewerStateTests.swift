import Crypto
import Foundation
import GRDB
import PepperActions
import Picket
import Storage
import Testing

@testable import PicketServer

/// A state written by a newer Pepper (one with a migration this Pepper does not know) is
/// refused with a typed error that says so, and left as it was: no byte of the database or its
/// write-ahead log changes, and no file appears beside it.
@Suite("Upgrades: a newer state is refused, never changed")
struct NewerStateTests {
    static let futureMigration = "v-future-1-from-a-newer-pepper"

    /// How the newer Pepper left its state.
    enum Layout: String, CaseIterable, CustomTestStringConvertible {
        /// As a newer Pepper with persistent WAL leaves it: `-wal` (with frames) and `-shm` beside it.
        case asLeftByNewerPepper
        /// Copied as one file (a backup, another machine): no `-wal`, no `-shm`.
        case oneFile

        var testDescription: String { rawValue }
    }

    /// A state this Pepper made, then migrated once more by a "newer Pepper": a table and the
    /// migration's identifier, as GRDB records it.
    static func newerState(_ layout: Layout) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-newer-\(UUID().uuidString.prefix(8))")
        let url = folder.appendingPathComponent("pepper.sqlite")
        do {
            let database = try PepperDatabase(url: url)
            try AllowlistStore(database: database).add("kept.example")
            try database.writer.write { db in
                try db.execute(sql: "CREATE TABLE futureThing (id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO futureThing (note) VALUES ('from the future')")
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [futureMigration])
            }
        }
        switch layout {
        case .asLeftByNewerPepper:
            // Its lock file stays too: every open leaves it.
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
            #expect(FileManager.default.fileExists(atPath: url.path + "-shm"))
        case .oneFile:
            // A connection without persistent WAL checkpoints and removes the log when it closes.
            try DatabaseQueue(path: url.path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try FileManager.default.removeItem(atPath: url.path + ".migration-lock")
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        }
        return url
    }

    /// SHA-256 of each file in the folder of `url` but the `-shm` (SQLite's shared-memory
    /// index, where every reader, even a read-only one, leaves its read marks), and which files
    /// there are.
    static func snapshot(_ url: URL) throws -> [String: String] {
        let folder = url.deletingLastPathComponent()
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let data = name.hasSuffix("-shm") ? Data() : try Data(contentsOf: folder.appendingPathComponent(name))
            files[name] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        return files
    }

    static func expectNewer(_ error: PepperDatabaseError?, path: String) {
        guard case .newer(let errorPath, let schema, let known, let unknown) = error else {
            Issue.record("expected PepperDatabaseError.newer, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(known == PepperDatabase.schemaVersion)
        #expect(schema == PepperDatabase.schemaVersion + 1)
        #expect(unknown == [futureMigration])
        #expect(
            error?.description
                == "\(path) was written by a newer Pepper (schema \(known + 1); this Pepper knows up to \(known) and not \(futureMigration)): upgrade Pepper to use it; the file was left unchanged"
        )
    }

    @Test(arguments: Layout.allCases)
    func theWritableOpenRefusesIt(_ layout: Layout) throws {
        let url = try Self.newerState(layout)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Self.snapshot(url)
        let error = #expect(throws: PepperDatabaseError.self) { try PepperDatabase(url: url) }
        Self.expectNewer(error, path: url.path)
        #expect(try Self.snapshot(url) == before)
    }

    @Test(arguments: Layout.allCases)
    func theReadOnlyOpenRefusesIt(_ layout: Layout) throws {
        let url = try Self.newerState(layout)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Self.snapshot(url)
        let error = #expect(throws: PepperDatabaseError.self) { try PepperDatabase(readingOnly: url) }
        Self.expectNewer(error, path: url.path)
        #expect(try Self.snapshot(url) == before)
    }

    @Test func theStateRefusesItBeforeTouchingTheHome() throws {
        let url = try Self.newerState(.oneFile)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let home = PepperHome(url: url.deletingLastPathComponent())
        let before = try Self.snapshot(url)
        let error = #expect(throws: ActionError.self) { try PepperState(home: home) }
        #expect(error?.description.contains("was written by a newer Pepper (schema \(PepperDatabase.schemaVersion + 1);") == true)
        // Not even lists/ and out/ were made.
        #expect(try Self.snapshot(url) == before)
    }

    @Test func theSQLitePicketStoreRefusesIt() async throws {
        let url = try Self.newerState(.asLeftByNewerPepper)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Self.snapshot(url)
        let error = await #expect(throws: PepperDatabaseError.self) {
            _ = try await PicketDatabase.open(.sqlite(path: url.path), home: PepperHome(url: url.deletingLastPathComponent()))
        }
        Self.expectNewer(error, path: url.path)
        #expect(try Self.snapshot(url) == before)
    }

    @Test func thePostgreSQLPicketStoreRefusesIt() async throws {
        let url = try await PostgresDump.freshDatabase()
        let store = try await PostgresPicketStore.connect(url: url)
        await store.close()
        let future = "v-picket-9-from-a-newer-pepper"
        try await PostgresDump.psql(
            url,
            [
                "-c", "CREATE TABLE picket_future (id BIGSERIAL PRIMARY KEY)", "-c",
                "INSERT INTO picket_schema_version (version) VALUES ('\(future)')",
            ])
        let everything = """
            SELECT string_agg(table_name || ':' || column_name, ',' ORDER BY table_name, column_name) FROM information_schema.columns
            WHERE table_schema = 'public'
            """
        let before =
            try await PostgresDump.query(url, everything) + PostgresDump.query(url, "SELECT version FROM picket_schema_version ORDER BY 1")
        let error = await #expect(throws: PicketStoreError.self) { _ = try await PostgresPicketStore.connect(url: url) }
        guard case .newerSchema(_, let schema, let known, let unknown) = error else {
            Issue.record("expected PicketStoreError.newerSchema, got \(String(describing: error))")
            return
        }
        #expect(schema == PostgresSchema.version + 1)
        #expect(known == PostgresSchema.version)
        #expect(unknown == [future])
        #expect(
            error?.description.contains("was written by a newer Pepper (Picket schema \(known + 1); this Pepper knows up to \(known)")
                == true)
        let after =
            try await PostgresDump.query(url, everything) + PostgresDump.query(url, "SELECT version FROM picket_schema_version ORDER BY 1")
        #expect(after == before)
    }

    @Test func theSchemaVersionsComeFromTheMigrations() {
        #expect(PepperDatabase.schemaVersion == PepperDatabase.migrator.migrations.count)
        #expect(PepperDatabase.schemaVersion >= 12)
        #expect(PostgresPicketStore.schemaVersion == PostgresSchema.migrations.count)
        #expect(PostgresPicketStore.schemaVersion >= 3)
    }
}
