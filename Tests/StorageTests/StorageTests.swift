import Foundation
import Testing

@testable import FilterLists
@testable import Storage

@Suite("State database")
struct StorageTests {
    func temporaryHome() -> PepperHome {
        PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-home-\(UUID())"))
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
    }

    @Test func listSourcesRoundTrip() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = ListSourceStore(database: try PepperDatabase(home: home))
        var source = try store.insert(ListSource(name: "easylist", location: "https://easylist.to/easylist/easylist.txt", format: "abp"))
        #expect(source.id != nil)
        source.etag = "\"abc\""
        source.enabled = false
        try store.update(source)
        #expect(try store.source(named: "easylist")?.etag == "\"abc\"")
        #expect(try store.enabled().isEmpty)
        #expect(throws: (any Error).self) { try store.insert(ListSource(name: "easylist", location: "/x")) }
        #expect(try store.remove(named: "easylist"))
        #expect(try store.all().isEmpty)
    }

    @Test func migrationsAreRecorded() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let applied = try database.writer.read { db in try PepperDatabase.migrator.appliedIdentifiers(db) }
        #expect(applied.contains("v1-allowlist-and-list-sources"))
        let journal = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }
}
