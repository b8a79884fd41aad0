import Foundation
import GRDB
import GRDBSQLite

/// The one SQLite database of a Pepper home (`pepper.sqlite`), in WAL mode so that the app,
/// its extensions and the command-line tools can read while one of them writes.
///
/// Each capability adds its tables through ``PepperDatabase/migrator``; migrations run when the
/// database is opened, so an old database is brought up to date transparently. A database
/// written by a newer Pepper (one with a migration this one does not know) is refused before
/// anything is written to it (``PepperDatabaseError/newer(path:schema:known:unknown:)``).
public final class PepperDatabase: Sendable {
    /// The GRDB connection pool.
    public let writer: DatabasePool
    private let registration: OpenPools.Registration

    /// Opens (creating if needed) the database at `url` and applies pending migrations.
    ///
    /// - Parameters:
    ///   - url: The database file (`pepper.sqlite` of a Pepper home).
    ///   - observesSuspension: Whether ``DatabaseSuspension/suspend()`` stops this database from
    ///     taking locks. iOS kills a process that is suspended holding a lock on a file in a
    ///     shared container (`0xDEAD10CC`); the app and any extension that writes to the app
    ///     group's database open it this way and suspend it before iOS suspends them.
    /// - Throws: ``PepperDatabaseError/newer(path:schema:known:unknown:)`` when a newer Pepper
    ///   wrote the database: nothing is written to the file or its `-wal`, and neither is
    ///   created (`-shm`, SQLite's shared-memory index, gets the read marks every reader leaves).
    public init(url: URL, observesSuspension: Bool = false) throws {
        // Before the pool, which writes to a database without a write-ahead log.
        try Self.refuseNewer(url, applied: SchemaProbe.appliedIdentifiers(at: url))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.observesSuspensionNotifications = observesSuspension
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            // Persistent WAL: the `-wal` and `-shm` files stay when the last writer closes, so a
            // process that may only read (iOS's message filter) can still open the database.
            var persist: CInt = 1
            let code = withUnsafeMutablePointer(to: &persist) {
                sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, $0)
            }
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        }
        // Processes opening a new or old database at once (a server and the console started
        // together, the app and an extension) would each switch a new file to WAL (SQLite
        // answers the loser "database is locked" at once, without waiting) and apply the same
        // migration (the second fails: "duplicate column"). They take turns on a lock beside the
        // database for the open; whoever comes second finds nothing left to do. Uncontended, the
        // lock costs one `flock`.
        let lock = try FileLock(path: url.path + ".migration-lock", wait: true)
        defer { withExtendedLifetime(lock) {} }
        writer = try DatabasePool(path: url.path, configuration: configuration)
        registration = OpenPools.shared.register(url)
        let migrator = Self.migrator
        // Again through the pool: the log may hold what the file does not (and a newer Pepper may
        // have migrated since), and a pool on a database with a log writes nothing until here.
        let (applied, completed) = try writer.read { db in (try migrator.appliedIdentifiers(db), try migrator.hasCompletedMigrations(db)) }
        try Self.refuseNewer(url, applied: applied)
        guard !completed else { return }
        do {
            try migrator.migrate(writer)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw PepperDatabaseError.full(path: url.path)
        }
    }

    /// Opens the database of `home` (see ``init(url:observesSuspension:)``).
    public convenience init(home: PepperHome, observesSuspension: Bool = false) throws {
        try self.init(url: home.databaseURL, observesSuspension: observesSuspension)
    }

    /// Opens an existing database for reading only, as an extension that must not write to
    /// the shared container does (iOS's message filter): nothing is created or migrated, and
    /// any write fails. Reading a WAL database this way needs its `-wal` and `-shm` files,
    /// which the writer (the app) keeps beside it.
    ///
    /// - Throws: ``PepperDatabaseError/notReady(_:)`` when the database is missing or was not
    ///   brought up to date by a writer yet; ``PepperDatabaseError/newer(path:schema:known:unknown:)``
    ///   when a newer Pepper wrote it.
    public init(readingOnly url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PepperDatabaseError.notReady("\(url.path) does not exist yet: open Pepper once")
        }
        try Self.refuseNewer(url, applied: SchemaProbe.appliedIdentifiers(at: url))
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        writer = try DatabasePool(path: url.path, configuration: configuration)
        registration = OpenPools.shared.register(url)
        let migrator = Self.migrator
        try Self.refuseNewer(url, applied: writer.read(migrator.appliedIdentifiers))
        guard try writer.read(migrator.hasCompletedMigrations) else {
            throw PepperDatabaseError.notReady("\(url.path) is from another version of Pepper: open Pepper once to update it")
        }
    }

    /// Runs `updates` in one write transaction, like `writer.write`, with a full disk named as
    /// such: SQLite's "database or disk is full" (`SQLITE_FULL`) becomes
    /// ``PepperDatabaseError/full(path:)``, which says which file could not grow. SQLite has
    /// rolled the transaction back by then, so nothing of it is stored. A write refused because
    /// the database is suspended (``DatabaseSuspension``) becomes
    /// ``PepperDatabaseError/suspended(path:)``.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        do {
            return try writer.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw PepperDatabaseError.full(path: writer.path)
        } catch let error as DatabaseError where DatabaseSuspension.explains(error) {
            throw PepperDatabaseError.suspended(path: writer.path)
        }
    }

    /// How many connection pools this process holds open on the database at `url`.
    ///
    /// GRDB's first rule is one pool per database file per process: a second pool on the same
    /// file does not see the first one's schema cache or its serialized writes. Each face opens
    /// one `PepperState` and passes it down; tests hold it to this with this count.
    public static func openPools(at url: URL) -> Int {
        OpenPools.shared.count(url)
    }

    /// The most connection pools open at once on the database at `url` while `body` ran: what
    /// ``openPools(at:)`` would have said at its worst moment, for a test that runs a whole
    /// command and holds it to one pool (a second one opened and closed inside would not show
    /// once the command returned).
    public static func mostOpenPools<T>(at url: URL, during body: () async throws -> T) async rethrows -> (result: T, pools: Int) {
        let watch = OpenPools.shared.watch(url)
        defer { OpenPools.shared.endWatch(watch) }
        let result = try await body()
        return (result, OpenPools.shared.peak(watch))
    }

    /// The schema version this Pepper writes: how many migrations it knows (``migrator``'s count,
    /// so it cannot fall out of step with them). `pepper --version` shows it.
    public static var schemaVersion: Int { migrator.migrations.count }

    /// Throws ``PepperDatabaseError/newer(path:schema:known:unknown:)`` when `applied` (the
    /// migrations the database at `url` has applied) holds one that ``migrator`` does not know.
    static func refuseNewer(_ url: URL, applied: Set<String>?) throws(PepperDatabaseError) {
        guard let applied else { return }
        let known = migrator.migrations
        let unknown = applied.subtracting(known)
        guard !unknown.isEmpty else { return }
        throw .newer(path: url.path, schema: applied.count, known: known.count, unknown: unknown.sorted())
    }

    /// All schema versions, oldest first. Never edit a shipped migration: add a new one.
    ///
    /// Registration order is not the order every database applied them in: branches developed
    /// side by side each added theirs, so a state written on one (the DNS filter's, say) has a
    /// later migration without an earlier one of another. GRDB applies whatever is missing, in
    /// this order, and `UpgradeTests` open states written by each of those versions.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-allowlist-and-list-sources") { db in
            try db.create(table: "allowlist") { table in
                table.primaryKey("domain", .text)
                table.column("addedAt", .datetime).notNull()
            }
            try db.create(table: "listSource") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull().unique()
                table.column("location", .text).notNull()
                table.column("format", .text).notNull()
                table.column("enabled", .boolean).notNull().defaults(to: true)
                table.column("builtIn", .boolean).notNull().defaults(to: false)
                table.column("settings", .text)
                table.column("etag", .text)
                table.column("lastModified", .text)
                table.column("expiresAt", .datetime)
                table.column("lastAttempt", .datetime)
                table.column("lastSuccess", .datetime)
                table.column("lastError", .text)
                table.column("sha256", .text)
                table.column("rulesIn", .integer)
                table.column("rulesOut", .integer)
                table.column("addedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2-list-catalogue-and-temporary-allowlist") { db in
            // Entries allowlisted for a while ("temporarily unprotected sites") expire.
            try db.alter(table: "allowlist") { table in
                table.add(column: "expiresAt", .datetime)
            }
            for source in BuiltInListSources.all {
                var row = source
                try row.insert(db, onConflict: .ignore)
            }
        }
        migrator.registerMigration("v-calls-1-lists-messages-decisions", migrate: CallsSchema.migrate)
        migrator.registerMigration("v-browser-1-history-and-settings", migrate: BrowserStateStore.migrate)
        migrator.registerMigration("v-picket-1-server-and-policy", migrate: PicketSchema.migrate)
        migrator.registerMigration("v-calls-2-change-history-floor", migrate: CallsSchema.addCompactionFloor)
        migrator.registerMigration("v-dns-1-query-log-and-counters", migrate: DNSQueryLogStore.migrate)
        migrator.registerMigration("v-console-1-rules-preferences-daily-counts") { db in
            try UserRuleStore.migrate(db)
            try PreferenceStore.migrate(db)
            try DecisionStore.migrateDaily(db)
            try DNSQueryLogStore.migrateHourly(db)
        }
        migrator.registerMigration("v-picket-2-moderation-log", migrate: PicketSchema.addModerationLog)
        migrator.registerMigration("v-console-2-shared-contacts", migrate: CallsSchema.shareContacts)
        migrator.registerMigration("v-picket-3-content-time", migrate: PicketSchema.addContentTime)
        migrator.registerMigration("v-console-3-sessions", migrate: ConsoleSessionStore.migrate)
        migrator.registerMigration("v-browser-2-site-block-counts", migrate: SiteBlockCountStore.migrate)
        migrator.registerMigration("v-calls-3-message-rule-revision", migrate: CallsSchema.addMessageRuleRevision)
        migrator.registerMigration("v-sync-1-records", migrate: SyncStore.migrate)
        migrator.registerMigration("v-dns-2-device-names", migrate: DNSQueryLogStore.addDevices)
        migrator.registerMigration("v-sync-2-outbox-and-devices") { db in
            try SyncOutbox.migrate(db)
            try SyncPairingStore.migrate(db)
        }
        return migrator
    }
}

