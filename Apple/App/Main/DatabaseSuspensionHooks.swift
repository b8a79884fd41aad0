import AppExtensionSupport
import AppSupport
import Foundation

#if os(iOS)
import UIKit
#endif

/// Where iOS tells the app what `SharedDatabaseSuspension` needs to know (the decision itself is
/// `SuspensionPolicy`'s, tested on Linux): the app entering the background or the foreground,
/// and background time running out for work the person started just before leaving.
@MainActor
enum DatabaseSuspensionHooks {
    /// Follows the app's own state from launch on: a relaunch in the background (for a location
    /// event or a refresh) starts there, and every later move is observed.
    static func install(_ suspension: SharedDatabaseSuspension?) {
        #if os(iOS)
        guard let suspension else { return }
        if UIApplication.shared.applicationState == .background { suspension.enteredBackground() }
        let center = NotificationCenter.default
        // The observers live as long as the app (the one suspension of the process).
        _ = center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in
            suspension.enteredBackground()
        }
        _ = center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) { _ in
            suspension.enteredForeground()
        }
        #endif
    }

    /// Runs `work`, which writes, to its end even if the person leaves the app meanwhile: under
    /// background time of its own (`beginBackgroundTask`), with the database kept awake; when
    /// iOS says the time is up, `expiring` runs (sync cancels its request there, which frees
    /// its lock) and the database is suspended (the write is rolled back) before the app is.
    static func finishing<T: Sendable>(
        _ name: String, suspension: SharedDatabaseSuspension?, expiring: @escaping @MainActor @Sendable () -> Void = {},
        _ work: @escaping @Sendable () async -> T
    ) async -> T {
        guard let suspension else { return await work() }
        #if os(iOS)
        let time = BackgroundTime(name: name) {
            expiring()
            suspension.timeExpiring()
        }
        defer { time.end() }
        #endif
        return await suspension.keepingAwake(work)
    }
}

#if os(iOS)
/// One `beginBackgroundTask`, ended exactly once: by its work, or by its expiration handler
/// (iOS kills an app whose expired task is not ended).
@MainActor
private final class BackgroundTime {
    private var identifier = UIBackgroundTaskIdentifier.invalid

    init(name: String, expiring: @escaping @MainActor @Sendable () -> Void) {
        identifier = UIApplication.shared.beginBackgroundTask(withName: name) { [weak self] in
            expiring()
            self?.end()
        }
    }

    func end() {
        guard identifier != .invalid else { return }
        UIApplication.shared.endBackgroundTask(identifier)
        identifier = .invalid
    }
}
#endif
