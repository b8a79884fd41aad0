import Foundation
import Logging
import NIOSSL
import Picket
import PostgresNIO

/// The Picket server's data in PostgreSQL, for deployments that run several servers against
/// one database. Connections come from postgres-nio's pool; every method is one transaction.
public final class PostgresPicketStore: PicketStore {
    private let client: PostgresClient
    /// The client's run loop when the store runs it itself (``connect(url:logger:)``); `nil`
    /// when a `ServiceGroup` runs ``client`` (``unstarted(url:logger:)``).
    private let runner: Task<Void, Never>?
    private let url: String
    private let location: PostgresLocation
    private let logger: Logger

    public var kind: String { "postgresql" }

    private init(client: PostgresClient, runner: Task<Void, Never>?, url: String, location: PostgresLocation, logger: Logger) {
        self.client = client
        self.runner = runner
        self.url = url
        self.location = location
        self.logger = logger
    }

    /// Connects to `url` (`postgres://user:password@host:port/database?sslmode=disable|prefer|require`)
    /// and applies pending migrations. The store runs its connection pool itself until
    /// ``close()``: for one-shot commands.
    public static func connect(url: String, logger: Logger = Logger(label: "pepper.picket.postgres")) async throws -> PostgresPicketStore {
        let (client, location, quiet) = try makeClient(url: url, logger: logger)
        let runner = Task { await client.run() }
        let store = PostgresPicketStore(client: client, runner: runner, url: url, location: location, logger: quiet)
        do {
            try await store.migrate()
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// A store whose connection pool (`service`) runs as a `Service` of the caller's
    /// `ServiceGroup`, which also stops it: call ``migrate()`` once the group runs, before
    /// anything else (queries wait until the pool runs).
    public static func unstarted(
        url: String, logger: Logger = Logger(label: "pepper.picket.postgres")
    ) throws -> (store: PostgresPicketStore, service: PostgresClient) {
        let (client, location, quiet) = try makeClient(url: url, logger: logger)
        return (PostgresPicketStore(client: client, runner: nil, url: url, location: location, logger: quiet), client)
    }

    private static func makeClient(url: String, logger: Logger) throws -> (PostgresClient, PostgresLocation, Logger) {
        var quiet = logger
        quiet.logLevel = .critical
        let location = try PostgresLocation(url)
        return (PostgresClient(configuration: location.configuration(), backgroundLogger: quiet), location, quiet)
    }

    /// Applies pending migrations (the connection pool must be running).
    public func migrate() async throws {
        do {
            // One connection of its own first: a server that is down or refuses the login fails
            // here within the connect timeout, with its reason, where the pool would retry for
            // a minute and then say only that it gave up.
            let probe = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger)
            try await probe.close()
            try await PostgresSchema.migrate(client, logger: logger)
        } catch let error as PostgresSchemaError {
            throw PicketStoreError.newerSchema(
                database: PostgresLocation.redacted(url), schema: error.schema, known: error.known, unknown: error.unknown)
        } catch {
            throw PicketStoreError.database("cannot prepare PostgreSQL at \(PostgresLocation.redacted(url)): \(Self.describe(error))")
        }
    }

    /// The PostgreSQL schema version this Pepper writes: how many migrations it knows
    /// (`pepper --version` shows it).
    public static var schemaVersion: Int { PostgresSchema.version }

    /// Stops the connection pool the store runs itself (nothing when a `ServiceGroup` runs it).
    public func close() async {
        runner?.cancel()
        await runner?.value
    }

    // MARK: Reads

    public func revision() async throws -> PicketRevision {
        try await run { connection in try await self.revision(connection) }
    }

    private func revision(_ connection: PostgresConnection) async throws -> PicketRevision {
        let rows = try await self.rows(
            "SELECT content_revision, keys_revision, content_changed_at FROM picket_state WHERE id = 1", connection)
        guard let row = rows.first else { return PicketRevision(content: 0, keys: 0) }
        return PicketRevision(
            content: try row.int64("content_revision"), keys: try row.int64("keys_revision"),
            contentChangedAt: try row.optionalDate("content_changed_at"))
    }

    public func publishedRecords(now: Date) async throws -> PublishedRecords {
        try await transaction { connection in
            // One snapshot of the database for the three reads.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
            let actions = try await self.rows(
                """
                SELECT * FROM picket_action WHERE status = 'approved' AND (end_date IS NULL OR end_date > \(now))
                ORDER BY start_date DESC, id
                """, connection
            ).map(Self.action)
            let employerIDs = Array(Set(actions.map(\.employerId))).sorted()
            let employers = try await self.employers(ids: employerIDs, connection)
            let actionIDs = Set(actions.map(\.id))
            let locations = try await self.rows(
                "SELECT * FROM picket_location WHERE employer_id = ANY(\(employerIDs)) ORDER BY id", connection
            ).map(Self.location).filter { location in location.actionId.map(actionIDs.contains) ?? true }
            return PublishedRecords(
                employers: employers, actions: actions, locations: locations, revision: try await self.revision(connection))
        }
    }

    public func apiKeys() async throws -> [APIKeyRecord] {
        try await run { connection in
            try await self.rows("SELECT * FROM picket_api_key ORDER BY created_at, id", connection).map { row in
                APIKeyRecord(
                    id: try row.string("id"), hash: try row.string("hash"),
                    scopes: try row.string("scopes").split(separator: " ").compactMap { APIScope(rawValue: String($0)) },
                    label: try row.optionalString("label"), createdAt: try row.date("created_at"),
                    revokedAt: try row.optionalDate("revoked_at"))
            }
        }
    }

    public func actionStatus(id: String) async throws -> ModerationStatus? {
        try await run { connection in
            try await self.rows("SELECT status FROM picket_action WHERE id = \(id)", connection).first.flatMap {
                ModerationStatus(rawValue: try $0.string("status"))
            }
        }
    }

    public func pendingSubmissions() async throws -> [ModerationItem] {
        try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
            var items: [(submittedAt: Date, item: ModerationItem)] = []
            let strikes = try await self.rows(
                """
                SELECT a.*, e.name AS employer_name, e.website AS employer_website FROM picket_action a
                JOIN picket_employer e ON e.id = a.employer_id WHERE a.status = 'pending'
                """, connection)
            for row in strikes {
                let action = try Self.action(row)
                items.append(
                    (
                        action.submittedAt,
                        ModerationItem(
                            strike: action, employerName: try row.string("employer_name"),
                            website: try row.optionalString("employer_website"))
                    ))
            }
            for row in try await self.rows("SELECT * FROM picket_snapshot WHERE status = 'pending'", connection) {
                let snapshot = try Self.snapshot(row)
                items.append((snapshot.submittedAt, ModerationItem(snapshot: snapshot)))
            }
            return ModerationItem.queue(items)
        }
    }

