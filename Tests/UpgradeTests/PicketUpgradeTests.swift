import Foundation
import Picket
import PicketTestSupport
import Storage
import Testing

@testable import PicketServer

/// Picket stores written by earlier Peppers' `picket` commands, on SQLite (the fixture's
/// `pepper.sqlite`) and on PostgreSQL (the old server's `pg_dump`, restored into a fresh
/// database): the current server serves their approved actions to their key.
@Suite("Upgrades: Picket stores written by earlier Peppers")
struct PicketUpgradeTests {
    static let sqliteFixtures = UpgradeFixture.all.filter { !$0.records("picket-sqlite").isEmpty }
    static let postgresFixtures = UpgradeFixture.all.filter { $0.postgresDump != nil }

    @Test func everyPostgreSQLSchemaVersionHasAFixture() throws {
        // The versions each dump's old server had applied, read from the dump itself.
        var versions = Set<String>()
        for fixture in Self.postgresFixtures {
            let dump = try String(contentsOf: try #require(fixture.postgresDump), encoding: .utf8)
            versions.formUnion(PostgresDump.rows(of: "picket_schema_version", in: dump).compactMap(\.first))
        }
        #expect(Set(PostgresSchema.migrations.map(\.version)).subtracting(versions).isEmpty, "no dump applied \(versions)")
        #expect(!Self.sqliteFixtures.isEmpty)
    }

    @Test(arguments: sqliteFixtures)
    func theSQLiteStoreServesTheOldRecords(_ fixture: UpgradeFixture) async throws {
        let home = try fixture.copyHome()
        defer { UpgradeFixture.discard(home) }
        // As `pepper picket serve --database sqlite:PATH` opens it.
        let store = try await PicketDatabase.open(
            .sqlite(path: home.appendingPathComponent("pepper.sqlite").path), home: PepperHome(url: home))
        try await Self.check(
            store, records: fixture.records("picket-sqlite"), loggedModeration: fixture.hadMigration("v-picket-2-moderation-log"))
        await store.close()
    }

    @Test(arguments: postgresFixtures)
    func thePostgreSQLStoreServesTheOldRecords(_ fixture: UpgradeFixture) async throws {
        let dump = try #require(fixture.postgresDump)
        let url = try await PostgresDump.restore(dump)
        let store = try await PostgresPicketStore.connect(url: url)
        do {
            let versions = try await PostgresDump.query(url, "SELECT version FROM picket_schema_version ORDER BY version")
            #expect(Set(versions) == Set(PostgresSchema.migrations.map(\.version)))
            try await Self.check(
                store, records: fixture.records("picket-postgres"), loggedModeration: fixture.hadMigration("v-picket-2-moderation-log"))
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The store has the old records, and the current server over it serves them to the old key.
    /// `loggedModeration`: the old Pepper kept the moderation audit trail (`v-picket-2`).
    static func check(_ store: any PicketStore, records: [UpgradeFixture.Record], loggedModeration: Bool) async throws {
        let published = try await store.publishedRecords(now: Date())
        let actions = records.filter { $0[0] == "action" }.map { $0[1] }
        #expect(actions.count >= 1)
        for id in actions {
            #expect(published.actions.contains { $0.id == id && $0.status == .approved }, "\(id) is not published")
        }
        for record in records where record[0] == "domain" {
            let employer = try #require(published.employers.first { $0.id == record[2] }, "employer \(record[2])")
            #expect(employer.domains.contains(record[1]))
        }
        for record in records where record[0] == "snapshot" {
            let snapshots = try await store.snapshots(actionId: record[2])
            #expect(snapshots.contains { $0.id == record[1] && $0.status == .approved }, "snapshot \(record[1]): \(snapshots)")
        }
        // The old approvals in the audit trail, when the old Pepper kept one (else it starts empty).
        let log = try await store.moderationLog(limit: 100)
        let approved = records.filter { ($0[0] == "action" && $0[1] != "act_upgrade") || $0[0] == "snapshot" }.map { $0[1] }
        #expect(!approved.isEmpty)
        for id in approved {
            #expect(log.contains { $0.submissionId == id && $0.decision == .approve } == loggedModeration, "\(id) in \(log)")
        }
        let key = try #require(records.first { $0[0] == "key" }?[1])
        let stored = try await store.apiKeys()
        #expect(stored.contains { $0.hash == APIKeys.hash(key) && $0.revokedAt == nil })

        let server = try await LoopbackPicketServer.start(store: store)
        let strikes = try await server.client(key).activeStrikes()
        for id in actions { #expect(strikes.strikes.contains { $0.id == id }, "the server does not serve \(id) to the old key") }
        // The key is what lets the client in: another one is refused.
        await #expect(throws: PicketClientError.self) {
            _ = try await server.client(APIKeys.generate()).activeStrikes()
        }
        await server.stop()
    }
}
