import Foundation
import Logging
import NIOPosix
import Picket
import PicketServer
import PostgresNIO
import Storage
import Testing

/// The two stores every store and end-to-end test runs on.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind. PostgreSQL needs `PEPPER_TEST_POSTGRES_URL` (set by
    /// `scripts/test.sh`, which starts a throwaway server); without it the test case is cancelled
    /// (skipped) with a message, or fails when `PEPPER_REQUIRE_POSTGRES=1`.
    func makeStore() async throws -> TestStore {
        switch self {
        case .sqlite:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "pepper-picket-\(UUID().uuidString.prefix(8))/pepper.sqlite")
            let store = TestStore(kind: self, location: url.path, store: SQLitePicketStore(database: try PepperDatabase(url: url)))
            return store
        case .postgresql:
            let url = try await TestPostgres.freshDatabase()
            return TestStore(kind: self, location: url, store: try await PostgresPicketStore.connect(url: url))
        }
    }
}

/// A store under test and where its data lives.
struct TestStore: Sendable {
    let kind: StoreKind
    /// The SQLite file or the PostgreSQL URL.
    let location: String
    let store: any PicketStore

    /// A second, independent connection to the same data (as another server process or
    /// `pepper picket moderate` would have).
    func reopen() async throws -> any PicketStore {
        switch kind {
        case .sqlite: return SQLitePicketStore(database: try PepperDatabase(url: URL(fileURLWithPath: location)))
        case .postgresql: return try await PostgresPicketStore.connect(url: location)
        }
    }

    /// The `--database` argument for this store.
    var databaseArgument: String { kind == .sqlite ? "sqlite:" + location : location }
}

/// The test PostgreSQL server, with a new database per test.
enum TestPostgres {
    static var serverURL: String? {
        ProcessInfo.processInfo.environment["PEPPER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static let skipMessage: Comment =
        "PostgreSQL tests need PEPPER_TEST_POSTGRES_URL (scripts/test.sh starts a throwaway server; by hand: source scripts/postgres-server.sh && pepper_postgres_start)"

    /// Creates an empty database on the test server and returns its URL.
    static func freshDatabase() async throws -> String {
        guard let serverURL else {
            if ProcessInfo.processInfo.environment["PEPPER_REQUIRE_POSTGRES"] == "1" {
                Issue.record("PEPPER_REQUIRE_POSTGRES=1 but PEPPER_TEST_POSTGRES_URL is not set")
            }
            try Test.cancel(skipMessage)
        }
        guard var components = URLComponents(string: serverURL), let host = components.host else {
            throw PicketStoreError.badLocation("bad PEPPER_TEST_POSTGRES_URL")
        }
        let name = "pepper_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
            database: components.path.count > 1 ? String(components.path.dropFirst()) : nil, tls: .disable)
        let logger = Logger(label: "pepper.test.postgres")
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query("CREATE DATABASE \(unescaped: name)", logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        components.path = "/" + name
        return components.string!
    }
}
