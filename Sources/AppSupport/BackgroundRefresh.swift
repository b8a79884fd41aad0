import Foundation
import Storage

/// The app's background refreshes (`BGAppRefreshTask`): their identifiers, listed in the
/// Info.plist's `BGTaskSchedulerPermittedIdentifiers`, and when to ask for the next list update
/// (the strike data's is ``GeofenceRefreshSchedule/nextBackgroundRefresh(_:after:)``).
public enum BackgroundRefresh {
    /// The list update's identifier.
    public static let listUpdateTask = "org.pepper.update-lists"
    /// The strike data's hourly hash check, on a phone that may not move
    /// (``GeofenceCoordinator/refresh(_:now:lowPowerMode:)``).
    public static let strikeDataTask = "org.pepper.refresh-strike-data"
    /// Sync with the serving home (`SyncRunner.syncNow()`, next asked for by ``SyncSchedule``).
    public static let syncTask = "org.pepper.sync-with-home"
    /// Every identifier: the Info.plist's `BGTaskSchedulerPermittedIdentifiers` lists exactly these.
    public static let allTasks = [listUpdateTask, strikeDataTask, syncTask]
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
