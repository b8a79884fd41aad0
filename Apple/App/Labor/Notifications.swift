import AppExtensionSupport
import AppSupport
import Foundation
import Screens
import UserNotifications

/// Local notifications: the strike-zone events, and the questions about a struck employer's
/// site (the packet tunnel's and the content filter's) with their Proceed and Block buttons.
/// The wording is `StrikeZoneNotification`'s and `PicketAskNotification`'s; what a tap or an
/// answer does — the overlay, the banner alone, letting the site through — is `PicketAlertStep`'s,
/// carried out by `AppContext.picketAlert`.
enum Notifications {
    /// Registers the buttons of the questions.
    static func registerCategories() {
        let proceed = UNNotificationAction(identifier: PicketAskNotification.proceedAction, title: PicketAskNotification.proceedTitle)
        let block = UNNotificationAction(
            identifier: PicketAskNotification.blockAction, title: PicketAskNotification.blockTitle, options: [.destructive])
        // `.customDismissAction`: a dismissal is reported too (it keeps the site blocked).
        let ask = UNNotificationCategory(
            identifier: PicketAskNotification.category, actions: [proceed, block], intentIdentifiers: [], options: [.customDismissAction])
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

    /// The event of a notification answer, in UserNotifications' identifiers.
    static func event(actionIdentifier: String) -> PicketAlertEvent? {
        PicketAlertEvent(
            actionIdentifier: actionIdentifier, defaultAction: UNNotificationDefaultActionIdentifier,
            dismissAction: UNNotificationDismissActionIdentifier)
    }

    /// Shows what `step` asks for: the overlay, or a sentence; after a "Proceed", has the tunnel
    /// read the allowlist again (the rebuild that followed reloads Safari's content blockers).
    @MainActor
    static func show(_ step: PicketAlertStep, model: AppModel) async {
        switch step {
        case .showOverlay(let overlay):
            model.picketOverlay = overlay
        case .proceed(let site):
            model.picketOverlay = nil
            model.notice = .success("\(site) is let through for 24 hours.")
            await TunnelControl.reload()
        case .keepBlocked:
            model.picketOverlay = nil
        case .say(let sentence):
            model.picketOverlay = nil
            model.notice = Notice(.info, sentence)
        case .showBanner, .nothing:
            break
        }
    }
}
