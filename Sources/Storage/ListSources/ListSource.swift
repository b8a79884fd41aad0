import FilterLists
import Foundation
import GRDB

/// A filter list the user subscribes to: where it comes from, how to read it, and the state of
/// its last download.
public struct ListSource: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "listSource"

    /// Row id.
    public var id: Int64?
    /// Unique short name (`easylist`).
    public var name: String
    /// An http(s) URL or a file path.
    public var location: String
    /// The list syntax, or `auto`.
    public var format: String
    /// Whether `pepper compile` and `pepper update` use it.
    public var enabled: Bool
    /// Whether it is one of Pepper's built-in entries.
    public var builtIn: Bool
    /// Format-specific settings as JSON (e.g. Disconnect categories).
    public var settings: String?
    /// ETag of the stored copy.
    public var etag: String?
    /// Last-Modified of the stored copy.
    public var lastModified: String?
    /// When the stored copy should be refreshed.
    public var expiresAt: Date?
    /// Last download attempt.
    public var lastAttempt: Date?
    /// Last successful download.
    public var lastSuccess: Date?
    /// The error of the last failed attempt, cleared on success.
    public var lastError: String?
    /// SHA-256 of the stored copy.
    public var sha256: String?
    /// Rules read from it at the last compilation.
    public var rulesIn: Int?
    /// WebKit rules produced from it at the last compilation.
    public var rulesOut: Int?
    /// When it was added.
    public var addedAt: Date

    /// A new source.
    public init(
        name: String, location: String, format: String = "auto", enabled: Bool = true, builtIn: Bool = false, settings: String? = nil
    ) {
        self.name = name
        self.location = location
        self.format = format
        self.enabled = enabled
        self.builtIn = builtIn
        self.settings = settings
        self.addedAt = Date()
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Whether the location is a URL to download (rather than a local file).
    public var isRemote: Bool { location.hasPrefix("http://") || location.hasPrefix("https://") }
}
