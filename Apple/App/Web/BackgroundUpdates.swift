import AppExtensionSupport
import AppSupport
import Foundation
import PepperActions
import Screens
import Storage

#if os(iOS)
import BackgroundTasks
#endif

/// The background list update: `BGAppRefreshTask` runs `ListsScreen.updateNow` (download what
/// changed, recompile into the shared container — the rebuild hook reloads Safari's content
/// blockers), then asks for the next run when the lists say.
enum BackgroundUpdates {
    /// Runs one update (SwiftUI's `backgroundTask(.appRefresh(_:))` calls it).
    static func run() async {
        guard let state = try? AppModel.openState() else { return }
        _ = await ListsScreen(state: state).updateNow()
        schedule(lists: (try? state.lists()) ?? [])
    }

    /// Asks for the next update.
    static func schedule(lists: [ListSource]? = nil) {
        #if os(iOS)
        let known = lists ?? (try? AppModel.openState().lists()) ?? []
        let request = BGAppRefreshTaskRequest(identifier: BackgroundRefresh.listUpdateTask)
        request.earliestBeginDate = BackgroundRefresh.nextUpdate(after: Date(), lists: known)
        try? BGTaskScheduler.shared.submit(request)
        #endif
    }
}
