import Foundation
import GRDB

/// Small settings that belong to no one capability: what the onboarding did (GNOME Web set up,
/// the DuckDuckGo suggestion answered), and where the faces find each other. Values are text.
public struct PreferenceStore: Sendable {
    /// The keys in use, in one place so that every face reads the same names.
    public enum Key: String, Sendable, CaseIterable {
        /// `done` once the person finished or skipped the onboarding.
        case onboarding = "onboarding"
        /// `on` while Pepper keeps GNOME Web's content filters pointing at its output.
        case gnomeWebFilters = "gnome-web.filters"
        /// The answer to the DuckDuckGo suggestion (``SearchSuggestionAnswer``), once given.
        case searchSuggestion = "search-suggestion"
        /// The country whose numbering plan reads numbers typed without a country code (`US`).
        case phoneRegion = "phone.region"
        /// `on` while every caller who is not a contact is blocked.
        case blockAllExceptContacts = "calls.block-all-except-contacts"
        /// The Picket server the person reports to (`https://…`).
        case picketServer = "picket.server"
        /// The API key for ``picketServer`` (never shown back in full), where no other key store
        /// is configured (the app keeps it in the Keychain).
        case picketKey = "picket.key"
        /// How the phone shows a question about a struck employer's site: `overlay` or `banner`.
        case picketAlerts = "picket.alerts"
        /// Where the phone's DNS protection sends names it does not answer: `network`,
        /// `dns-over-https URL` or `pepper IP:PORT` (unset: `network`).
        case dnsUpstream = "dns.upstream"
        /// How the phone's DNS is filtered: `tunnel` (unset) or `encrypted-dns` (iOS's DNS
        /// settings, to ``dnsEncryptedServer``).
        case dnsProtection = "dns.protection"
        /// The person's own Pepper as the phone's encrypted DNS server, a JSON object (server
        /// name, protocol, ports, this phone's device name, addresses); kept when the tunnel is
        /// chosen again.
        case dnsEncryptedServer = "dns.encrypted-server"
        /// The Picket list sources' API keys, a JSON object (list name → key), where no other key
        /// store is configured.
        case picketListKeys = "picket.list-keys"
    }

    /// The answer to the DuckDuckGo suggestion, stored as its raw value under
    /// ``Key/searchSuggestion`` (the texts stored since the onboarding began).
    public enum SearchSuggestionAnswer: String, Sendable, Hashable, CaseIterable {
        /// DuckDuckGo became the search engine.
        case accepted
        /// The suggestion was dismissed for good.
        case dismissed
    }

    private let database: PepperDatabase

    /// The preferences of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// The value of `key`, or `nil` when it was never set.
    public func value(_ key: Key) throws -> String? {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM preference WHERE key = ?", arguments: [key.rawValue])
        }
    }

    /// Sets `key`; `nil` removes it.
    public func set(_ key: Key, _ value: String?) throws {
        try database.writer.write { db in
            if let value {
                try db.execute(
                    sql: "INSERT INTO preference (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key.rawValue, value])
            } else {
                try db.execute(sql: "DELETE FROM preference WHERE key = ?", arguments: [key.rawValue])
            }
        }
    }

    /// Creates the table (migration `v-console-1`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "preference") { table in
            table.primaryKey("key", .text)
            table.column("value", .text).notNull()
        }
    }
}
