import AppSupport
import Foundation
import PepperActions

#if os(iOS)
import BackgroundTasks
#endif

/// The app's side of sync with the person's other devices: the one `SyncRunner` of the app's
/// context, with the `URLSession` client, driven by the app's life. While Pepper is in front it
/// follows the serving home (changes arrive within seconds); when Pepper leaves the front it stops,
/// under background time, so the sync lock is free before iOS suspends it, and asks for a
/// `BGAppRefreshTask` (``BackgroundRefresh/syncTask``) that syncs once. Every decision is
/// `SyncRunner`'s, `SyncScreenPlan`'s and `SyncSchedule`'s (AppSupport, tested on Linux).
@MainActor
final class SyncController {
    /// The runner: pairing, following, one-off syncs, one at a time.
    let runner: SyncRunner
    private let context: AppContext

    init(context: AppContext) {
        self.context = context
        runner = SyncRunner(context: context) { server, trust in URLSessionSyncHTTPClient(server: server, trust: trust) }
    }

    /// Pepper came to the front (`scenePhase` `.active`): sync now, then follow.
    func becameActive() {
        Task { await runner.startFollowing() }
    }

    /// Pepper left the front (`scenePhase` `.background`): stop following before iOS suspends the
    /// app (a suspended app may hold no lock in the shared container), then ask for the next
    /// background sync.
    func enteredBackground() {
        Task {
            // The status is read while the database is still awake.
            let next = await finishing { runner in
                await runner.stopFollowing()
                return await Self.nextBackgroundSync(runner)
            }
            Self.submitBackgroundSync(next)
        }
    }

    /// Runs the screen's sync work (pairing, "Sync now", leaving) to its end if the person leaves
    /// Pepper meanwhile, under background time; when iOS's time runs out, the work is cancelled
    /// (its request with it, which frees the sync lock) before the app is suspended.
    func finishing<T: Sendable>(_ work: @escaping @Sendable (SyncRunner) async -> T) async -> T {
        let runner = self.runner
        let task = Task { await work(runner) }
        return await DatabaseSuspensionHooks.finishing("Pepper sync", suspension: context.suspension, expiring: { task.cancel() }) {
            await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// The `BGAppRefreshTask`'s work: one sync (SwiftUI cancels it when iOS's time runs out,
    /// which cancels the request), then the next is asked for.
    func syncInBackground() async {
        _ = await runner.syncNow()
        await scheduleBackgroundSync()
    }

    /// Asks iOS for the next background sync when the phone follows a serving home, and cancels
    /// any request when it does not.
    func scheduleBackgroundSync() async {
        Self.submitBackgroundSync(await Self.nextBackgroundSync(runner))
    }

    /// The next background sync's earliest date; `nil` only when the status says there is none
    /// to ask for (a status that cannot be read, say with the database suspended, asks again).
    private nonisolated static func nextBackgroundSync(_ runner: SyncRunner) async -> Date? {
        guard let status = try? await runner.status() else { return Date().addingTimeInterval(SyncSchedule.backgroundInterval) }
        return SyncSchedule.nextBackgroundSync(after: Date(), plan: SyncScreenPlan(status: status))
    }

    private static func submitBackgroundSync(_ next: Date?) {
        #if os(iOS)
        if let next {
            let request = BGAppRefreshTaskRequest(identifier: BackgroundRefresh.syncTask)
            request.earliestBeginDate = next
            try? BGTaskScheduler.shared.submit(request)
        } else {
            BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: BackgroundRefresh.syncTask)
        }
        #endif
    }
}
