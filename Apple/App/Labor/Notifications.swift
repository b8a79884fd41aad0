import AppExtensionSupport
import AppSupport
import Foundation
import PepperActions
import UserNotifications

/// Local notifications: the strike-zone events, and the tunnel's question about a struck
/// employer's site with its Proceed and Block buttons. The wording is `StrikeZoneNotification`'s
/// and `PicketAskNotification`'s; what an answer does is `PicketAskResponse`'s.
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

    /// Acts on an answer: "Proceed" allowlists the site for 24 hours (the rebuild reloads
    /// Safari's content blockers, as every rebuild of the app's state does), then the tunnel
    /// reads the allowlist again.
    static func handle(_ response: UNNotificationResponse) async {
        let content = response.notification.request.content
        guard
            let answer = PicketAskResponse(
                actionIdentifier: response.actionIdentifier, categoryIdentifier: content.categoryIdentifier, userInfo: content.userInfo),
            case .proceed(_, let duration) = answer, let page = answer.pageAddress,
            let state = try? AppModel.openState()
        else { return }
        _ = try? await state.setBlocking(false, onPage: page, until: Date().addingTimeInterval(duration))
        await TunnelControl.reload()
    }
}
