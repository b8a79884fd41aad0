import AppSupport
import SwiftUI

#if os(iOS)
import UIKit
import UserNotifications
#endif

/// Pepper on iPhone, iPad and Mac: one window whose tabs (a sidebar on iPad and Mac) bind the
/// portable screen models. Background list updates run as a `BGAppRefreshTask`.
@main
struct PepperApp: App {
    #if os(iOS)
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var delegate
    #endif
    @State private var model = AppModel()

    var body: some Scene {
        WindowGroup {
            RootView()
                .environment(model)
                .task { model.started() }
        }
        #if os(iOS)
        .backgroundTask(.appRefresh(BackgroundRefresh.listUpdateTask)) {
            await BackgroundUpdates.run()
        }
        #endif
    }
}

#if os(iOS)
/// Receives the answers to notifications (the tunnel's Proceed / Block) and wakes for location
/// events after a relaunch.
final class AppDelegate: NSObject, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        UNUserNotificationCenter.current().delegate = self
        Notifications.registerCategories()
        // A relaunch for a region event: the monitor reattaches to Core Location.
        if options?[.location] != nil { GeofenceMonitor.shared.resume() }
        return true
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        await Notifications.handle(response)
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .sound]
    }
}
#endif