    public func action(id: String) async throws -> ActionRecord? {
        try await run { connection in
            try await self.rows("SELECT * FROM picket_action WHERE id = \(id)", connection).first.map(Self.action)
        }
    }

    public func employer(id: String) async throws -> EmployerRecord? {
        try await run { connection in try await self.employers(ids: [id], connection).first }
    }

    public func snapshots(actionId: String) async throws -> [SnapshotRecord] {
        try await run { connection in
            try await self.rows("SELECT * FROM picket_snapshot WHERE action_id = \(actionId) ORDER BY submitted_at, id", connection)
                .map(Self.snapshot)
        }
    }

    // MARK: Writes

    public func completeEndedActions(now: Date) async throws -> Int {
        try await transaction { connection in
            let ended = try await self.rows(
                """
                UPDATE picket_action SET status = 'completed'
                WHERE status = 'approved' AND end_date IS NOT NULL AND end_date <= \(now) RETURNING id
                """, connection
            ).count
            if ended > 0 { try await self.bumpContent(connection) }
            return ended
        }
    }

    public func insertAPIKey(_ key: APIKeyRecord) async throws {
        try await transaction { connection in
            let scopes = key.scopes.map(\.rawValue).joined(separator: " ")
            try await connection.query(
                """
                INSERT INTO picket_api_key (id, hash, scopes, label, created_at, revoked_at)
                VALUES (\(key.id), \(key.hash), \(scopes), \(key.label), \(key.createdAt), \(key.revokedAt))
                """, logger: self.logger)
            try await connection.query("UPDATE picket_state SET keys_revision = keys_revision + 1 WHERE id = 1", logger: self.logger)
        }
    }

