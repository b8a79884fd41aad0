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

extension PepperState {
    /// The configured Picket server, or `nil` when none is.
    public func picketConnection() throws(ActionError) -> PicketConnection? {
        do {
            let preferences = PreferenceStore(database: database)
            guard let server = try preferences.value(.picketServer).flatMap(URL.init(string:)), let key = try preferences.value(.picketKey)
            else { return nil }
            return PicketConnection(server: server, key: key)
        } catch {
            throw .storage("cannot read the Picket server settings: \(error)")
        }
    }

    /// Sets the Picket server; an empty `key` keeps the stored one (so no form ever needs to
    /// show the key again).
    ///
    /// - Throws: ``ActionError/invalidField(field:reason:)`` naming `server` or `key`.
    @discardableResult
    public func setPicketConnection(server: String, key: String?) throws(ActionError) -> PicketConnection {
        let address = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw .invalidField(field: "server", reason: "give the server's address, such as https://picket.example.org")
        }
        let given = key?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let chosen: String
        if given.isEmpty {
            guard let stored = try picketConnection()?.key else {
                throw .invalidField(
                    field: "key", reason: "give the API key the server's operator gave you (opl_ and 64 hexadecimal digits)")
            }
            chosen = stored
        } else {
            guard APIKeyFormat.isWellFormed(given) else {
                throw .invalidField(field: "key", reason: "an API key is opl_ followed by 64 hexadecimal digits")
            }
            chosen = given
        }
        let trimmed = address.hasSuffix("/") ? String(address.dropLast()) : address
        do {
            let preferences = PreferenceStore(database: database)
            try preferences.set(.picketServer, trimmed)
            try preferences.set(.picketKey, chosen)
        } catch {
            throw .storage("cannot save the Picket server settings: \(error)")
        }
        return PicketConnection(server: URL(string: trimmed)!, key: chosen)
    }

    /// Forgets the Picket server and its key.
    public func forgetPicketConnection() throws(ActionError) {
        do {
            let preferences = PreferenceStore(database: database)
            try preferences.set(.picketServer, nil)
            try preferences.set(.picketKey, nil)
        } catch {
            throw .storage("cannot forget the Picket server settings: \(error)")
        }
    }
}
