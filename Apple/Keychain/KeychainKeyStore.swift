import AppExtensionSupport
import Foundation
import PepperActions
import Security

/// The Picket API keys in the Keychain: one generic password per ``PicketKeyAccount``
/// (`KeychainItem`'s names), in the access group the app shares with the extensions that need a
/// key, readable after the first unlock, for background refreshes. No key lands in the shared
/// database. Compiled into the app and into each extension that lists `Keychain` in its sources
/// in `project.yml` (with the same `keychain-access-groups` entitlement and `PepperKeychainGroup`
/// Info.plist key), so they name the items alike.
struct KeychainKeyStore: PicketKeyStore {
    private func query(_ account: PicketKeyAccount) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: KeychainItem.service,
            kSecAttrAccount as String: KeychainItem.account(for: account),
            // The iOS-style keychain on macOS too, where access groups work as on iOS.
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let group = KeychainItem.accessGroup(infoDictionary: Bundle.main.infoDictionary) {
            query[kSecAttrAccessGroup as String] = group
        }
        return query
    }

    func key(for account: PicketKeyAccount) throws -> String? {
        var lookup = query(account)
        lookup[kSecReturnData as String] = true
        var result: AnyObject?
        let status = SecItemCopyMatching(lookup as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status) }
        return String(decoding: data, as: UTF8.self)
    }

    func setKey(_ key: String?, for account: PicketKeyAccount) throws {
        let deleted = SecItemDelete(query(account) as CFDictionary)
        guard deleted == errSecSuccess || deleted == errSecItemNotFound else { throw KeychainError(status: deleted) }
        guard let key else { return }
        var item = query(account)
        item[kSecValueData as String] = Data(key.utf8)
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else { throw KeychainError(status: added) }
    }
}

/// A Keychain call that failed, with its status.
struct KeychainError: Error, CustomStringConvertible {
    let status: OSStatus

    var description: String {
        "the Keychain refused (\(SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "status \(status)"))"
    }
}
