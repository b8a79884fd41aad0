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
        let keys = [CNContactVCardSerialization.descriptorForRequiredKeys()]
        let request = CNContactFetchRequest(keysToFetch: keys)
        let contacts = try await Task.detached {
            var found: [CNContact] = []
            try store.enumerateContacts(with: request) { contact, _ in
                if !contact.phoneNumbers.isEmpty { found.append(contact) }
            }
            return found
        }.value
        let data = try CNContactVCardSerialization.data(with: contacts)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why the contacts were not read.
enum ContactsImportError: Error, CustomStringConvertible {
    case notGranted

    var description: String { "Pepper may not read your contacts: allow it in Settings › Apps › Pepper › Contacts." }
}
#endif
