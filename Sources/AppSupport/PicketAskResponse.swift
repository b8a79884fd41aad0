import AppExtensionSupport
import Foundation
import Picket

/// What the app does when the person answers the packet tunnel's question about a struck
/// employer's site (``PicketAskNotification``).
public enum PicketAskResponse: Sendable, Hashable {
    /// "Proceed": allowlist the site for 24 hours (DNS and content blocker), then have the
    /// tunnel read the allowlist again.
    case proceed(site: String, for: TimeInterval)
    /// "Block", or the notification dismissed: nothing changes.
    case keepBlocked

    /// The response to the button `actionIdentifier` of a notification with `userInfo`;
    /// `nil` for another notification.
    public init?(actionIdentifier: String, categoryIdentifier: String, userInfo: [AnyHashable: Any]) {
        guard categoryIdentifier == PicketAskNotification.category else { return nil }
        guard actionIdentifier == PicketAskNotification.proceedAction,
            let host = userInfo[PicketAskNotification.hostKey] as? String, !host.isEmpty
        else {
            self = .keepBlocked
            return
        }
        self = .proceed(site: host, for: PicketNotice.proceedDuration)
    }

    /// The address the browser's "Proceed anyway" takes for the same site (the allowlist's input).
    public var pageAddress: String? {
        guard case .proceed(let site, _) = self else { return nil }
        return "https://\(site)/"
    }
}
