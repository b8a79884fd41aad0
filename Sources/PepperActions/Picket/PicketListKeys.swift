import Foundation
import ListSync
import Storage

/// The API keys of Picket list sources: in a key store (``PicketKeyStore``: the Keychain in the
/// app and its extensions), filed under ``PicketKeyAccount/listSource(_:)``, read when a source
/// is fetched. No key is kept in a source's settings: an earlier Pepper did, and
/// ``moveAll()`` moves such keys out.
///
/// A face with a ``PepperState`` uses its ``PepperState/listUpdater(downloader:)``; a process
/// that opens only the database (an extension that updates lists) builds a `ListUpdater` with
/// `picketKey: PicketListKeys(keys: KeychainKeyStore(), database: database).key(for:)`.
public struct PicketListKeys: Sendable {
    /// Where the keys are.
    public let keys: any PicketKeyStore
    /// The state database whose list sources they belong to.
    public let database: PepperDatabase

    /// The keys of `database`'s Picket list sources, in `keys`.
    public init(keys: any PicketKeyStore, database: PepperDatabase) {
        self.keys = keys
        self.database = database
    }

    /// The API key of the Picket list source `source`: its key in the key store; a key an
    /// earlier Pepper left in the source's settings is moved to the key store first.
    ///
    /// - Returns: `nil` when the source has no key anywhere.
    public func key(for source: ListSource) throws -> String? {
        if let key = try keys.key(for: .listSource(source.name)) { return key }
        guard let legacy = source.legacyPicketKey else { return nil }
        try move(legacy, of: source.name)
        return legacy
    }

    /// Moves the API keys an earlier Pepper kept in Picket list sources' settings (in the
    /// database the app shares with its extensions) to the key store, then removes them from
    /// the database (`ListSourceStore/forgetLegacyPicketKey(_:named:)`: the bytes are
    /// overwritten, not only the rows). A key is removed only once the key store gives it back;
    /// a source whose key store already has a key keeps that one.
    ///
    /// - Returns: The names of the sources whose key was moved.
    @discardableResult
    public func moveAll() throws -> [String] {
        var moved: [String] = []
        for source in try ListSourceStore(database: database).all() {
            guard let legacy = source.legacyPicketKey else { continue }
            try move(legacy, of: source.name)
            moved.append(source.name)
        }
        return moved
    }

    private func move(_ legacy: String, of name: String) throws {
        let account = PicketKeyAccount.listSource(name)
        if try keys.key(for: account) == nil {
            try keys.setKey(legacy, for: account)
            guard try keys.key(for: account) == legacy else { throw PicketKeyMoveError(source: name) }
        }
        try ListSourceStore(database: database).forgetLegacyPicketKey(legacy, named: name)
    }
}

/// The key store did not give back the key it was given: the key stays where it was.
struct PicketKeyMoveError: Error, CustomStringConvertible {
    let source: String

    var description: String { "the key store did not keep the key of \(source); it stays where it was" }
}

extension PepperState {
    /// The keys of this state's Picket list sources, in its key store.
    public var picketListKeys: PicketListKeys { PicketListKeys(keys: picketKeyStore, database: database) }

    /// The API key of the Picket list source `source` (``PicketListKeys/key(for:)``).
    public func picketKey(for source: ListSource) throws -> String? {
        try picketListKeys.key(for: source)
    }

    /// Moves the keys an earlier Pepper kept in list sources' settings to the key store
    /// (``PicketListKeys/moveAll()``). The app runs it at startup; a fetch moves the key of the
    /// source it fetches too, so every face moves the keys it meets.
    ///
    /// - Returns: The names of the sources whose key was moved.
    @discardableResult
    public func moveListKeysToKeyStore() throws(ActionError) -> [String] {
        do {
            return try picketListKeys.moveAll()
        } catch {
            throw .storage("cannot move the Picket lists' keys to the key store: \(error)")
        }
    }

    /// A list updater whose Picket sources read their keys from this state's key store.
    public func listUpdater(downloader: ListDownloader = ListDownloader()) -> ListUpdater {
        ListUpdater(
            home: home, database: database, downloader: downloader,
            picketKey: { [keys = picketListKeys] source in try keys.key(for: source) })
    }
}
