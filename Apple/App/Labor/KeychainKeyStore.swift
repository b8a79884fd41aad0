import AppSupport
import Foundation
import PepperActions
import Security

/// The Picket API key in the Keychain (one generic password, `KeychainItem`'s names), so it
/// never lands in the shared database; readable after the first unlock, for background
/// refreshes.
struct KeychainKeyStore: PicketKeyStore {
    private var query: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: KeychainItem.service,
            kSecAttrAccount as String: KeychainItem.account,
        ]
        if let group = KeychainItem.accessGroup(infoDictionary: Bundle.main.infoDictionary) {
            query[kSecAttrAccessGroup as String] = group
        }
        return query
    }

    func key() throws -> String? {
        var lookup = query
        lookup[kSecReturnData as String] = true
        var result: AnyObject?
        let status = SecItemCopyMatching(lookup as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status) }
        return String(decoding: data, as: UTF8.self)
    }

    func setKey(_ key: String?) throws {
        let deleted = SecItemDelete(query as CFDictionary)
        guard deleted == errSecSuccess || deleted == errSecItemNotFound else { throw KeychainError(status: deleted) }
        guard let key else { return }
        var item = query
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