    public func revokeAPIKey(id: String, at date: Date) async throws -> Bool {
        try await transaction { connection in
            let revoked = try await self.rows(
                "UPDATE picket_api_key SET revoked_at = \(date) WHERE id = \(id) AND revoked_at IS NULL RETURNING id", connection
            ).count
            guard revoked > 0 else { return false }
            try await connection.query("UPDATE picket_state SET keys_revision = keys_revision + 1 WHERE id = 1", logger: self.logger)
            return true
        }
    }

    public func insertSnapshot(_ snapshot: SnapshotRecord) async throws {
        try await transaction { connection in
            try await self.insert(snapshot, connection)
        }
    }

    public func insertStrikeSubmission(employer: EmployerRecord, action: ActionRecord) async throws -> String {
        try await transaction { connection in
            var action = action
            let existing = try await self.rows(
                """
                SELECT id FROM picket_employer WHERE lower(name) = lower(\(employer.name))
                ORDER BY status = 'approved' DESC, created_at LIMIT 1
                """, connection)
            if let row = existing.first {
                action.employerId = try row.string("id")
            } else {
                try await self.upsert(employer, connection)
                action.employerId = employer.id
            }
            try await self.upsert(action, connection)
            return action.employerId
        }
    }

    public func moderate(
        id: String, decision: ModerationDecision, at date: Date, by moderator: String, reason: String?
    ) async throws -> ModerationOutcome {
        try await transaction { connection in
            let outcome = try await self.decide(id: id, decision: decision, at: date, connection)
            let kind = outcome.kind.rawValue
            let summaryQuery: PostgresQuery
            switch outcome {
            case .strike(_, let employerId, _):
                summaryQuery = "SELECT name FROM picket_employer WHERE id = \(employerId)"
            case .snapshot(_, let actionId, _, _):
                summaryQuery = """
                    SELECT e.name || ' (' || a.id || ')' AS name FROM picket_action a JOIN picket_employer e ON e.id = a.employer_id
                    WHERE a.id = \(actionId)
                    """
            }
            let summary = try await self.rows(summaryQuery, connection).first.map { try $0.string("name") } ?? "?"
            try await connection.query(
                """
                INSERT INTO picket_moderation (submission_id, kind, decision, moderator, reason, decided_at, summary)
                VALUES (\(id), \(kind), \(decision.rawValue), \(moderator), \(reason), \(date), \(summary))
                """, logger: self.logger)
            return outcome
        }
    }

    public func moderationLog(limit: Int) async throws -> [ModerationLogEntry] {
        try await run { connection in
            try await self.rows(
                "SELECT * FROM picket_moderation ORDER BY decided_at DESC, id DESC LIMIT \(max(0, limit))", connection
            ).compactMap { row in
                // A kind or decision this version does not know (a newer Pepper wrote it) is left out.
                guard let kind = ModerationKind(rawValue: try row.string("kind")),
                    let decision = ModerationDecision(rawValue: try row.string("decision"))
                else { return nil }
                return ModerationLogEntry(
                    submissionId: try row.string("submission_id"), kind: kind, decision: decision,
                    moderator: try row.string("moderator"), reason: try row.optionalString("reason"),
                    decidedAt: try row.date("decided_at"), summary: try row.string("summary"))
            }
        }
    }

