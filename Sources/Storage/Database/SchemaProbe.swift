import Foundation
import GRDBSQLite

/// Reads which migrations a database file has applied without writing anything, when opening a
/// connection pool would write: GRDB's pool makes sure a non-empty `-wal` exists by committing
/// a transaction (creating and dropping a table) when the log is missing or empty, which is how
/// a state copied as one file, or closed by a Pepper without persistent WAL, is found.
///
/// ``PepperDatabase`` asks this before it opens its pool, and asks GRDB again once the pool is
/// open (a pool on a database whose log has frames writes nothing until it migrates).
enum SchemaProbe {
    /// The identifiers in `grdb_migrations` of the database at `url`, read with `immutable=1`
    /// (no lock taken, no `-wal` or `-shm` made); `nil` when there is no file, when its
    /// write-ahead log has frames (the main file may not hold them: the pool reads them
    /// instead), or when the file cannot be read this way (the pool then says why).
    static func appliedIdentifiers(at url: URL) -> Set<String>? {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        guard walSize == 0 else { return nil }
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard
            sqlite3_open_v2("file:" + escaped(path) + "?immutable=1", &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
                == SQLITE_OK, let connection
        else { return nil }
        guard let tables = strings(connection, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
        else { return nil }
        guard !tables.isEmpty else { return [] }
        return strings(connection, "SELECT identifier FROM grdb_migrations").map(Set.init)
    }

    /// The first column of every row of `sql`; `nil` when SQLite fails.
    private static func strings(_ connection: OpaquePointer, _ sql: String) -> [String]? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
        var values: [String] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_DONE: return values
            case SQLITE_ROW: values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            default: return nil
            }
        }
    }

    /// `path` for a `file:` URI: `%`, `?` and `#` would end or change the path.
    private static func escaped(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%?#")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}
