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

/// Where the Picket API key is kept: a seam, because the key is a secret and each platform has
/// its own place for secrets. On Linux it is the state's preferences
/// (``PreferencePicketKeyStore``, the default); the iOS app passes a Keychain store through
/// ``PepperState/Configuration/picketKeys``, so the key never lands in the shared database.
public protocol PicketKeyStore: Sendable {
    /// The stored key, or `nil` when there is none.
    func key() throws -> String?
    /// Stores `key`; `nil` removes it.
    func setKey(_ key: String?) throws
}

/// The Picket key in the state's preferences (`picket.key`).
public struct PreferencePicketKeyStore: PicketKeyStore {
    private let preferences: PreferenceStore

    /// The key store of `database`.
    public init(database: PepperDatabase) {
        preferences = PreferenceStore(database: database)
    }

    /// The stored key.
    public func key() throws -> String? { try preferences.value(.picketKey) }

    /// Stores or removes the key.
    public func setKey(_ key: String?) throws { try preferences.set(.picketKey, key) }
}

extension PepperState {
    /// Where this state keeps the Picket key: the configured store, else the preferences.
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
        let address = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw .invalidField(field: "server", problem: .serverAddressNeeded)
        }
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
        let trimmed = address.hasSuffix("/") ? String(address.dropLast()) : address
        do {
            try picketKeyStore.setKey(chosen)
            try PreferenceStore(database: database).set(.picketServer, trimmed)
        } catch {
            throw .storage("cannot save the Picket server settings: \(error)")
        }
        return PicketConnection(server: URL(string: trimmed)!, key: chosen)
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
