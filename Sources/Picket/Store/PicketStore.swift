import Foundation

/// Where the Picket server keeps its data. Two implementations share this interface and the
/// same tests: SQLite (GRDB, in `pepper.sqlite`; the embedded default) and PostgreSQL
/// (postgres-nio; for deployments with several servers).
///
/// Every method is one transaction. Writes that can change what clients are served bump
/// ``PicketRevision/content``; key changes bump ``PicketRevision/keys``.
public protocol PicketStore: Sendable {
    /// `sqlite` or `postgresql`.
    var kind: String { get }

    /// The current revision counters.
    func revision() async throws -> PicketRevision

    /// Approved actions that have not ended at `now` (including those that start later), with
    /// their employers and locations.
    func publishedRecords(now: Date) async throws -> PublishedRecords

    /// Marks approved actions whose end date passed as `completed`; returns how many.
    func completeEndedActions(now: Date) async throws -> Int

    /// Every API key, revoked ones included.
    func apiKeys() async throws -> [APIKeyRecord]

    /// Stores a new key.
    func insertAPIKey(_ key: APIKeyRecord) async throws

    /// Revokes a key; returns `false` when there is no such key, or it was revoked already.
    func revokeAPIKey(id: String, at date: Date) async throws -> Bool

    /// The moderation status of an action, or `nil` if there is no such action.
    func actionStatus(id: String) async throws -> ModerationStatus?

    /// Stores a submitted GPS snapshot (pending).
    func insertSnapshot(_ snapshot: SnapshotRecord) async throws

    /// Stores a submitted strike: the action (pending) and, unless an employer with the same
    /// name (ignoring case) exists, the employer (pending). Returns the employer's identifier.
    func insertStrikeSubmission(employer: EmployerRecord, action: ActionRecord) async throws -> String

    /// The submissions waiting for a moderator, oldest first.
    func pendingSubmissions() async throws -> [ModerationItem]

    /// Approves or rejects a pending strike (action) or snapshot, and records in the same
    /// transaction who decided (`cli`, `console:NAME`), when and why (``moderationLog(limit:)``).
    func moderate(
        id: String, decision: ModerationDecision, at date: Date, by moderator: String, reason: String?
    ) async throws -> ModerationOutcome

    /// The moderation decisions, newest first: the audit trail.
    func moderationLog(limit: Int) async throws -> [ModerationLogEntry]

    /// Adds or replaces employers, actions and locations.
    func importRecords(_ records: ImportRecords) async throws -> ImportCounts

    /// An action by identifier.
    func action(id: String) async throws -> ActionRecord?

    /// An employer by identifier.
    func employer(id: String) async throws -> EmployerRecord?

    /// Every snapshot of an action.
    func snapshots(actionId: String) async throws -> [SnapshotRecord]

    /// Releases connections.
    func close() async
}

/// Why a store operation failed.
public enum PicketStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No pending submission has this identifier.
    case noSuchSubmission(String)
    /// The submission was already moderated.
    case alreadyModerated(id: String, status: ModerationStatus)
    /// A snapshot's action is not approved (its picket site would point at nothing served).
    case actionNotApproved(String)
    /// A record refers to an employer or action that does not exist.
    case missingReference(String)
    /// The database URL or location is not usable.
    case badLocation(String)
    /// The database failed.
    case database(String)
    /// A newer Pepper migrated the database (`database`: where it is, without a password): it
    /// has applied `schema` migrations, `unknown` among them, where this Pepper knows `known`.
    /// Nothing was written to it.
    case newerSchema(database: String, schema: Int, known: Int, unknown: [String])

    public var description: String {
        switch self {
        case .noSuchSubmission(let id): return "there is no pending submission with id \(id)"
        case .alreadyModerated(let id, let status): return "\(id) is already \(status.rawValue)"
        case .actionNotApproved(let id): return "the snapshot's action \(id) is not approved; approve or reject the action first"
        case .missingReference(let details): return details
        case .badLocation(let details): return details
        case .database(let details): return "database error: \(details)"
        case .newerSchema(let database, let schema, let known, let unknown):
            return "\(database) was written by a newer Pepper (Picket schema \(schema); this Pepper knows up to \(known) and not "
                + unknown.joined(separator: ", ") + "): upgrade Pepper to use it; the database was left unchanged"
        }
    }
}
