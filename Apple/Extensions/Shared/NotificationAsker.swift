import AppExtensionSupport
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#else
import UserNotifications
#endif

/// Shows the questions about struck employers' sites as local notifications with Proceed and
/// Block buttons: the packet tunnel's (a lookup) and the filter control provider's (a connection,
/// naming the app). Both extensions compile this file (`Apple/project.yml`).
public struct NotificationAsker: PicketAskNotifier {
    /// An asker through this process's notification centre.
    public init() {}

    public func ask(_ notification: PicketAskNotification) {
        // The notification centre is not Sendable: it is reached where it is used.
        UNUserNotificationCenter.current().add(Self.request(for: notification))
    }

    /// The notification request for a question: shown now, in the question's category (which
    /// carries the Proceed and Block buttons), with the host for the app's answer.
    public static func request(for notification: PicketAskNotification) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.categoryIdentifier = PicketAskNotification.category
        content.threadIdentifier = PicketAskNotification.category
        content.userInfo = notification.userInfo
        return UNNotificationRequest(identifier: notification.identifier, content: content, trigger: nil)
    }
}
