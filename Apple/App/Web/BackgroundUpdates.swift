import AppSupport
import Foundation

#if os(iOS)
import BackgroundTasks
#endif

/// The background refreshes (`BGAppRefreshTask`): the list update runs `AppContext.updateLists`
/// (download what changed, recompile into the shared container — the rebuild hook reloads
/// Safari's content blockers), then asks for the next run when the lists say; the strike data's
/// hourly hash check runs through the geofence monitor (`GeofenceCoordinator.refresh`, skipped
/// in Low Power Mode until the data expires), then asks for the next when the data is due.
enum BackgroundUpdates {
    /// Runs one list update (SwiftUI's `backgroundTask(.appRefresh(_:))` calls it).
    static func run(context: AppContext) async {
        let update = await context.updateLists()
        submit(BackgroundRefresh.listUpdateTask, earliest: update.next)
    }

    /// Asks for the next list update, when the lists want it (read away from the main actor).
    static func schedule(context: AppContext) async {
        let next = await Task.detached(priority: .utility) { context.nextListUpdate(after: Date()) }.value
        submit(BackgroundRefresh.listUpdateTask, earliest: next)
    }

    /// Runs one strike-data refresh on a phone that may not have moved, then asks for the next.
    @MainActor
    static func refreshStrikeData(monitor: GeofenceMonitor, context: AppContext) async {
        _ = await monitor.refresh(.background)
        await scheduleStrikeData(context: context)
    }

    /// Asks for the next strike-data refresh, when the data held is due its hash check.
    static func scheduleStrikeData(context: AppContext) async {
        submit(BackgroundRefresh.strikeDataTask, earliest: await context.geofencing.nextBackgroundRefresh(after: Date()))
    }

    private static func submit(_ identifier: String, earliest: Date) {
        #if os(iOS)
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = earliest
        try? BGTaskScheduler.shared.submit(request)
        #endif
    }
}
