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
    /// Format-specific settings as JSON (the chosen categories of a Tracker Radar or Disconnect list).
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

    /// Dates written as ``StoredDate`` writes them (GRDB's text, without ICU's formatter).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }

    /// Dates read as ``StoredDate`` reads them (without ICU's calendar).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom { StoredDate.fromDatabaseValue($0)?.date }
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Whether the location is a URL to download (rather than a local file).
    public var isRemote: Bool { Self.isRemote(location) }

    /// Whether `location` is downloaded (an http(s) URL or a Picket server) rather than a local
    /// file: the one test of it, for stored sources, lists being added and SOURCE arguments.
    public static func isRemote(_ location: String) -> Bool { isWeb(location) || isPicket(location) }

    /// Whether `location` is an http(s) URL.
    public static func isWeb(_ location: String) -> Bool { location.hasPrefix("http://") || location.hasPrefix("https://") }

    /// Whether `location` is the Picket blocklist of a server (`picket:https://SERVER`).
    public static func isPicket(_ location: String) -> Bool { location.hasPrefix("picket:") }

    /// For Tracker Radar and Disconnect sources: the categories chosen in ``settings``
    /// (`{"categories": [...]}`); `nil` when none were chosen (the list's default applies).
    /// What a list offers and what a choice may be is decided in PepperActions
    /// (`ListCategories`), the same for every face.
    public var categories: [String]? {
        get {
            guard let settings, let data = settings.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["categories"] as? [String]
        }
        set {
            guard let newValue else {
                settings = nil
                return
            }
            let data = try? JSONSerialization.data(withJSONObject: ["categories": newValue], options: [.sortedKeys])
            settings = data.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// For Picket sources (`picket:https://SERVER`) added by an earlier Pepper: the API key
    /// their ``settings`` kept (`{"key": "opl_…"}`). Keys now live in a key store (the Keychain
    /// in the app, never the shared database); this is read only to move such a key there
    /// (`PepperState.moveListKeysToKeyStore()`), and nothing writes it any more.
    public var legacyPicketKey: String? {
        guard let settings, let data = settings.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["key"] as? String
    }

    /// Whether the location is the Picket blocklist of a server (`picket:https://SERVER`).
    public var isPicket: Bool { Self.isPicket(location) }

    /// Whether `name` can name a source (it is also the file name of its stored copy).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64 else { return false }
        let allowed = { (byte: UInt8) in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        return first != UInt8(ascii: ".") && name.utf8.allSatisfy(allowed)
    }
}
