import Foundation

/// Where the commands that use a Picket store (`pepper picket …`, `pepper console`) find it.
enum PicketDatabaseLocation {
    /// The environment variable read when no flag names the store: a PostgreSQL URL with a
    /// password stays off the command line, which every local user can read (`docs/deploy.md`).
    static let environmentVariable = "PEPPER_PICKET_DATABASE"

    /// The flag's value, else `$PEPPER_PICKET_DATABASE` when set and not empty, else `nil` (the
    /// home's `pepper.sqlite`).
    static func argument(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        flag ?? environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
