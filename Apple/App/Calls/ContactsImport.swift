#if os(iOS)
import Contacts
import Foundation

/// The contacts the person grants, as the vCard text `CallsScreen.importContacts(vCard:)`
/// reads: numbers only are kept, for "block all except contacts" and the SMS guard.
enum ContactsImport {
    /// Asks for access and returns every contact with a phone number as vCard text.
    static func vCard() async throws -> String {
        let store = CNContactStore()
        guard try await store.requestAccess(for: .contacts) else { throw ContactsImportError.notGranted }
        // Contacts are read and written out on one task away from the main actor: `CNContact`
        // and the store are not Sendable, so only the finished text crosses back.
        return try await Task.detached(priority: .userInitiated) {
            let store = CNContactStore()
            let request = CNContactFetchRequest(keysToFetch: [CNContactVCardSerialization.descriptorForRequiredKeys()])
            var found: [CNContact] = []
            try store.enumerateContacts(with: request) { contact, _ in
                if !contact.phoneNumbers.isEmpty { found.append(contact) }
            }
            return String(decoding: try CNContactVCardSerialization.data(with: found), as: UTF8.self)
        }.value
    }
}

/// Why the contacts were not read.
enum ContactsImportError: Error, CustomStringConvertible {
    case notGranted

    var description: String { "Pepper may not read your contacts: allow it in Settings › Apps › Pepper › Contacts." }
}
#endif
