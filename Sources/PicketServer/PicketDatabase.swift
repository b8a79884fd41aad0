import Foundation
import Logging
import Picket
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

    /// Opens the store at `location` (migrating it), with `home` for ``Location/home``.
    public static func open(
        _ location: Location, home: PepperHome, logger: Logger = Logger(label: "pepper.picket")
    ) async throws
        -> any PicketStore
    {
        switch location {
        case .home:
            try home.prepare()
            return SQLitePicketStore(database: try PepperDatabase(home: home))
        case .sqlite(let path):
            let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            return SQLitePicketStore(database: try PepperDatabase(url: url))
        case .postgres(let url):
            return try await PostgresPicketStore.connect(url: url, logger: logger)
        }
    }
}