/// Why the state database cannot be used.
public enum PepperDatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A reader found no database, or one a writer has not brought up to date.
    case notReady(String)
    /// The disk holding the database (at `path`) is full: the change was rolled back.
    case full(path: String)
    /// A newer Pepper wrote the database: it has applied `schema` migrations, `unknown` among
    /// them, where this Pepper knows `known`. Nothing was written to it.
    case newer(path: String, schema: Int, known: Int, unknown: [String])
    /// The database at `path` is suspended (``DatabaseSuspension``: the app is in the background
    /// with nothing allowed to write): the change was rolled back.
    case suspended(path: String)

    public var description: String {
        switch self {
        case .notReady(let reason): return reason
        case .full(let path): return "no space left on device while writing \(path) (the change was not stored)"
        case .suspended(let path):
            return "\(path) is suspended while Pepper is in the background (the change was not stored)"
        case .newer(let path, let schema, let known, let unknown):
            return "\(path) was written by a newer Pepper (schema \(schema); this Pepper knows up to \(known) and not "
                + unknown.joined(separator: ", ") + "): upgrade Pepper to use it; the file was left unchanged"
        }
    }
}

/// The pools this process holds open, by file (``PepperDatabase/openPools(at:)``).
final class OpenPools: @unchecked Sendable {
    static let shared = OpenPools()
    // NSLock, not Mutex: Mutex needs iOS 18 and macOS 15.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    /// Watches (``PepperDatabase/mostOpenPools(at:during:)``) by identifier: their file and the
    /// most pools seen open on it.
    private var watches: [UUID: (path: String, peak: Int)] = [:]

