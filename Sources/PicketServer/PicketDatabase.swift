import Foundation
import Logging
import Picket
import ServiceLifecycle
import Storage

/// Where `pepper picket` keeps the server's data: `--database sqlite:PATH`, a `postgres://`
/// URL, or (by default) the home's `pepper.sqlite`.
public enum PicketDatabase {
    /// What a `--database` argument names.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// The home's `pepper.sqlite`.
        case home
        /// Another SQLite file.
        case sqlite(path: String)
        /// A PostgreSQL database.
        case postgres(url: String)

        /// Reads `--database`; `nil` is the home's database.
        public init(_ argument: String?) throws(PicketStoreError) {
            guard let argument, !argument.isEmpty else {
                self = .home
                return
            }
            if argument.hasPrefix("sqlite:") {
                let path = String(argument.dropFirst("sqlite:".count))
                guard !path.isEmpty else { throw .badLocation("sqlite: needs a path (sqlite:/var/lib/pepper/picket.sqlite)") }
                self = .sqlite(path: path)
            } else if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
                self = .postgres(url: argument)
            } else {
                throw .badLocation("--database must be sqlite:PATH or a postgres:// URL, not '\(argument)'")
            }
        }

        public var description: String {
            switch self {
            case .home: return "sqlite (the Pepper home's pepper.sqlite)"
            case .sqlite(let path): return "sqlite:\(path)"
            case .postgres(let url): return PostgresLocation.redacted(url)
            }
        }
    }

    /// Opens the store at `location` (migrating it), with `home` for ``Location/home``. A process
    /// that has the home's state open already passes its database as `homeDatabase`, so that
    /// ``Location/home`` uses that connection pool rather than a second one on the same file.
    public static func open(
        _ location: Location, home: PepperHome, homeDatabase: PepperDatabase? = nil, logger: Logger = Logger(label: "pepper.picket")
    ) async throws
        -> any PicketStore
    {
        switch location {
        case .home:
            if let homeDatabase { return SQLitePicketStore(database: homeDatabase) }
            try home.prepare()
            return SQLitePicketStore(database: try PepperDatabase(home: home))
        case .sqlite(let path):
            let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            return SQLitePicketStore(database: try PepperDatabase(url: url))
        case .postgres(let url):
            return try await PostgresPicketStore.connect(url: url, logger: logger)
        }
    }

    /// Opens the store at `location` for a server: what the store needs running (a PostgreSQL
    /// connection pool) comes back as services to put first in the server's `ServiceGroup`,
    /// which then also closes the store, after the servers that use it have stopped.
    public static func openForServiceGroup(
        _ location: Location, home: PepperHome, logger: Logger = Logger(label: "pepper.picket")
    ) async throws -> ServiceGroupStore {
        switch location {
        case .home, .sqlite:
            let store = try await open(location, home: home, logger: logger)
            return ServiceGroupStore(store: store, services: [PicketStoreService(store: store)], prepare: {})
        case .postgres(let url):
            let (store, pool) = try PostgresPicketStore.unstarted(url: url, logger: logger)
            return ServiceGroupStore(
                store: store, services: [pool, PicketStoreService(store: store)], prepare: { try await store.migrate() })
        }
    }
}

/// A Picket store whose lifetime a `ServiceGroup` owns (``PicketDatabase/openForServiceGroup(_:home:logger:)``).
public struct ServiceGroupStore: Sendable {
    /// The store: usable once ``prepare()`` has returned.
    public let store: any PicketStore
    /// The services to put first in the group, in this order: a PostgreSQL store's connection
    /// pool, and ``PicketStoreService``.
    public let services: [any Service]
    private let preparation: @Sendable () async throws -> Void

    init(store: any PicketStore, services: [any Service], prepare: @escaping @Sendable () async throws -> Void) {
        self.store = store
        self.services = services
        self.preparation = prepare
    }

    /// Readies the store once ``services`` run (a PostgreSQL store applies its migrations).
    public func prepare() async throws {
        try await preparation()
    }
}
