import AppExtensionSupport
import AppSupport
import SwiftUI
import UserNotifications

#if os(iOS)
import UIKit
#else
import AppKit
#endif

/// Pepper on iPhone, iPad and Mac: one window whose tabs (a sidebar on iPad and Mac) bind the
/// portable screen models. Background list updates, the strike data's refresh and sync with the
/// serving home run as `BGAppRefreshTask`s; in front, the app follows the serving home.
@main
struct PepperApp: App {
    #if os(iOS)
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var delegate
    #else
    @NSApplicationDelegateAdaptor(AppDelegate.self) private var delegate
    #endif
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            RootView()
                // A list shared to Pepper ("Open in Pepper"): copied into the app group at once.
                .onOpenURL { url in Task { await delegate.model.listImports.receive(url, model: delegate.model) } }
                .listImportSheet()
                .environment(delegate.model)
                .task { await delegate.model.started() }
                // Sync: following the serving home while Pepper is in front, stopped (the sync
                // lock freed) before iOS suspends it.
                .onChange(of: scenePhase, initial: true) { _, phase in
                    switch phase {
                    case .active: delegate.model.sync?.becameActive()
                    case .background: delegate.model.sync?.enteredBackground()
                    default: break
                    }
                }
        }
        #if os(iOS)
        .backgroundTask(.appRefresh(BackgroundRefresh.listUpdateTask)) {
            if case .success(let context) = AppDelegate.opened { await BackgroundUpdates.run(context: context) }
        }
        .backgroundTask(.appRefresh(BackgroundRefresh.strikeDataTask)) { [delegate] in
            await delegate.refreshStrikeData()
        }
        // SwiftUI registers the handler at launch and cancels the task when iOS's time runs out
        // (which cancels the request); the next one is asked for at the end.
        .backgroundTask(.appRefresh(BackgroundRefresh.syncTask)) { [delegate] in
            await delegate.syncInBackground()
        }
        #endif
    }
}

/// Owns the app's one context (opened before anything else runs), receives the notifications
/// about struck employers' sites (a tap, Proceed / Block, their arrival while Pepper is in front),
/// and on iOS wakes for location events after a relaunch.
@MainActor
final class AppDelegate: NSObject, UNUserNotificationCenterDelegate {
    /// The one `AppContext` of this process: GRDB's rule is one connection pool per database
    /// file per process, so every part of the app shares it.
    nonisolated static let opened = AppModel.openContext()
    /// The window's model over it.
    lazy var model = AppModel(opened: Self.opened)

    private func launched(forLocation: Bool) {
        if case .success(let context) = Self.opened { DatabaseSuspensionHooks.install(context.suspension) }
        UNUserNotificationCenter.current().delegate = self
        Notifications.registerCategories()
        // A relaunch for a region event: the monitor reattaches to Core Location.
        if forLocation { model.geofences?.resume() }
    }

    /// Sync's background refresh: once, with the serving home.
    func syncInBackground() async {
        await model.sync?.syncInBackground()
    }

    /// The strike data's background refresh (a still phone gets no location events).
    func refreshStrikeData() async {
        guard let monitor = model.geofences, let context = model.context else { return }
        await BackgroundUpdates.refreshStrikeData(monitor: monitor, context: context)
    }

    nonisolated func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        // Read what is needed here: the response is not Sendable and stays on this side.
        let content = response.notification.request.content
        guard let alert = PicketAlert(categoryIdentifier: content.categoryIdentifier, userInfo: content.userInfo),
            let event = Notifications.event(actionIdentifier: response.actionIdentifier),
            case .success(let context) = Self.opened
        else { return }
        // A tap opens the overlay or only Pepper, as the person chose; Proceed lets the site through.
        await show(await context.picketAlert(event, alert: alert))
    }

    nonisolated func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        let content = notification.request.content
        guard let alert = PicketAlert(categoryIdentifier: content.categoryIdentifier, userInfo: content.userInfo),
            case .success(let context) = Self.opened
        else { return [.banner, .sound] }
        // Pepper is in front: the overlay at once (overlay mode), or the banner alone.
        let step = await context.picketAlert(.arrivedWhileOpen, alert: alert)
        await show(step)
        return step == .showBanner ? [.banner, .sound] : []
    }

    private func show(_ step: PicketAlertStep) async {
        await Notifications.show(step, model: model)
    }
}

#if os(iOS)
extension AppDelegate: UIApplicationDelegate {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        launched(forLocation: options?[.location] != nil)
        return true
    }
}
#else
extension AppDelegate: NSApplicationDelegate {
    func applicationDidFinishLaunching(_ notification: Notification) {
        launched(forLocation: false)
    }
}
#endif
