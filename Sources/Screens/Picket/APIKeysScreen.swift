import Foundation
import Picket

/// The API keys screen of a Picket store: the keys (never the keys themselves: only their
/// hashes are stored), creating one with its scopes (shown once), revoking one.
public struct APIKeysScreen: Sendable {
    /// One key.
    public struct Key: Sendable, Hashable {
        /// `key_…`: how people name it.
        public var id: String
        /// Its scopes.
        public var scopes: [String]
        /// Whose it is.
        public var label: String?
        /// When it was made.
        public var createdAt: Date
        /// When it was revoked, if it was.
        public var revokedAt: Date?
    }

    /// A key just created: the only time the key itself is shown.
    public struct Created: Sendable, Hashable {
        /// `key_…`.
        public var id: String
        /// The key (`opl_…`).
        public var key: String
        /// Its scopes.
        public var scopes: [String]
    }

    /// Every scope with what it allows, in the order offered.
    public static let scopes: [(scope: APIScope, allows: String)] = [
        (.readMobile, "the apps' data, active strikes and address lookups (and the blocklist feed)"),
        (.readBlocklist, "only the blocklist feed, for the OPL DNS server and browser extension"),
        (.writeGPSSnapshot, "sending GPS snapshots"),
        (.writeSubmitStrike, "reporting strikes"),
    ]

    /// The moderation service.
    public let moderation: PicketModeration

    /// The screen over `moderation`.
    public init(moderation: PicketModeration) {
        self.moderation = moderation
    }

    /// Every key, newest first.
    public func load() async throws(ScreenError) -> [Key] {
        do {
            return try await moderation.keys().map { record in
                Key(
                    id: record.id, scopes: record.scopes.map(\.rawValue), label: record.label, createdAt: record.createdAt,
                    revokedAt: record.revokedAt)
            }
        } catch {
            throw ScreenError("Cannot read the API keys (\(moderation.store.kind)): \(error).")
        }
    }

    /// Creates a key with `scopes` (their raw values); the key is in the result, shown once.
    public func create(scopes: [String], label: String?) async -> (Notice, Created?) {
        var chosen: [APIScope] = []
        for name in scopes {
            guard let scope = APIScope(rawValue: name) else { return (.error("Unknown scope \(name).", field: "scopes"), nil) }
            chosen.append(scope)
        }
        do {
            let (key, record) = try await moderation.createKey(scopes: chosen, label: label)
            return (
                .success("Created \(record.id). Copy the key now: only its hash is kept, so it cannot be shown again."),
                Created(id: record.id, key: key, scopes: record.scopes.map(\.rawValue))
            )
        } catch let error as PicketModeration.RequestError {
            let field = if case .noScope = error { "scopes" } else { "label" }
            return (.error(Text.sentence(error.description), field: field), nil)
        } catch {
            return (.error("Cannot create the key: \(error)."), nil)
        }
    }

    /// Creates a key from `preset` (a ``APIKeyPreset`` raw value: the key a kind of client needs,
    /// such as the mobile apps' one key for reading and reporting); shown once, like any key.
    public func create(preset name: String, label: String?) async -> (Notice, Created?) {
        guard let preset = APIKeyPreset(rawValue: name) else { return (.error("Unknown kind of key \(name).", field: "preset"), nil) }
        do {
            let (key, record) = try await moderation.createKey(preset: preset, label: label)
            return (
                .success(
                    "Created \(record.id) \(preset.purpose). Copy the key now: only its hash is kept, so it cannot be shown again."),
                Created(id: record.id, key: key, scopes: record.scopes.map(\.rawValue))
            )
        } catch let error as PicketModeration.RequestError {
            return (.error(Text.sentence(error.description), field: "preset-label"), nil)
        } catch {
            return (.error("Cannot create the key: \(error)."), nil)
        }
    }

    /// Revokes a key; servers on the same store refuse it within their refresh interval.
    public func revoke(_ id: String) async -> Notice {
        do {
            guard try await moderation.revokeKey(id: id) else { return .error("There is no active key \(id).") }
            return .success("Revoked \(id): servers on this store refuse it within a second or two (their --refresh-check).")
        } catch {
            return .error("Cannot revoke \(id): \(error).")
        }
    }
}