    /// Counts a pool on `url` until the returned registration is released.
    final class Registration: Sendable {
        let path: String
        init(path: String) { self.path = path }
        deinit { OpenPools.shared.unregister(path) }
    }

    func register(_ url: URL) -> Registration {
        let path = Self.key(url)
        lock.withLock {
            counts[path, default: 0] += 1
            let count = counts[path] ?? 0
            for (id, watch) in watches where watch.path == path && watch.peak < count { watches[id]?.peak = count }
        }
        return Registration(path: path)
    }

    /// Starts noting the most pools open on `url`, from the number open now.
    func watch(_ url: URL) -> UUID {
        let path = Self.key(url)
        let id = UUID()
        lock.withLock { watches[id] = (path, counts[path] ?? 0) }
        return id
    }

    /// The most pools seen open by the watch so far.
    func peak(_ watch: UUID) -> Int {
        lock.withLock { watches[watch]?.peak ?? 0 }
    }

    /// Stops a watch.
    func endWatch(_ watch: UUID) {
        _ = lock.withLock { watches.removeValue(forKey: watch) }
    }

    func count(_ url: URL) -> Int {
        lock.withLock { counts[Self.key(url)] ?? 0 }
    }

    private func unregister(_ path: String) {
        lock.withLock {
            counts[path, default: 1] -= 1
            if counts[path] == 0 { counts[path] = nil }
        }
    }

    private static func key(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
