import AppExtensionSupport
import AppSupport
import Foundation
import UserNotifications

/// Local notifications: the strike-zone events, and the tunnel's question about a struck
/// employer's site with its Proceed and Block buttons. The wording is `StrikeZoneNotification`'s
/// and `PicketAskNotification`'s; what an answer does is `AppContext.answer`'s.
enum Notifications {
    /// Registers the buttons of the tunnel's question.
    static func registerCategories() {
        let proceed = UNNotificationAction(identifier: PicketAskNotification.proceedAction, title: PicketAskNotification.proceedTitle)
        let block = UNNotificationAction(
            identifier: PicketAskNotification.blockAction, title: PicketAskNotification.blockTitle, options: [.destructive])
        let ask = UNNotificationCategory(identifier: PicketAskNotification.category, actions: [proceed, block], intentIdentifiers: [])
        let zone = UNNotificationCategory(identifier: StrikeZoneNotification.category, actions: [], intentIdentifiers: [])
        UNUserNotificationCenter.current().setNotificationCategories([ask, zone])
    }

    /// Asks once whether Pepper may notify.
    static func requestPermission() async {
        _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound])
    }

    /// Shows a strike-zone event now.
    static func post(_ notification: StrikeZoneNotification) {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.threadIdentifier = notification.threadIdentifier
        content.categoryIdentifier = StrikeZoneNotification.category
        content.sound = .default
        UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: notification.identifier, content: content, trigger: nil))
    }

    /// Acts on an answer to the tunnel's question ("Proceed" lets the site through for 24 hours;
    /// the rebuild reloads Safari's content blockers), then has the tunnel read the allowlist again.
    static func act(on answer: PicketAskResponse, context: AppContext) async {
        do {
            if try await context.answer(answer) { await TunnelControl.reload() }
        } catch {
            print("The answer to the tunnel's question was not applied: \(error)")
        }
    }
}
