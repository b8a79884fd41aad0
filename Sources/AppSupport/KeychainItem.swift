import Foundation

/// Where the Picket API key is kept in the Keychain: one generic-password item, in an access
/// group the app shares with its extensions, readable after the first unlock (background
/// refreshes run while the device is locked).
public enum KeychainItem {
    /// The item's service.
    public static let service = "org.pepper.picket"
    /// The item's account.
    public static let account = "api-key"
    /// The Info.plist key naming the keychain access group (`$(AppIdentifierPrefix)…`, set in
    /// `Apple/project.yml`), so the identifier is written once.
    public static let accessGroupInfoKey = "PepperKeychainGroup"

    /// The access group the Info.plist names, or `nil` (then the app's default group is used).
    public static func accessGroup(infoDictionary: [String: Any]?) -> String? {
        guard let group = infoDictionary?[accessGroupInfoKey] as? String, !group.isEmpty, !group.hasPrefix("$(") else { return nil }
        return group
    }
}
