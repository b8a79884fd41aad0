import Foundation
import PepperTestSupport
import Testing

/// A PostgreSQL dump restored into a fresh database of the test server, with `psql`.
enum PostgresDump {
    static var serverURL: String? {
        ProcessInfo.processInfo.environment["PEPPER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The server's URL; the test is cancelled (skipped) without one, or fails when
    /// `PEPPER_REQUIRE_POSTGRES=1`.
    static func server() throws -> String {
        guard let serverURL else {
            if ProcessInfo.processInfo.environment["PEPPER_REQUIRE_POSTGRES"] == "1" {
                Issue.record("PEPPER_REQUIRE_POSTGRES=1 but PEPPER_TEST_POSTGRES_URL is not set")
            }
            try Test.cancel(
                "PostgreSQL tests need PEPPER_TEST_POSTGRES_URL (scripts/test.sh starts a throwaway server; by hand: source scripts/postgres-server.sh && pepper_postgres_start)"
            )
        }
        return serverURL
    }

    /// A new, empty database on the test server: its URL.
    static func freshDatabase() async throws -> String {
        let server = try server()
        let name = "pepper_upgrade_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await psql(server, ["-c", "CREATE DATABASE \(name)"])
        var components = try #require(URLComponents(string: server))
        components.path = "/" + name
        return try #require(components.string)
    }

    /// A fresh database holding `dump`: its URL.
    static func restore(_ dump: URL) async throws -> String {
        let url = try await freshDatabase()
        try await psql(url, ["-f", dump.path])
        return url
    }

    /// The first column of every row of `sql`.
    static func query(_ url: String, _ sql: String) async throws -> [String] {
        try await psql(url, ["-A", "-t", "-c", sql]).split(separator: "\n").map(String.init)
    }

    /// Runs psql on `url`, stopping at the first error; returns what it printed.
    @discardableResult
    static func psql(_ url: String, _ arguments: [String]) async throws -> String {
        let outcome = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url] + arguments)
        try #require(outcome.status == 0, "psql \(arguments.joined(separator: " ")): \(outcome.stderr)")
        return outcome.stdout
    }

    /// The rows of `table` in a plain `pg_dump` (its `COPY … FROM stdin` block), split on tabs.
    static func rows(of table: String, in dump: String) -> [[String]] {
        var rows: [[String]] = []
        var inside = false
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if inside {
                if line == "\\." { break }
                rows.append(line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init))
            } else if line.hasPrefix("COPY public.\(table) ") {
                inside = true
            }
        }
        return rows
    }
}
