import Foundation
import Testing

@testable import FilterLists
@testable import Storage

@Suite("State database")
struct StorageTests {
    func temporaryHome() -> PepperHome {
        PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-home-\(UUID())"))
    }

    /// Processes opening a new database at once (a server and the console started together)
    /// each used to apply the same migration, and the second failed ("duplicate column name").
    /// Separate connections on threads of their own race the same way; flock, taken per open
    /// file, serialises them as it does processes.
    @Test func databasesOpenedAtOnceMigrateOnce() async throws {
        for _ in 0..<5 {
            let home = temporaryHome()
            defer { try? FileManager.default.removeItem(at: home.url) }
            let errors = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        await withCheckedContinuation { continuation in
                            Thread.detachNewThread {
                                do {
                                    _ = try PepperDatabase(home: home)
                                    continuation.resume(returning: nil)
                                } catch {
                                    continuation.resume(returning: "\(error)")
                                }
                            }
                        }
                    }
                }
                return await group.reduce(into: [String]()) { if let error = $1 { $0.append(error) } }
            }
            #expect(errors.isEmpty, "\(errors)")
            let database = try PepperDatabase(home: home)
            #expect(try await database.writer.read(PepperDatabase.migrator.hasCompletedMigrations))
        }
    }

    @Test func homeResolutionOrder() {
        #expect(PepperHome.resolve(explicit: "/x", environment: ["PEPPER_HOME": "/y"]).url.path == "/x")
        #expect(PepperHome.resolve(environment: ["PEPPER_HOME": "/y", "HOME": "/h"]).url.path == "/y")
        #expect(PepperHome.resolve(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).url.path == "/d/pepper")
        #expect(PepperHome.resolve(environment: ["HOME": "/h"]).url.path == "/h/.local/share/pepper")
    }

    @Test func allowlistNormalisesRejectsAndPersists() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        do {
            let store = AllowlistStore(database: try PepperDatabase(home: home))
            #expect(try store.add("Example.COM").added)
            #expect(try store.add("example.com").added == false)
            #expect(try store.add("bücher.example").domain == "xn--bcher-kva.example")
            #expect(throws: DomainName.Error.self) { try store.add("https://example.org/") }
            #expect(throws: DomainName.Error.self) { try store.add("10.0.0.1:80") }
            #expect(throws: DomainName.Error.self) { try store.add("*") }
            #expect(throws: DomainName.Error.self) { try store.add("") }
        }
        // A second connection (another process in real life) sees the same rows.
        let reopened = AllowlistStore(database: try PepperDatabase(home: home))
        #expect(try reopened.domains() == ["example.com", "xn--bcher-kva.example"])
        #expect(try reopened.remove("EXAMPLE.com"))
        #expect(try reopened.remove("example.com") == false)
        #expect(try reopened.domains() == ["xn--bcher-kva.example"])

        // Temporary entries apply until they expire.
        try reopened.add("later.example", expiresAt: Date().addingTimeInterval(3_600))
        try reopened.add("gone.example", expiresAt: Date().addingTimeInterval(-1))
        #expect(try reopened.domains() == ["later.example", "xn--bcher-kva.example"])
        #expect(try reopened.entries().count == 3)
    }

    @Test func listSourcesRoundTrip() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = ListSourceStore(database: try PepperDatabase(home: home))
        // A fresh state has the built-in catalogue: EasyList and EasyPrivacy enabled.
        #expect(try store.all().map(\.name) == ["easylist", "easyprivacy", "duckduckgo-tds", "disconnect"])
        #expect(try store.enabled().map(\.name) == ["easylist", "easyprivacy"])
        #expect(try store.all().allSatisfy(\.builtIn))
        var source = try store.insert(ListSource(name: "mine", location: "https://example.org/list.txt", format: "abp"))
        #expect(source.id != nil)
        source.etag = "\"abc\""
        source.enabled = false
        source.categories = ["Advertising", "Social"]
        try store.update(source)
        let stored = try #require(try store.source(named: "mine"))
        #expect(stored.etag == "\"abc\"")
        #expect(stored.categories == ["Advertising", "Social"])
        #expect(!(try store.enabled().contains { $0.name == "mine" }))
        #expect(throws: (any Error).self) { try store.insert(ListSource(name: "mine", location: "/x")) }
        #expect(try store.remove(named: "mine"))
        #expect(try store.source(named: "mine") == nil)
        #expect(ListSource.isValidName("easy-list_2.txt"))
        #expect(!ListSource.isValidName("../etc"))
        #expect(!ListSource.isValidName("Upper"))
    }

    @Test func migrationsAreRecorded() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let applied = try database.writer.read { db in try PepperDatabase.migrator.appliedIdentifiers(db) }
        #expect(applied.contains("v1-allowlist-and-list-sources"))
        #expect(applied.contains("v2-list-catalogue-and-temporary-allowlist"))
        let journal = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }
}