    private func decide(
        id: String, decision: ModerationDecision, at date: Date, _ connection: PostgresConnection
    ) async throws -> ModerationOutcome {
        if let row = try await self.rows("SELECT * FROM picket_action WHERE id = \(id) FOR UPDATE", connection).first {
            let action = try Self.action(row)
            guard action.status == .pending else { throw PicketStoreError.alreadyModerated(id: id, status: action.status) }
            let status: ModerationStatus = decision == .approve ? .approved : .rejected
            try await connection.query(
                "UPDATE picket_action SET status = \(status.rawValue), moderated_at = \(date) WHERE id = \(id)", logger: self.logger)
            if decision == .approve {
                try await connection.query(
                    "UPDATE picket_employer SET status = 'approved' WHERE id = \(action.employerId)", logger: self.logger)
                let website = try await self.rows("SELECT website FROM picket_employer WHERE id = \(action.employerId)", connection)
                    .first.flatMap { try $0.optionalString("website") }
                if let website, let host = BlocklistMatcher.normalizedHost(website) {
                    try await connection.query(
                        """
                        INSERT INTO picket_employer_domain (employer_id, domain) VALUES (\(action.employerId), \(host))
                        ON CONFLICT DO NOTHING
                        """, logger: self.logger)
                }
                try await self.bumpContent(connection)
            }
            return .strike(id: id, employerId: action.employerId, status: status)
        }
        if let row = try await self.rows("SELECT * FROM picket_snapshot WHERE id = \(id) FOR UPDATE", connection).first {
            let snapshot = try Self.snapshot(row)
            guard snapshot.status == .pending else { throw PicketStoreError.alreadyModerated(id: id, status: snapshot.status) }
            guard decision == .approve else {
                try await connection.query(
                    "UPDATE picket_snapshot SET status = 'rejected', moderated_at = \(date) WHERE id = \(id)", logger: self.logger)
                return .snapshot(id: id, actionId: snapshot.actionId, status: .rejected, siteId: nil)
            }
            guard let actionRow = try await self.rows("SELECT * FROM picket_action WHERE id = \(snapshot.actionId)", connection).first,
                try Self.action(actionRow).status == .approved
            else { throw PicketStoreError.actionNotApproved(snapshot.actionId) }
            let action = try Self.action(actionRow)
            try await connection.query(
                "UPDATE picket_snapshot SET status = 'approved', moderated_at = \(date) WHERE id = \(id)", logger: self.logger)
            let site = LocationRecord(
                id: id.hasPrefix("snap_") ? "site_" + id.dropFirst(5) : "site_" + id, employerId: action.employerId,
                actionId: action.id, kind: .picketSite, name: snapshot.address ?? snapshot.notes.map { String($0.prefix(120)) },
                address: snapshot.address, coordinate: snapshot.coordinate, createdAt: date)
            try await self.upsert(site, connection)
            try await self.bumpContent(connection)
            return .snapshot(id: id, actionId: snapshot.actionId, status: .approved, siteId: site.id)
        }
        throw PicketStoreError.noSuchSubmission(id)
    }

    public func importRecords(_ records: ImportRecords) async throws -> ImportCounts {
        try await transaction { connection in
            for employer in records.employers {
                try await self.upsert(employer, connection)
                try await connection.query("DELETE FROM picket_employer_domain WHERE employer_id = \(employer.id)", logger: self.logger)
                let domains = Array(Set(employer.domains)).sorted()
                if !domains.isEmpty {
                    try await connection.query(
                        "INSERT INTO picket_employer_domain (employer_id, domain) SELECT \(employer.id), unnest(\(domains)::text[])",
                        logger: self.logger)
                }
            }
            for action in records.actions {
                guard try await !self.rows("SELECT 1 AS found FROM picket_employer WHERE id = \(action.employerId)", connection).isEmpty
                else {
                    throw PicketStoreError.missingReference("action \(action.id): no employer \(action.employerId)")
                }
                try await self.upsert(action, connection)
            }
            for location in records.locations {
                guard try await !self.rows("SELECT 1 AS found FROM picket_employer WHERE id = \(location.employerId)", connection).isEmpty
                else { throw PicketStoreError.missingReference("location \(location.id): no employer \(location.employerId)") }
                if let actionId = location.actionId,
                    try await self.rows("SELECT 1 AS found FROM picket_action WHERE id = \(actionId)", connection).isEmpty
                {
                    throw PicketStoreError.missingReference("location \(location.id): no action \(actionId)")
                }
                try await self.upsert(location, connection)
            }
            try await self.bumpContent(connection)
            return ImportCounts(employers: records.employers.count, actions: records.actions.count, locations: records.locations.count)
        }
    }

    // MARK: Plumbing

