import Foundation
import Picket
import Storage

/// The Picket server a person reports strikes and snapshots to, and the key they use: set once,
/// kept in the state, the key never shown back in full.
public struct PicketConnection: Sendable, Hashable {
    /// The server's base URL.
    public var server: URL
    /// The API key.
    public var key: String

    /// The key as it may be shown again (`opl_…3f9c`).
    public var maskedKey: String { APIKeys.masked(key) }

    /// A client for the server with the key.
    public func client(timeout: TimeInterval = 15) -> PicketClient {
        PicketClient(server: server, apiKey: key, timeout: timeout)
    }
}

/// Whose Picket API key: the person's server (reports, snapshots, geofences), or a Picket list
/// source (its blocklist, fetched with the key it was added with).
public enum PicketKeyAccount: Sendable, Hashable, CustomStringConvertible {
    /// The key of the server the person reports to (``PicketConnection``).
    case connection
    /// The key of the Picket list source with this name (`pepper lists add picket:… --key`,
    /// "Use the server's blocklist").
    case listSource(String)

    /// `connection`, or `list:NAME`: the name the stores file the key under.
    public var description: String {
        switch self {
        case .connection: "connection"
        case .listSource(let name): "list:\(name)"
        }
    }
}

/// Where Picket API keys are kept: a seam, because a key is a secret and each platform has its
/// own place for secrets. On Linux it is the state's preferences (``PreferencePicketKeyStore``,
/// the default: the state database is the user's own); the iOS app passes its Keychain store
/// through ``PepperState/Configuration/picketKeys``, so no key lands in the database the app
/// shares with its extensions. Keys are filed by ``PicketKeyAccount``.
public protocol PicketKeyStore: Sendable {
    /// The key of `account`, or `nil` when there is none.
    func key(for account: PicketKeyAccount) throws -> String?
    /// Stores the key of `account`; `nil` removes it.
    func setKey(_ key: String?, for account: PicketKeyAccount) throws
}

extension PicketKeyStore {
    /// The key of the person's server (``PicketKeyAccount/connection``).
    public func key() throws -> String? { try key(for: .connection) }

    /// Stores the key of the person's server; `nil` removes it.
    public func setKey(_ key: String?) throws { try setKey(key, for: .connection) }
}

/// The Picket keys in the state's preferences: the server's under `picket.key`, the list
/// sources' under `picket.list-keys` (a JSON object, list name → key).
public struct PreferencePicketKeyStore: PicketKeyStore {
    private let preferences: PreferenceStore

    /// The key store of `database`.
    public init(database: PepperDatabase) {
        preferences = PreferenceStore(database: database)
    }

    /// The stored key of `account`.
    public func key(for account: PicketKeyAccount) throws -> String? {
        switch account {
        case .connection: return try preferences.value(.picketKey)
        case .listSource(let name): return try listKeys()[name]
        }
    }

    /// Stores or removes the key of `account`.
    public func setKey(_ key: String?, for account: PicketKeyAccount) throws {
        switch account {
        case .connection:
            try preferences.set(.picketKey, key)
        case .listSource(let name):
            var keys = try listKeys()
            keys[name] = key
            let text = try String(decoding: JSONEncoder.sorted.encode(keys), as: UTF8.self)
            try preferences.set(.picketListKeys, keys.isEmpty ? nil : text)
        }
    }

    private func listKeys() throws -> [String: String] {
        guard let text = try preferences.value(.picketListKeys) else { return [:] }
        return try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, so the same keys always make the same text.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension PepperState {
    /// Where this state keeps the Picket keys: the configured store, else the preferences.
    public var picketKeyStore: any PicketKeyStore {
        configuration.picketKeys ?? PreferencePicketKeyStore(database: database)
    }

    /// The configured Picket server, or `nil` when none is.
    public func picketConnection() throws(ActionError) -> PicketConnection? {
        do {
            let preferences = PreferenceStore(database: database)
            guard let server = try preferences.value(.picketServer).flatMap(URL.init(string:)), let key = try picketKeyStore.key()
            else { return nil }
            return PicketConnection(server: server, key: key)
        } catch {
            throw .storage("cannot read the Picket server settings: \(error)")
        }
    }

    /// Sets the Picket server; an empty `key` keeps the stored one (so no form ever needs to
    /// show the key again).
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` naming `server` or `key`.
    @discardableResult
    public func setPicketConnection(server: String, key: String?) throws(ActionError) -> PicketConnection {
        let trimmed = try Self.picketServerAddress(server)
        let given = key?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let chosen: String
        if given.isEmpty {
            guard let stored = try picketConnection()?.key else {
                throw .invalidField(field: "key", problem: .keyNeeded)
            }
            chosen = stored
        } else {
            guard APIKeyFormat.isWellFormed(given) else {
                throw .invalidField(field: "key", problem: .malformedKey)
            }
            chosen = given
        }
        do {
            try picketKeyStore.setKey(chosen)
            try PreferenceStore(database: database).set(.picketServer, trimmed)
        } catch {
            throw .storage("cannot save the Picket server settings: \(error)")
        }
        return PicketConnection(server: URL(string: trimmed)!, key: chosen)
    }

    /// A Picket server's address as stored (`http(s)://HOST[:PORT][/PATH]`, no trailing slash):
    /// the one check of an address a person types and of one another device synced.
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` naming `server`.
    public static func picketServerAddress(_ server: String) throws(ActionError) -> String {
        let address = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw .invalidField(field: "server", problem: .serverAddressNeeded)
        }
        return address.hasSuffix("/") ? String(address.dropLast()) : address
    }

    /// Forgets the Picket server and its key.
    public func forgetPicketConnection() throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.picketServer, nil)
            try picketKeyStore.setKey(nil)
        } catch {
            throw .storage("cannot forget the Picket server settings: \(error)")
        }
    }
}
