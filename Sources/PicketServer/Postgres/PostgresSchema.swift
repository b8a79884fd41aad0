import Foundation
import Logging
import PostgresNIO

/// The Picket tables in PostgreSQL: the SQLite schema of `Storage`'s `PicketSchema` in snake
/// case (a test checks that both have the same tables and columns). Versions are recorded in
/// `picket_schema_version`; a migration is never edited once shipped, a new one is added.
/// Servers starting at once serialise on an advisory lock, so each version runs exactly once.
enum PostgresSchema {
    /// Migrations, oldest first: a version name and its statements.
    static let migrations: [(version: String, statements: [String])] = [
        (
            "v-picket-1-server-and-policy",
            [
                """
                CREATE TABLE picket_employer (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, industry TEXT, website TEXT, status TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX picket_employer_by_name ON picket_employer (lower(name))",
                """
                CREATE TABLE picket_employer_domain (
                    employer_id TEXT NOT NULL REFERENCES picket_employer (id) ON DELETE CASCADE, domain TEXT NOT NULL,
                    PRIMARY KEY (employer_id, domain))
                """,
                """
                CREATE TABLE picket_action (
                    id TEXT PRIMARY KEY, employer_id TEXT NOT NULL REFERENCES picket_employer (id) ON DELETE CASCADE,
                    organization TEXT, action_type TEXT NOT NULL, location TEXT, start_date TIMESTAMPTZ NOT NULL, end_date TIMESTAMPTZ,
                    duration_days BIGINT, description TEXT, demands TEXT, contact_info TEXT, more_info_url TEXT,
                    latitude DOUBLE PRECISION, longitude DOUBLE PRECISION, notification_radius BIGINT, status TEXT NOT NULL,
                    origin TEXT NOT NULL, submitted_at TIMESTAMPTZ NOT NULL, moderated_at TIMESTAMPTZ)
                """,
                "CREATE INDEX picket_action_by_status ON picket_action (status, end_date)",
                "CREATE INDEX picket_action_by_employer ON picket_action (employer_id)",
                """
                CREATE TABLE picket_location (
                    id TEXT PRIMARY KEY, employer_id TEXT NOT NULL REFERENCES picket_employer (id) ON DELETE CASCADE,
                    action_id TEXT REFERENCES picket_action (id) ON DELETE CASCADE, kind TEXT NOT NULL, name TEXT, location_type TEXT,
                    address TEXT, latitude DOUBLE PRECISION NOT NULL, longitude DOUBLE PRECISION NOT NULL, notification_radius BIGINT,
                    created_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX picket_location_by_employer ON picket_location (employer_id)",
                "CREATE INDEX picket_location_by_action ON picket_location (action_id)",
                """
                CREATE TABLE picket_snapshot (
                    id TEXT PRIMARY KEY, action_id TEXT NOT NULL REFERENCES picket_action (id) ON DELETE CASCADE,
                    latitude DOUBLE PRECISION NOT NULL, longitude DOUBLE PRECISION NOT NULL, address TEXT, notes TEXT,
                    status TEXT NOT NULL, submitted_at TIMESTAMPTZ NOT NULL, moderated_at TIMESTAMPTZ)
                """,
                "CREATE INDEX picket_snapshot_by_status ON picket_snapshot (status, submitted_at)",
                """
                CREATE TABLE picket_api_key (
                    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, label TEXT, created_at TIMESTAMPTZ NOT NULL,
                    revoked_at TIMESTAMPTZ)
                """,
                """
                CREATE TABLE picket_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1), content_revision BIGINT NOT NULL, keys_revision BIGINT NOT NULL)
                """,
                "INSERT INTO picket_state (id, content_revision, keys_revision) VALUES (1, 1, 1)",
                "CREATE TABLE picket_setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        (
            "v-picket-2-moderation-log",
            [
                """
                CREATE TABLE picket_moderation (
                    id BIGSERIAL PRIMARY KEY, submission_id TEXT NOT NULL, kind TEXT NOT NULL, decision TEXT NOT NULL,
                    moderator TEXT NOT NULL, reason TEXT, decided_at TIMESTAMPTZ NOT NULL, summary TEXT NOT NULL)
                """,
                "CREATE INDEX picket_moderation_by_time ON picket_moderation (decided_at)",
            ]
        ),
        (
            "v-picket-3-content-time",
            [
                "ALTER TABLE picket_state ADD COLUMN content_changed_at TIMESTAMPTZ",
                "UPDATE picket_state SET content_changed_at = now()",
            ]
        ),
    ]

    /// The schema version this Pepper writes: how many migrations it knows.
    static var version: Int { migrations.count }

    /// Brings the database up to date; returns the versions applied.
    ///
    /// - Throws: ``PostgresSchemaError`` when a newer Pepper migrated the database (nothing is
    ///   changed).
    @discardableResult
    static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        do {
            return try await migrateInTransaction(client, logger: logger)
        } catch let error as PostgresTransactionError {
            if let newer = error.closureError as? PostgresSchemaError { throw newer }
            throw error
        }
    }

    private static func migrateInTransaction(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.withTransaction(logger: logger) { connection in
            // An arbitrary constant identifying "Pepper's Picket migrations".
            try await connection.query("SELECT pg_advisory_xact_lock(7335524143)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS picket_schema_version (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<String>()
            for try await version in try await connection.query("SELECT version FROM picket_schema_version", logger: logger).decode(
                String.self)
            {
                applied.insert(version)
            }
            // A database a newer Pepper migrated is refused before anything is written; the
            // transaction (whose only statement so far created nothing) rolls back.
            let unknown = applied.subtracting(migrations.map(\.version))
            if !unknown.isEmpty {
                throw PostgresSchemaError(schema: applied.count, known: migrations.count, unknown: unknown.sorted())
            }
            var ran: [String] = []
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO picket_schema_version (version) VALUES (\(migration.version))", logger: logger)
                ran.append(migration.version)
            }
            return ran
        }
    }
}

/// A PostgreSQL database that a newer Pepper migrated: it has applied `schema` versions,
/// `unknown` among them, where this Pepper knows `known`.
struct PostgresSchemaError: Error {
    var schema: Int
    var known: Int
    var unknown: [String]
}
