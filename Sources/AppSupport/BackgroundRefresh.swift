import Foundation
import Storage

/// The app's background list updates (`BGAppRefreshTask`): their identifier, listed in the
/// Info.plist's `BGTaskSchedulerPermittedIdentifiers`, and when to ask for the next one.
public enum BackgroundRefresh {
    /// The task's identifier.
    public static let listUpdateTask = "org.pepper.update-lists"
    /// The soonest a next update is asked for.
    public static let minimumInterval: TimeInterval = 60 * 60
    /// The latest: lists without an expiry are still checked daily.
    public static let maximumInterval: TimeInterval = 24 * 60 * 60
    /// When nothing says otherwise.
    public static let defaultInterval: TimeInterval = 6 * 60 * 60

    /// The earliest date for the next update: when the first enabled list expires (its
    /// `! Expires:` or the server's refresh interval), kept between an hour and a day from
    /// `now`; six hours when no list says.
    public static func nextUpdate(after now: Date, lists: [ListSource]) -> Date {
        let expiries = lists.filter(\.enabled).compactMap(\.expiresAt)
        guard let first = expiries.min() else { return now.addingTimeInterval(defaultInterval) }
        let wait = min(max(first.timeIntervalSince(now), minimumInterval), maximumInterval)
        return now.addingTimeInterval(wait)
    }
}

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
