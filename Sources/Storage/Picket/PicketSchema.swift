import Foundation
import GRDB

/// Tables of the Online Picket Line server and the Picket policy (`docs/picket.md`), added by
/// migration `v-picket-1-server-and-policy`. PostgreSQL gets the same tables, in snake case, from
/// `PicketServer`'s `PostgresSchema` (a test keeps the two in step).
///
/// - `picketEmployer`, `picketEmployerDomain`: employers and their domains (the blocklist).
/// - `picketAction`: labor actions with their moderation status; indexed by status and end so
///   the published set is one range scan.
/// - `picketLocation`: picket sites of actions and locations of employers (geofences).
/// - `picketSnapshot`: submitted GPS snapshots.
/// - `picketApiKey`: API keys, by the SHA-256 of the key only.
/// - `picketState`: the content and keys revisions servers poll.
/// - `picketSetting`: client-side settings (the `policy`).
/// - `picketModeration`: the audit trail of moderation decisions (migration
///   `v-picket-2-moderation-log`).
/// - `picketState.contentChangedAt`: when the content revision last moved (migration
///   `v-picket-3-content-time`).
enum PicketSchema {
    static func migrate(_ db: Database) throws {
        try db.create(table: "picketEmployer") { table in
            table.primaryKey("id", .text)
            table.column("name", .text).notNull()
            table.column("industry", .text)
            table.column("website", .text)
            table.column("status", .text).notNull()
            table.column("createdAt", .datetime).notNull()
        }
        try db.execute(sql: "CREATE INDEX picketEmployerByName ON picketEmployer (name COLLATE NOCASE)")
        try db.create(table: "picketEmployerDomain", options: [.withoutRowID]) { table in
            table.column("employerId", .text).notNull().references("picketEmployer", onDelete: .cascade)
            table.column("domain", .text).notNull()
            table.primaryKey(["employerId", "domain"])
        }
        try db.create(table: "picketAction") { table in
            table.primaryKey("id", .text)
            table.column("employerId", .text).notNull().references("picketEmployer", onDelete: .cascade)
            table.column("organization", .text)
            table.column("actionType", .text).notNull()
            table.column("location", .text)
            table.column("startDate", .datetime).notNull()
            table.column("endDate", .datetime)
            table.column("durationDays", .integer)
            table.column("description", .text)
            table.column("demands", .text)
            table.column("contactInfo", .text)
            table.column("moreInfoUrl", .text)
            table.column("latitude", .double)
            table.column("longitude", .double)
            table.column("notificationRadius", .integer)
            table.column("status", .text).notNull()
            table.column("origin", .text).notNull()
            table.column("submittedAt", .datetime).notNull()
            table.column("moderatedAt", .datetime)
        }
        try db.create(index: "picketActionByStatus", on: "picketAction", columns: ["status", "endDate"])
        try db.create(index: "picketActionByEmployer", on: "picketAction", columns: ["employerId"])
        try db.create(table: "picketLocation") { table in
            table.primaryKey("id", .text)
            table.column("employerId", .text).notNull().references("picketEmployer", onDelete: .cascade)
            table.column("actionId", .text).references("picketAction", onDelete: .cascade)
            table.column("kind", .text).notNull()
            table.column("name", .text)
            table.column("locationType", .text)
            table.column("address", .text)
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
            table.column("notificationRadius", .integer)
            table.column("createdAt", .datetime).notNull()
        }
        try db.create(index: "picketLocationByEmployer", on: "picketLocation", columns: ["employerId"])
        try db.create(index: "picketLocationByAction", on: "picketLocation", columns: ["actionId"])
        try db.create(table: "picketSnapshot") { table in
            table.primaryKey("id", .text)
            table.column("actionId", .text).notNull().references("picketAction", onDelete: .cascade)
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
            table.column("address", .text)
            table.column("notes", .text)
            table.column("status", .text).notNull()
            table.column("submittedAt", .datetime).notNull()
            table.column("moderatedAt", .datetime)
        }
        try db.create(index: "picketSnapshotByStatus", on: "picketSnapshot", columns: ["status", "submittedAt"])
        try db.create(table: "picketApiKey") { table in
            table.primaryKey("id", .text)
            table.column("hash", .text).notNull().unique()
            table.column("scopes", .text).notNull()
            table.column("label", .text)
            table.column("createdAt", .datetime).notNull()
            table.column("revokedAt", .datetime)
        }
        try db.create(table: "picketState") { table in
            table.column("id", .integer).primaryKey().check { $0 == 1 }
            table.column("contentRevision", .integer).notNull()
            table.column("keysRevision", .integer).notNull()
        }
        try db.execute(sql: "INSERT INTO picketState (id, contentRevision, keysRevision) VALUES (1, 1, 1)")
        try db.create(table: "picketSetting") { table in
            table.primaryKey("key", .text)
            table.column("value", .text).notNull()
        }
    }

    /// Who approved or rejected what, when and why: one row per decision, never changed.
    static func addModerationLog(_ db: Database) throws {
        try db.create(table: "picketModeration") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("submissionId", .text).notNull()
            table.column("kind", .text).notNull()
            table.column("decision", .text).notNull()
            table.column("moderator", .text).notNull()
            table.column("reason", .text)
            table.column("decidedAt", .datetime).notNull()
            table.column("summary", .text).notNull()
        }
        try db.create(index: "picketModerationByTime", on: "picketModeration", columns: ["decidedAt"])
    }

    /// When the content revision last moved: the publication time (`generatedAt`) every server
    /// on the store gives the content, so that servers behind one load balancer answer with the
    /// same bytes. Existing stores start from the migration's time.
    static func addContentTime(_ db: Database) throws {
        try db.alter(table: "picketState") { table in table.add(column: "contentChangedAt", .datetime) }
        try db.execute(sql: "UPDATE picketState SET contentChangedAt = ?", arguments: [Date().stored])
    }
}
