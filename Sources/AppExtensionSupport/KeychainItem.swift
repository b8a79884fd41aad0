import Foundation
import PepperActions

/// Where the Picket API keys are kept in the Keychain: one generic-password item per
/// `PicketKeyAccount`, under one service, in an access group the app shares with the
/// extensions that need a key (`keychain-access-groups` in `Apple/project.yml`), readable after
/// the first unlock (background refreshes run while the device is locked). Here, not in the app's
/// own module, so an extension names the items exactly as the app does.
public enum KeychainItem {
    /// The items' service.
    public static let service = "org.pepper.picket"
    /// The account of the key of the person's server (the only item before list keys moved to
    /// the Keychain: its name is kept so an upgraded app finds it).
    public static let account = "api-key"
    /// The Info.plist key naming the keychain access group (`$(AppIdentifierPrefix)…`, set in
    /// `Apple/project.yml`), so the identifier is written once.
    public static let accessGroupInfoKey = "PepperKeychainGroup"

    /// The item's account for `account`: ``KeychainItem/account`` for the server's key, `list:NAME` for a
    /// Picket list source's.
    public static func account(for account: PicketKeyAccount) -> String {
        switch account {
        case .connection: Self.account
        case .listSource(let name): "list:\(name)"
        }
    }

    /// The access group the Info.plist names, or `nil` (then the app's default group is used).
    public static func accessGroup(infoDictionary: [String: Any]?) -> String? {
        guard let group = infoDictionary?[accessGroupInfoKey] as? String, !group.isEmpty, !group.hasPrefix("$(") else { return nil }
        return group
    }
}
