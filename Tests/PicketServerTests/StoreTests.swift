import Foundation
import Logging
import NIOPosix
import Picket
import PicketServer
import PostgresNIO
import Storage
import Testing

/// The store interface, the same tests on SQLite and PostgreSQL.
@Suite("Picket stores")
struct StoreTests {
    /// Whole seconds: SQLite keeps milliseconds, PostgreSQL microseconds.
    static let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded(.down))

    @Test("records round-trip with every field", arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        let employer = EmployerRecord(
            id: "emp_x", name: "Ünïcødé & Co 'quoted'", industry: "Retail", website: "https://x.example",
            domains: ["b.example", "a.example"],
            status: .approved, createdAt: Self.now)
        let action = ActionRecord(
            id: "act_x", employerId: "emp_x", organization: "Org", actionType: "picket", location: "Here", startDate: Self.now,
            endDate: Self.now.addingTimeInterval(86_400), durationDays: 1, description: "Desc\nline 2", demands: "Dem", contactInfo: "c@x",
            moreInfoUrl: "https://info.example", coordinate: GeoCoordinate(latitude: -33.8688, longitude: 151.2093),
            notificationRadius: 750,
            status: .approved, origin: "import", submittedAt: Self.now, moderatedAt: Self.now)
        let location = LocationRecord(
            id: "loc_x", employerId: "emp_x", actionId: "act_x", kind: .picketSite, name: "Gate", locationType: "gate", address: "1 Road",
            coordinate: GeoCoordinate(latitude: -33.87, longitude: 151.21), notificationRadius: 120, createdAt: Self.now)
        let counts = try await store.importRecords(ImportRecords(employers: [employer], actions: [action], locations: [location]))
        #expect(counts == ImportCounts(employers: 1, actions: 1, locations: 1))
        var expectedEmployer = employer
        expectedEmployer.domains = ["a.example", "b.example"]
        #expect(try await store.employer(id: "emp_x") == expectedEmployer)
        #expect(try await store.action(id: "act_x") == action)
        #expect(try await store.actionStatus(id: "act_x") == .approved)
        #expect(try await store.actionStatus(id: "act_nope") == nil)
        let published = try await store.publishedRecords(now: Self.now)
        #expect(published.employers == [expectedEmployer])
        #expect(published.actions == [action])
        #expect(published.locations == [location])
    }

    @Test("only approved actions that have not ended are published", arguments: StoreKind.allCases)
    func publishedSet(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        let day = 86_400.0
        func action(_ id: String, _ status: ModerationStatus, start: Double, end: Double?) -> ActionRecord {
            ActionRecord(
                id: id, employerId: "emp", actionType: "strike", startDate: Self.now.addingTimeInterval(start * day),
                endDate: end.map { Self.now.addingTimeInterval($0 * day) }, status: status, origin: "import", submittedAt: Self.now)
        }
        _ = try await store.importRecords(
            ImportRecords(
                employers: [EmployerRecord(id: "emp", name: "E", status: .approved)],
                actions: [
                    action("current", .approved, start: -1, end: 1), action("open", .approved, start: -1, end: nil),
                    action("future", .approved, start: 2, end: 3), action("ended", .approved, start: -3, end: -1),
                    action("pending", .pending, start: -1, end: 1), action("rejected", .rejected, start: -1, end: 1),
                ],
                locations: [
                    LocationRecord(
                        id: "site_pending", employerId: "emp", actionId: "pending", kind: .picketSite, coordinate: Fixtures.seattle),
                    LocationRecord(
                        id: "site_current", employerId: "emp", actionId: "current", kind: .picketSite, coordinate: Fixtures.seattle),
                    LocationRecord(id: "store", employerId: "emp", kind: .employerLocation, coordinate: Fixtures.tacoma),
                ]))
        let published = try await store.publishedRecords(now: Self.now)
        #expect(Set(published.actions.map(\.id)) == ["current", "open", "future"])
        #expect(Set(published.locations.map(\.id)) == ["site_current", "store"])
        let before = try await store.revision()
        #expect(try await store.completeEndedActions(now: Self.now) == 1)
        #expect(try await store.actionStatus(id: "ended") == .completed)
        #expect(try await store.revision().content > before.content)
        #expect(try await store.completeEndedActions(now: Self.now) == 0)
        #expect(try await store.completeEndedActions(now: Self.now.addingTimeInterval(1.5 * day)) == 1, "current ends after a day")
    }

    @Test("keys: stored by hash, revoked once, keys revision bumped", arguments: StoreKind.allCases)
    func keys(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        let start = try await store.revision()
        let (key, record) = try await APIKeys.create(scopes: [.writeSubmitStrike, .readMobile, .readMobile], label: "phone", in: store)
        #expect(APIKeyFormat.isWellFormed(key))
        #expect(record.scopes == [.readMobile, .writeSubmitStrike])
        #expect(record.hash == APIKeys.hash(key))
        #expect(record.hash != key && !record.hash.contains(String(key.dropFirst(4))))
        let listed = try await store.apiKeys()
        #expect(listed.count == 1)
        #expect(listed.first?.id == record.id)
        #expect(listed.first?.scopes == [.readMobile, .writeSubmitStrike])
        #expect(listed.first?.label == "phone")
        #expect(listed.first?.revokedAt == nil)
        let afterCreate = try await store.revision()
        #expect(afterCreate.keys > start.keys)
        #expect(afterCreate.content == start.content)
        #expect(try await store.revokeAPIKey(id: record.id, at: Self.now))
        #expect(try await store.revokeAPIKey(id: record.id, at: Self.now) == false)
        #expect(try await store.revokeAPIKey(id: "key_missing", at: Self.now) == false)
        #expect(try await store.apiKeys().first?.revokedAt == Self.now)
        #expect(try await store.revision().keys > afterCreate.keys)
    }

    @Test("submissions and moderation", arguments: StoreKind.allCases)
    func moderation(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        _ = try await store.importRecords(Fixtures.records(now: Self.now))

        // A strike for an employer that exists (other case): the action joins it.
        let existing = try await store.insertStrikeSubmission(
            employer: EmployerRecord(id: "emp_new1", name: "ACME RETAIL", status: .pending),
            action: ActionRecord(
                id: "act_s1", employerId: "emp_new1", actionType: "picket", startDate: Self.now, status: .pending, origin: "submission",
                submittedAt: Self.now.addingTimeInterval(-60)))
        #expect(existing == "emp_a")
        // A new employer with a website.
        let fresh = try await store.insertStrikeSubmission(
            employer: EmployerRecord(id: "emp_new2", name: "Newco", website: "https://WWW.Newco.example/jobs", status: .pending),
            action: ActionRecord(
                id: "act_s2", employerId: "emp_new2", actionType: "strike", startDate: Self.now, status: .pending, origin: "submission",
                submittedAt: Self.now))
        #expect(fresh == "emp_new2")
        try await store.insertSnapshot(
            SnapshotRecord(
                id: "snap_1", actionId: "act_a", coordinate: Fixtures.seattle, address: "Gate 2", notes: "n",
                submittedAt: Self.now.addingTimeInterval(-30)))
        try await store.insertSnapshot(
            SnapshotRecord(id: "snap_2", actionId: "act_s2", coordinate: Fixtures.seattle, submittedAt: Self.now))

        let pending = try await store.pendingSubmissions()
        #expect(pending.map(\.id) == ["act_s1", "snap_1", "act_s2", "snap_2"], "oldest first")
        #expect(pending.map(\.kind) == [.strike, .snapshot, .strike, .snapshot])
        #expect(pending[2].employerName == "Newco")
        #expect(pending[2].website == "https://WWW.Newco.example/jobs")
        #expect(pending[1].address == "Gate 2")

        // A snapshot of a pending action cannot be approved before the action.
        await #expect(throws: PicketStoreError.actionNotApproved("act_s2")) {
            _ = try await store.moderate(id: "snap_2", decision: .approve, at: Self.now, by: "test", reason: nil)
        }
        let before = try await store.revision()
        #expect(
            try await store.moderate(id: "act_s2", decision: .approve, at: Self.now, by: "test", reason: nil)
                == .strike(id: "act_s2", employerId: "emp_new2", status: .approved))
        #expect(try await store.revision().content > before.content)
        #expect(try await store.employer(id: "emp_new2")?.status == .approved)
        #expect(try await store.employer(id: "emp_new2")?.domains == ["newco.example"])
        #expect(try await store.action(id: "act_s2")?.moderatedAt == Self.now)
        let outcome = try await store.moderate(id: "snap_2", decision: .approve, at: Self.now, by: "test", reason: nil)
        #expect(outcome == .snapshot(id: "snap_2", actionId: "act_s2", status: .approved, siteId: "site_2"))
        #expect(try await store.publishedRecords(now: Self.now.addingTimeInterval(1)).locations.contains { $0.id == "site_2" })

        // Rejections publish nothing; deciding twice is an error; unknown ids too.
        let beforeReject = try await store.revision()
        #expect(
            try await store.moderate(
                id: "act_s1", decision: .reject, at: Self.now.addingTimeInterval(1), by: "console:ana", reason: "Duplicate of act_a")
                == .strike(id: "act_s1", employerId: "emp_a", status: .rejected))
        #expect(
            try await store.moderate(id: "snap_1", decision: .reject, at: Self.now, by: "test", reason: nil)
                == .snapshot(id: "snap_1", actionId: "act_a", status: .rejected, siteId: nil))
        #expect(try await store.revision().content == beforeReject.content)
        await #expect(throws: PicketStoreError.alreadyModerated(id: "act_s1", status: .rejected)) {
            _ = try await store.moderate(id: "act_s1", decision: .approve, at: Self.now, by: "test", reason: nil)
        }
        await #expect(throws: PicketStoreError.noSuchSubmission("nothing")) {
            _ = try await store.moderate(id: "nothing", decision: .approve, at: Self.now, by: "test", reason: nil)
        }
        #expect(try await store.pendingSubmissions().isEmpty)
        #expect(try await store.snapshots(actionId: "act_a").map(\.status) == [.rejected])

        // The audit trail: every decision that took effect, newest first, with who, when and why;
        // refused decisions (already moderated, unknown, snapshot before its action) left no row.
        let log = try await store.moderationLog(limit: 10)
        #expect(log.map(\.submissionId) == ["act_s1", "snap_1", "snap_2", "act_s2"])
        #expect(log.map(\.decision) == [.reject, .reject, .approve, .approve])
        #expect(log[0].moderator == "console:ana" && log[0].reason == "Duplicate of act_a")
        #expect(log[0].decidedAt == Self.now.addingTimeInterval(1))
        #expect(log[1].moderator == "test" && log[1].reason == nil)
        #expect(log[3].summary == "Newco" && log[3].kind == .strike)
        #expect(log[2].summary == "Newco (act_s2)" && log[2].kind == .snapshot)
        #expect(try await store.moderationLog(limit: 1).map(\.submissionId) == ["act_s1"])
    }

    @Test("imports replace records by id and check references", arguments: StoreKind.allCases)
    func imports(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        defer { Task { await test.store.close() } }
        let store = test.store
        _ = try await store.importRecords(Fixtures.records(now: Self.now))
        var again = Fixtures.records(now: Self.now)
        again.employers[0].domains = ["acme.example", "new-acme.example"]
        again.employers[0].name = "Acme Retail Group"
        _ = try await store.importRecords(again)
        let published = try await store.publishedRecords(now: Self.now)
        #expect(published.actions.count == 1)
        #expect(published.employers.first?.name == "Acme Retail Group")
        #expect(published.employers.first?.domains == ["acme.example", "new-acme.example"])
        #expect(published.locations.count == 2)

        await #expect(throws: PicketStoreError.missingReference("action act_z: no employer emp_missing")) {
            _ = try await store.importRecords(
                ImportRecords(actions: [
                    ActionRecord(
                        id: "act_z", employerId: "emp_missing", actionType: "strike", startDate: Self.now, status: .approved,
                        origin: "import")
                ]))
        }
        await #expect(throws: PicketStoreError.missingReference("location loc_z: no action act_missing")) {
            _ = try await store.importRecords(
                ImportRecords(locations: [
                    LocationRecord(
                        id: "loc_z", employerId: "emp_a", actionId: "act_missing", kind: .picketSite, coordinate: Fixtures.seattle)
                ]))
        }
        #expect(try await store.action(id: "act_z") == nil, "a failed import writes nothing")
    }

    @Test("opening a store twice runs no migration twice", arguments: StoreKind.allCases)
    func reopening(_ kind: StoreKind) async throws {
        let test = try await kind.makeStore()
        _ = try await test.store.importRecords(Fixtures.records(now: Self.now))
        await test.store.close()
        let again = try await test.reopen()
        defer { Task { await again.close() } }
        #expect(try await again.action(id: "act_a") != nil)
    }

    @Test("SQLite and PostgreSQL have the same tables and columns")
    func schemaParity() async throws {
        let sqlite = try PepperDatabase(
            url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-schema-\(UUID().uuidString.prefix(8)).sqlite"))
        let sqliteColumns: [String: Set<String>] = try await sqlite.writer.read { db in
            var tables: [String: Set<String>] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'picket%'") {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                tables[Self.snakeCase(table)] = Set(columns.map(Self.snakeCase))
            }
            return tables
        }
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresPicketStore.connect(url: url)
        await store.close()
        let components = URLComponents(string: url)!
        let logger = Logger(label: "pepper.test.schema")
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: .init(
                host: components.host!, port: components.port ?? 5432, username: components.user ?? "postgres", password: nil,
                database: String(components.path.dropFirst()), tls: .disable), id: 2, logger: logger)
        var postgresColumns: [String: Set<String>] = [:]
        let rows = try await connection.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name LIKE 'picket%' AND table_name <> 'picket_schema_version'
            """, logger: logger)
        for try await (table, column) in rows.decode((String, String).self) { postgresColumns[table, default: []].insert(column) }
        try await connection.close()
        #expect(postgresColumns == sqliteColumns)
        #expect(sqliteColumns.count == 9)
    }

    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