    private func run<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch let error as PicketStoreError {
            throw error
        } catch {
            throw PicketStoreError.database(Self.describe(error))
        }
    }

    private func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? PicketStoreError { throw inner }
            throw PicketStoreError.database(Self.describe(error.closureError ?? error.commitError ?? error.beginError ?? error))
        } catch let error as PicketStoreError {
            throw error
        } catch {
            throw PicketStoreError.database(Self.describe(error))
        }
    }

    /// PSQLError hides the server's message from `description`; show it (it never holds secrets).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            // A failed connection says why underneath (refused, no such host, a TLS failure).
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return String(describing: error)
    }

    private func rows(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
        return rows
    }

    /// Records that what clients are served changed, and when (the database's clock, which
    /// every server on it shares; see ``PicketRevision``).
    private func bumpContent(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE picket_state SET content_revision = content_revision + 1, content_changed_at = now() WHERE id = 1", logger: logger)
    }

    private func employers(ids: [String], _ connection: PostgresConnection) async throws -> [EmployerRecord] {
        guard !ids.isEmpty else { return [] }
        var domains: [String: [String]] = [:]
        for row in try await rows(
            "SELECT employer_id, domain FROM picket_employer_domain WHERE employer_id = ANY(\(ids)) ORDER BY domain", connection)
        {
            domains[try row.string("employer_id"), default: []].append(try row.string("domain"))
        }
        return try await rows("SELECT * FROM picket_employer WHERE id = ANY(\(ids)) ORDER BY id", connection).map { row in
            let id = try row.string("id")
            return EmployerRecord(
                id: id, name: try row.string("name"), industry: try row.optionalString("industry"),
                website: try row.optionalString("website"),
                domains: domains[id] ?? [], status: ModerationStatus(rawValue: try row.string("status")) ?? .pending,
                createdAt: try row.date("created_at"))
        }
    }

    private static func action(_ row: PostgresRandomAccessRow) throws -> ActionRecord {
        let latitude = try row.optionalDouble("latitude")
        let longitude = try row.optionalDouble("longitude")
        return ActionRecord(
            id: try row.string("id"), employerId: try row.string("employer_id"), organization: try row.optionalString("organization"),
            actionType: try row.string("action_type"), location: try row.optionalString("location"), startDate: try row.date("start_date"),
            endDate: try row.optionalDate("end_date"), durationDays: try row.optionalInt("duration_days"),
            description: try row.optionalString("description"), demands: try row.optionalString("demands"),
            contactInfo: try row.optionalString("contact_info"), moreInfoUrl: try row.optionalString("more_info_url"),
            coordinate: latitude.flatMap { latitude in longitude.map { GeoCoordinate(latitude: latitude, longitude: $0) } },
            notificationRadius: try row.optionalInt("notification_radius"),
            status: ModerationStatus(rawValue: try row.string("status")) ?? .pending, origin: try row.string("origin"),
            submittedAt: try row.date("submitted_at"), moderatedAt: try row.optionalDate("moderated_at"))
    }

    private static func location(_ row: PostgresRandomAccessRow) throws -> LocationRecord {
        LocationRecord(
            id: try row.string("id"), employerId: try row.string("employer_id"), actionId: try row.optionalString("action_id"),
            kind: GeofenceKind(rawValue: try row.string("kind")) ?? .employerLocation, name: try row.optionalString("name"),
            locationType: try row.optionalString("location_type"), address: try row.optionalString("address"),
            coordinate: GeoCoordinate(latitude: try row.double("latitude"), longitude: try row.double("longitude")),
            notificationRadius: try row.optionalInt("notification_radius"), createdAt: try row.date("created_at"))
    }

    private static func snapshot(_ row: PostgresRandomAccessRow) throws -> SnapshotRecord {
        SnapshotRecord(
            id: try row.string("id"), actionId: try row.string("action_id"),
            coordinate: GeoCoordinate(latitude: try row.double("latitude"), longitude: try row.double("longitude")),
            address: try row.optionalString("address"), notes: try row.optionalString("notes"),
            status: ModerationStatus(rawValue: try row.string("status")) ?? .pending, submittedAt: try row.date("submitted_at"),
            moderatedAt: try row.optionalDate("moderated_at"))
    }

    private func upsert(_ employer: EmployerRecord, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO picket_employer (id, name, industry, website, status, created_at)
            VALUES (\(employer.id), \(employer.name), \(employer.industry), \(employer.website), \(employer.status.rawValue), \(employer.createdAt))
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, industry = excluded.industry, website = excluded.website,
            status = excluded.status
            """, logger: logger)
    }

    private func upsert(_ action: ActionRecord, _ connection: PostgresConnection) async throws {
        let latitude = action.coordinate?.latitude
        let longitude = action.coordinate?.longitude
        try await connection.query(
            """
            INSERT INTO picket_action (id, employer_id, organization, action_type, location, start_date, end_date, duration_days,
            description, demands, contact_info, more_info_url, latitude, longitude, notification_radius, status, origin, submitted_at,
            moderated_at) VALUES (\(action.id), \(action.employerId), \(action.organization), \(action.actionType), \(action.location),
            \(action.startDate), \(action.endDate), \(action.durationDays), \(action.description), \(action.demands), \(action.contactInfo),
            \(action.moreInfoUrl), \(latitude), \(longitude), \(action.notificationRadius), \(action.status.rawValue), \(action.origin),
            \(action.submittedAt), \(action.moderatedAt))
            ON CONFLICT (id) DO UPDATE SET employer_id = excluded.employer_id, organization = excluded.organization,
            action_type = excluded.action_type, location = excluded.location, start_date = excluded.start_date,
            end_date = excluded.end_date, duration_days = excluded.duration_days, description = excluded.description,
            demands = excluded.demands, contact_info = excluded.contact_info, more_info_url = excluded.more_info_url,
            latitude = excluded.latitude, longitude = excluded.longitude, notification_radius = excluded.notification_radius,
            status = excluded.status, origin = excluded.origin, moderated_at = excluded.moderated_at
            """, logger: logger)
    }

    private func upsert(_ location: LocationRecord, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO picket_location (id, employer_id, action_id, kind, name, location_type, address, latitude, longitude,
            notification_radius, created_at) VALUES (\(location.id), \(location.employerId), \(location.actionId),
            \(location.kind.rawValue), \(location.name), \(location.locationType), \(location.address), \(location.coordinate.latitude),
            \(location.coordinate.longitude), \(location.notificationRadius), \(location.createdAt))
            ON CONFLICT (id) DO UPDATE SET employer_id = excluded.employer_id, action_id = excluded.action_id, kind = excluded.kind,
            name = excluded.name, location_type = excluded.location_type, address = excluded.address, latitude = excluded.latitude,
            longitude = excluded.longitude, notification_radius = excluded.notification_radius
            """, logger: logger)
    }

    private func insert(_ snapshot: SnapshotRecord, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO picket_snapshot (id, action_id, latitude, longitude, address, notes, status, submitted_at, moderated_at)
            VALUES (\(snapshot.id), \(snapshot.actionId), \(snapshot.coordinate.latitude), \(snapshot.coordinate.longitude),
            \(snapshot.address), \(snapshot.notes), \(snapshot.status.rawValue), \(snapshot.submittedAt), \(snapshot.moderatedAt))
            """, logger: logger)
    }
}

extension PostgresRandomAccessRow {
    fileprivate func string(_ column: String) throws -> String { try self[column].decode(String.self) }
    fileprivate func optionalString(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    fileprivate func date(_ column: String) throws -> Date { try self[column].decode(Date.self) }
    fileprivate func optionalDate(_ column: String) throws -> Date? { try self[column].decode(Date?.self) }
    fileprivate func double(_ column: String) throws -> Double { try self[column].decode(Double.self) }
    fileprivate func optionalDouble(_ column: String) throws -> Double? { try self[column].decode(Double?.self) }
    fileprivate func int64(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    fileprivate func optionalInt(_ column: String) throws -> Int? { try self[column].decode(Int?.self) }
}

/// A `postgres://` URL read into postgres-nio's configuration.
struct PostgresLocation {
    var host = "127.0.0.1"
    var port = 5432
    var username: String
    var password: String?
    var database: String?
    var socketPath: String?
    var sslMode = "prefer"

    init(_ url: String) throws {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"), let components = URLComponents(string: url) else {
            throw PicketStoreError.badLocation("not a postgres:// URL: \(Self.redacted(url))")
        }
        username = components.percentEncodedUser?.removingPercentEncoding ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = components.percentEncodedPassword?.removingPercentEncoding
        if let host = components.host, !host.isEmpty { self.host = host }
        if let port = components.port { self.port = port }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode": sslMode = item.value ?? sslMode
            case "host" where item.value?.hasPrefix("/") == true: socketPath = item.value
            default: break
            }
        }
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        if components.queryItems?.contains(where: { $0.name == "sslmode" }) != true, loopback { sslMode = "disable" }
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw PicketStoreError.badLocation("sslmode must be disable, prefer or require")
        }
    }

    /// The same server, user and TLS mode for a single connection.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(
                unixSocketPath: Self.socketFile(socketPath, port: port), username: username, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    private static func socketFile(_ path: String, port: Int) -> String {
        path.hasSuffix(".s.PGSQL.\(port)") ? path : path + "/.s.PGSQL.\(port)"
    }

    func configuration() -> PostgresClient.Configuration {
        if let socketPath {
            return PostgresClient.Configuration(
                unixSocketPath: Self.socketFile(socketPath, port: port), username: username, password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = 8
        return configuration
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
