import AppSupport
import Foundation

#if os(iOS)
import BackgroundTasks
#endif

/// The background list update: `BGAppRefreshTask` runs `AppContext.updateLists` (download what
/// changed, recompile into the shared container — the rebuild hook reloads Safari's content
/// blockers), then asks for the next run when the lists say.
enum BackgroundUpdates {
    /// Runs one update (SwiftUI's `backgroundTask(.appRefresh(_:))` calls it).
    static func run(context: AppContext) async {
        let update = await context.updateLists()
        submit(earliest: update.next)
    }

    /// Asks for the next update, when the lists want it (read away from the main actor).
    static func schedule(context: AppContext) async {
        let next = await Task.detached(priority: .utility) { context.nextListUpdate(after: Date()) }.value
        submit(earliest: next)
    }

    private static func submit(earliest: Date) {
        #if os(iOS)
        let request = BGAppRefreshTaskRequest(identifier: BackgroundRefresh.listUpdateTask)
        request.earliestBeginDate = earliest
        try? BGTaskScheduler.shared.submit(request)
        #endif
    }
}
