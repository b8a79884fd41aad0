import Foundation
import GRDB
import Picket

/// The Picket server's data in the state database (`pepper.sqlite`, or any file given with
/// `--database sqlite:PATH`): the embedded default store.
public struct SQLitePicketStore: PicketStore {
    private let database: PepperDatabase

    /// The store of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// `sqlite`.
    public var kind: String { "sqlite" }

    /// The counters of the `picketState` row (zero before anything was written).
    public func revision() async throws -> PicketRevision {
        try await database.writer.read { db in try Self.revision(db) }
    }

    static func revision(_ db: Database) throws -> PicketRevision {
        let row = try Row.fetchOne(db, sql: "SELECT contentRevision, keysRevision, contentChangedAt FROM picketState WHERE id = 1")
        return PicketRevision(content: row?[0] ?? 0, keys: row?[1] ?? 0, contentChangedAt: (row?[2] as StoredDate?)?.date)
    }

    /// Records that what clients are served changed, and when (see ``PicketRevision``).
    private static func bumpContent(_ db: Database) throws {
        try db.execute(
            sql: "UPDATE picketState SET contentRevision = contentRevision + 1, contentChangedAt = ? WHERE id = 1",
            arguments: [Date().stored])
    }

    /// Approved actions not ended at `now`, newest start first, with their employers, the
    /// employers' locations and the actions' picket sites, and the revision read in the same
    /// transaction.
    public func publishedRecords(now: Date) async throws -> PublishedRecords {
        try await database.writer.read { db in
            let actions = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM picketAction WHERE status = 'approved' AND (endDate IS NULL OR endDate > ?)
                    ORDER BY startDate DESC, id
                    """, arguments: [now.stored]
            ).map(Self.action)
            let employerIDs = Array(Set(actions.map(\.employerId))).sorted()
            let employers = try Self.employers(db, ids: employerIDs)
            let actionIDs = Set(actions.map(\.id))
            var locations: [LocationRecord] = []
            for chunk in employerIDs.chunked(500) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                locations += try Row.fetchAll(
                    db, sql: "SELECT * FROM picketLocation WHERE employerId IN (\(marks)) ORDER BY id", arguments: StatementArguments(chunk)
                ).map(Self.location).filter { location in location.actionId.map(actionIDs.contains) ?? true }
            }
            return PublishedRecords(employers: employers, actions: actions, locations: locations, revision: try Self.revision(db))
        }
    }

    /// Marks approved actions whose end date is at or before `now` as completed, and bumps the
    /// content revision when any was.
    ///
    /// - Returns: How many actions were completed.
    public func completeEndedActions(now: Date) async throws -> Int {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE picketAction SET status = 'completed' WHERE status = 'approved' AND endDate IS NOT NULL AND endDate <= ?",
                arguments: [now.stored])
            let changed = db.changesCount
            if changed > 0 { try Self.bumpContent(db) }
            return changed
        }
    }

    /// Every key, revoked ones included, oldest first.
    public func apiKeys() async throws -> [APIKeyRecord] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, hash, scopes, label, createdAt, revokedAt FROM picketApiKey ORDER BY createdAt, id").map {
                row in
                APIKeyRecord(
                    id: row[0], hash: row[1], scopes: Self.scopes(row[2]), label: row[3], createdAt: (row[4] as StoredDate).date,
                    revokedAt: (row[5] as StoredDate?)?.date)
            }
        }
    }

    /// Stores `key` (its hash, never the key) and bumps the keys revision.
    public func insertAPIKey(_ key: APIKeyRecord) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO picketApiKey (id, hash, scopes, label, createdAt, revokedAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    key.id, key.hash, key.scopes.map(\.rawValue).joined(separator: " "), key.label, key.createdAt.stored,
                    key.revokedAt.stored,
                ])
            try db.execute(sql: "UPDATE picketState SET keysRevision = keysRevision + 1 WHERE id = 1")
        }
    }

    /// Records `date` as the key's revocation and bumps the keys revision.
    ///
    /// - Returns: `false` when no key has this identifier or it was revoked already.
    public func revokeAPIKey(id: String, at date: Date) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE picketApiKey SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [date.stored, id])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "UPDATE picketState SET keysRevision = keysRevision + 1 WHERE id = 1")
            return true
        }
    }

    /// The action's status, or `nil` when there is no such action.
    public func actionStatus(id: String) async throws -> ModerationStatus? {
        try await database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT status FROM picketAction WHERE id = ?", arguments: [id]).flatMap(ModerationStatus.init)
        }
    }

    /// Stores a submitted snapshot as it is (pending); nothing is published until it is approved.
    public func insertSnapshot(_ snapshot: SnapshotRecord) async throws {
        try await database.writer.write { db in
            try Self.insert(snapshot, db)
        }
    }

    /// Stores a submitted strike: the action, attached to the employer of the same name
    /// (ignoring case; an approved one first) when there is one, else to `employer`, stored too.
    ///
    /// - Returns: The identifier of the employer the action belongs to.
    public func insertStrikeSubmission(employer: EmployerRecord, action: ActionRecord) async throws -> String {
        try await database.writer.write { db in
            var action = action
            if let existing = try String.fetchOne(
                db, sql: "SELECT id FROM picketEmployer WHERE name = ? COLLATE NOCASE ORDER BY status = 'approved' DESC, createdAt LIMIT 1",
                arguments: [employer.name])
            {
                action.employerId = existing
            } else {
                try Self.upsert(employer, db)
                action.employerId = employer.id
            }
            try Self.upsert(action, db)
            return action.employerId
        }
    }

    /// The pending strikes (with their employer's name and website) and snapshots, in the order
    /// `ModerationItem.queue(_:)` gives.
    public func pendingSubmissions() async throws -> [ModerationItem] {
        try await database.writer.read { db in
            var items: [(submittedAt: Date, item: ModerationItem)] = []
            let strikes = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.*, e.name AS employerName, e.website AS employerWebsite FROM picketAction a
                    JOIN picketEmployer e ON e.id = a.employerId WHERE a.status = 'pending'
                    """)
            for row in strikes {
                let action = Self.action(row)
                items.append(
                    (action.submittedAt, ModerationItem(strike: action, employerName: row["employerName"], website: row["employerWebsite"]))
                )
            }
            for row in try Row.fetchAll(db, sql: "SELECT * FROM picketSnapshot WHERE status = 'pending'") {
                let snapshot = Self.snapshot(row)
                items.append((snapshot.submittedAt, ModerationItem(snapshot: snapshot)))
            }
            return ModerationItem.queue(items)
        }
    }

    /// Decides a pending strike or snapshot and appends the decision to the audit trail, in one
    /// transaction. Approving a strike publishes its employer and adds the host of the
    /// employer's website to the blocklist; approving a snapshot makes it a picket site of its
    /// action, which must be approved already. Either bumps the content revision.
    ///
    /// - Throws: `PicketStoreError` when there is no such submission, it was decided already,
    ///   or a snapshot's action is not approved.
    public func moderate(
        id: String, decision: ModerationDecision, at date: Date, by moderator: String, reason: String?
    ) async throws -> ModerationOutcome {
        try await database.writer.write { db in
            let outcome = try Self.decide(id: id, decision: decision, at: date, db)
            try Self.logDecision(outcome, decision: decision, at: date, by: moderator, reason: reason, db)
            return outcome
        }
    }

    /// The last `limit` decisions, newest first; a decision of a kind this version does not know
    /// (written by a newer Pepper) is left out.
    public func moderationLog(limit: Int) async throws -> [ModerationLogEntry] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM picketModeration ORDER BY decidedAt DESC, id DESC LIMIT ?", arguments: [max(0, limit)]
            ).compactMap { row in
                // A kind or decision this version does not know (a newer Pepper wrote it) is left out.
                guard let kind = ModerationKind(rawValue: row["kind"]), let decision = ModerationDecision(rawValue: row["decision"]) else {
                    return nil
                }
                return ModerationLogEntry(
                    submissionId: row["submissionId"], kind: kind, decision: decision, moderator: row["moderator"],
                    reason: row["reason"], decidedAt: (row["decidedAt"] as StoredDate).date, summary: row["summary"])
            }
        }
    }

    /// Appends a decision to the audit trail, naming what it was about.
    private static func logDecision(
        _ outcome: ModerationOutcome, decision: ModerationDecision, at date: Date, by moderator: String, reason: String?,
        _ db: Database
    ) throws {
        let (employerSQL, key): (String, String)
        switch outcome {
        case .strike(_, let employerId, _):
            (employerSQL, key) = ("SELECT name FROM picketEmployer WHERE id = ?", employerId)
        case .snapshot(_, let actionId, _, _):
            key = actionId
            employerSQL =
                "SELECT picketEmployer.name FROM picketAction JOIN picketEmployer ON picketEmployer.id = picketAction.employerId WHERE picketAction.id = ?"
        }
        let employer = try String.fetchOne(db, sql: employerSQL, arguments: [key]) ?? "?"
        let summary = outcome.kind == .strike ? employer : "\(employer) (\(key))"
        try db.execute(
            sql: """
                INSERT INTO picketModeration (submissionId, kind, decision, moderator, reason, decidedAt, summary)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [outcome.id, outcome.kind.rawValue, decision.rawValue, moderator, reason, date.stored, summary])
    }

    private static func decide(id: String, decision: ModerationDecision, at date: Date, _ db: Database) throws -> ModerationOutcome {
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM picketAction WHERE id = ?", arguments: [id]) {
            let action = Self.action(row)
            guard action.status == .pending else { throw PicketStoreError.alreadyModerated(id: id, status: action.status) }
            let status: ModerationStatus = decision == .approve ? .approved : .rejected
            try db.execute(
                sql: "UPDATE picketAction SET status = ?, moderatedAt = ? WHERE id = ?", arguments: [status.rawValue, date.stored, id])
            if decision == .approve {
                // Approving a strike publishes its employer, and the website's host joins the blocklist.
                try db.execute(sql: "UPDATE picketEmployer SET status = 'approved' WHERE id = ?", arguments: [action.employerId])
                if let website = try String.fetchOne(
                    db, sql: "SELECT website FROM picketEmployer WHERE id = ?", arguments: [action.employerId]),
                    let host = BlocklistMatcher.normalizedHost(website)
                {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO picketEmployerDomain (employerId, domain) VALUES (?, ?)",
                        arguments: [action.employerId, host])
                }
                try Self.bumpContent(db)
            }
            return .strike(id: id, employerId: action.employerId, status: status)
        }
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM picketSnapshot WHERE id = ?", arguments: [id]) {
            let snapshot = Self.snapshot(row)
            guard snapshot.status == .pending else { throw PicketStoreError.alreadyModerated(id: id, status: snapshot.status) }
            guard decision == .approve else {
                try db.execute(
                    sql: "UPDATE picketSnapshot SET status = 'rejected', moderatedAt = ? WHERE id = ?", arguments: [date.stored, id])
                return .snapshot(id: id, actionId: snapshot.actionId, status: .rejected, siteId: nil)
            }
            guard let actionRow = try Row.fetchOne(db, sql: "SELECT * FROM picketAction WHERE id = ?", arguments: [snapshot.actionId]),
                Self.action(actionRow).status == .approved
            else { throw PicketStoreError.actionNotApproved(snapshot.actionId) }
            let action = Self.action(actionRow)
            try db.execute(
                sql: "UPDATE picketSnapshot SET status = 'approved', moderatedAt = ? WHERE id = ?", arguments: [date.stored, id])
            let site = LocationRecord(
                id: Self.siteID(forSnapshot: id), employerId: action.employerId, actionId: action.id, kind: .picketSite,
                name: snapshot.address ?? snapshot.notes.map { String($0.prefix(120)) }, address: snapshot.address,
                coordinate: snapshot.coordinate, createdAt: date)
            try Self.upsert(site, db)
            try Self.bumpContent(db)
            return .snapshot(id: id, actionId: snapshot.actionId, status: .approved, siteId: site.id)
        }
        throw PicketStoreError.noSuchSubmission(id)
    }

    /// The picket site an approved snapshot becomes: `snap_…` → `site_…`.
    static func siteID(forSnapshot id: String) -> String {
        id.hasPrefix("snap_") ? "site_" + id.dropFirst(5) : "site_" + id
    }

    /// Adds or replaces the employers (with their domains), then the actions and the locations,
    /// in one transaction, and bumps the content revision.
    ///
    /// - Throws: `PicketStoreError.missingReference` for an action or location whose
    ///   employer, or a location whose action, is neither stored nor imported; nothing is written.
    public func importRecords(_ records: ImportRecords) async throws -> ImportCounts {
        try await database.writer.write { db in
            for employer in records.employers {
                try Self.upsert(employer, db)
                try db.execute(sql: "DELETE FROM picketEmployerDomain WHERE employerId = ?", arguments: [employer.id])
                for domain in Set(employer.domains) {
                    try db.execute(
                        sql: "INSERT INTO picketEmployerDomain (employerId, domain) VALUES (?, ?)", arguments: [employer.id, domain])
                }
            }
            for action in records.actions {
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM picketEmployer WHERE id = ?", arguments: [action.employerId]) == true else {
                    throw PicketStoreError.missingReference("action \(action.id): no employer \(action.employerId)")
                }
                try Self.upsert(action, db)
            }
            for location in records.locations {
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM picketEmployer WHERE id = ?", arguments: [location.employerId]) == true
                else {
                    throw PicketStoreError.missingReference("location \(location.id): no employer \(location.employerId)")
                }
                if let actionId = location.actionId,
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM picketAction WHERE id = ?", arguments: [actionId]) != true
                {
                    throw PicketStoreError.missingReference("location \(location.id): no action \(actionId)")
                }
                try Self.upsert(location, db)
            }
            try Self.bumpContent(db)
            return ImportCounts(employers: records.employers.count, actions: records.actions.count, locations: records.locations.count)
        }
    }

    /// The action with this identifier, whatever its status.
    public func action(id: String) async throws -> ActionRecord? {
        try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM picketAction WHERE id = ?", arguments: [id]).map(Self.action)
        }
    }

    /// The employer with this identifier, with its domains, whatever its status.
    public func employer(id: String) async throws -> EmployerRecord? {
        try await database.writer.read { db in try Self.employers(db, ids: [id]).first }
    }

    /// The action's snapshots, whatever their status, oldest first.
    public func snapshots(actionId: String) async throws -> [SnapshotRecord] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM picketSnapshot WHERE actionId = ? ORDER BY submittedAt, id", arguments: [actionId])
                .map(Self.snapshot)
        }
    }

    /// Does nothing: the state database is closed by its owner.
    public func close() async {}

    // MARK: Rows

    private static func employers(_ db: Database, ids: [String]) throws -> [EmployerRecord] {
        var employers: [EmployerRecord] = []
        for chunk in ids.chunked(500) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            var domains: [String: [String]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT employerId, domain FROM picketEmployerDomain WHERE employerId IN (\(marks)) ORDER BY domain",
                arguments: StatementArguments(chunk))
            {
                domains[row[0], default: []].append(row[1])
            }
            employers += try Row.fetchAll(
                db, sql: "SELECT * FROM picketEmployer WHERE id IN (\(marks)) ORDER BY id", arguments: StatementArguments(chunk)
            ).map { row in
                let id: String = row["id"]
                return EmployerRecord(
                    id: id, name: row["name"], industry: row["industry"], website: row["website"], domains: domains[id] ?? [],
                    status: ModerationStatus(rawValue: row["status"]) ?? .pending, createdAt: (row["createdAt"] as StoredDate).date)
            }
        }
        return employers
    }

    private static func action(_ row: Row) -> ActionRecord {
        let latitude: Double? = row["latitude"]
        let longitude: Double? = row["longitude"]
        return ActionRecord(
            id: row["id"], employerId: row["employerId"], organization: row["organization"], actionType: row["actionType"],
            location: row["location"], startDate: (row["startDate"] as StoredDate).date, endDate: (row["endDate"] as StoredDate?)?.date,
            durationDays: row["durationDays"],
            description: row["description"], demands: row["demands"], contactInfo: row["contactInfo"], moreInfoUrl: row["moreInfoUrl"],
            coordinate: latitude.flatMap { latitude in longitude.map { GeoCoordinate(latitude: latitude, longitude: $0) } },
            notificationRadius: row["notificationRadius"], status: ModerationStatus(rawValue: row["status"]) ?? .pending,
            origin: row["origin"], submittedAt: (row["submittedAt"] as StoredDate).date,
            moderatedAt: (row["moderatedAt"] as StoredDate?)?.date)
    }

    private static func location(_ row: Row) -> LocationRecord {
        LocationRecord(
            id: row["id"], employerId: row["employerId"], actionId: row["actionId"],
            kind: GeofenceKind(rawValue: row["kind"]) ?? .employerLocation, name: row["name"], locationType: row["locationType"],
            address: row["address"], coordinate: GeoCoordinate(latitude: row["latitude"], longitude: row["longitude"]),
            notificationRadius: row["notificationRadius"], createdAt: (row["createdAt"] as StoredDate).date)
    }

    private static func snapshot(_ row: Row) -> SnapshotRecord {
        SnapshotRecord(
            id: row["id"], actionId: row["actionId"], coordinate: GeoCoordinate(latitude: row["latitude"], longitude: row["longitude"]),
            address: row["address"], notes: row["notes"], status: ModerationStatus(rawValue: row["status"]) ?? .pending,
            submittedAt: (row["submittedAt"] as StoredDate).date, moderatedAt: (row["moderatedAt"] as StoredDate?)?.date)
    }

    private static func scopes(_ text: String) -> [APIScope] {
        text.split(separator: " ").compactMap { APIScope(rawValue: String($0)) }
    }

    private static func upsert(_ employer: EmployerRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO picketEmployer (id, name, industry, website, status, createdAt) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, industry = excluded.industry, website = excluded.website,
                status = excluded.status
                """,
            arguments: [
                employer.id, employer.name, employer.industry, employer.website, employer.status.rawValue, employer.createdAt.stored,
            ])
    }

    private static func upsert(_ action: ActionRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO picketAction (id, employerId, organization, actionType, location, startDate, endDate, durationDays, description,
                demands, contactInfo, moreInfoUrl, latitude, longitude, notificationRadius, status, origin, submittedAt, moderatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET employerId = excluded.employerId, organization = excluded.organization,
                actionType = excluded.actionType, location = excluded.location, startDate = excluded.startDate, endDate = excluded.endDate,
                durationDays = excluded.durationDays, description = excluded.description, demands = excluded.demands,
                contactInfo = excluded.contactInfo, moreInfoUrl = excluded.moreInfoUrl, latitude = excluded.latitude,
                longitude = excluded.longitude, notificationRadius = excluded.notificationRadius, status = excluded.status,
                origin = excluded.origin, moderatedAt = excluded.moderatedAt
                """,
            arguments: [
                action.id, action.employerId, action.organization, action.actionType, action.location, action.startDate.stored,
                action.endDate.stored,
                action.durationDays, action.description, action.demands, action.contactInfo, action.moreInfoUrl,
                action.coordinate?.latitude, action.coordinate?.longitude, action.notificationRadius, action.status.rawValue, action.origin,
                action.submittedAt.stored, action.moderatedAt.stored,
            ])
    }

    private static func upsert(_ location: LocationRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO picketLocation (id, employerId, actionId, kind, name, locationType, address, latitude, longitude,
                notificationRadius, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET employerId = excluded.employerId, actionId = excluded.actionId, kind = excluded.kind,
                name = excluded.name, locationType = excluded.locationType, address = excluded.address, latitude = excluded.latitude,
                longitude = excluded.longitude, notificationRadius = excluded.notificationRadius
                """,
            arguments: [
                location.id, location.employerId, location.actionId, location.kind.rawValue, location.name, location.locationType,
                location.address, location.coordinate.latitude, location.coordinate.longitude, location.notificationRadius,
                location.createdAt.stored,
            ])
    }

    private static func insert(_ snapshot: SnapshotRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO picketSnapshot (id, actionId, latitude, longitude, address, notes, status, submittedAt, moderatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                snapshot.id, snapshot.actionId, snapshot.coordinate.latitude, snapshot.coordinate.longitude, snapshot.address,
                snapshot.notes,
                snapshot.status.rawValue, snapshot.submittedAt.stored, snapshot.moderatedAt.stored,
            ])
    }
}

extension Array {
    fileprivate func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

/// The client-side Picket setting: what Pepper does with struck employers' domains.
public struct PicketPolicyStore: Sendable {
    private let database: PepperDatabase

    /// The setting in `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// The current policy (`PicketPolicy.default` on a fresh state).
    public func policy() throws -> PicketPolicy {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM picketSetting WHERE key = 'policy'").flatMap(PicketPolicy.init) ?? .default
        }
    }

    /// Sets the policy.
    public func setPolicy(_ policy: PicketPolicy) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO picketSetting (key, value) VALUES ('policy', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [policy.rawValue])
        }
    }
}
