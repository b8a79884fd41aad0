import AppExtensionSupport
import AppSupport
import Foundation
import Observation
import PepperActions
import Screens

/// The window's side of the app: the one ``AppContext`` opened at launch (or why it could not
/// be opened), the last sentence an action returned, and the parts that work in the background.
/// Views call screen models on its state and show the `Notice` they return.
@MainActor
@Observable
final class AppModel {
    /// The app's context, or why it could not be opened.
    let opened: Result<AppContext, AppModelError>
    /// Strike alerts: Core Location's events, applied through the context.
    let geofences: GeofenceMonitor?
    /// Sync with the person's other devices: following while in front, background syncs.
    let sync: SyncController?
    /// The last sentence an action returned.
    var notice: Notice?
    /// The full-screen overlay of a question about a struck employer's site, while shown.
    var picketOverlay: PicketOverlay?
    /// Lists coming in: a file picked or opened in Pepper, and what adding one gave.
    let listImports: ListImports
    /// Whether the onboarding tour is shown: at first launch, and when asked for again.
    var showsOnboarding = false

    init(opened: Result<AppContext, AppModelError>) {
        self.opened = opened
        geofences = (try? opened.get()).map { GeofenceMonitor(context: $0) }
        sync = (try? opened.get()).map { SyncController(context: $0) }
        listImports = ListImports()
    }

    /// Opens Pepper's state in the app-group container, with the Picket key in the Keychain and
    /// Safari's content blockers reloaded after every rebuild. Called once per process (by the
    /// app delegate, before anything else runs).
    nonisolated static func openContext() -> Result<AppContext, AppModelError> {
        do {
            let container = try AppGroupContainer.current()
            // iOS kills an app suspended with a lock on the shared database (0xDEAD10CC): the
            // context's database observes the app's suspension (macOS does not suspend apps).
            #if os(iOS)
            let suspension: SharedDatabaseSuspension? = SharedDatabaseSuspension()
            #else
            let suspension: SharedDatabaseSuspension? = nil
            #endif
            return .success(
                try AppContext(
                    container: container, picketKeys: KeychainKeyStore(), afterPublish: [{ _, _ in SafariBlockers.reloadAll() }],
                    suspension: suspension))
        } catch {
            return .failure(AppModelError(description: "\(error)"))
        }
    }

    /// The context, when it opened.
    var context: AppContext? { try? opened.get() }
    /// Pepper's state, when it opened.
    var pepper: PepperState? { context?.state }

    /// What the app does once its window is up: background updates and geofencing resume, and a
    /// first launch compiles the lists (a failure is shown, not dropped).
    func started() async {
        guard let context else { return }
        geofences?.resume()
        await BackgroundUpdates.schedule(context: context)
        await sync?.scheduleBackgroundSync()
        if let problem = await context.compileIfNeeded() { notice = problem }
        // The tour until it is finished or skipped once (OnboardingTour.showsAtLaunch).
        if let onboarding = await load({ try await OnboardingScreen(state: $0).load() }), OnboardingTour.showsAtLaunch(onboarding) {
            showsOnboarding = true
        }
    }

    /// Reads a screen's state: the screens' loads are async and read the database on
    /// BlockingWork's threads, so the window never waits on a read. A failure is shown as the
    /// notice; the result is then `nil`.
    func load<Value: Sendable>(_ read: @escaping @Sendable (PepperState) async throws -> Value) async -> Value? {
        guard let pepper else { return nil }
        do {
            return try await read(pepper)
        } catch {
            notice = (error as? Notice) ?? .error("\(error)")
            return nil
        }
    }

    /// Runs a screen action and shows its sentence. The action finishes (or is rolled back when
    /// iOS's time runs out) if the person leaves the app meanwhile.
    func run(_ action: @escaping @Sendable (PepperState) async -> Notice) async {
        guard let pepper else { return }
        notice = await DatabaseSuspensionHooks.finishing("Pepper action", suspension: context?.suspension) { await action(pepper) }
    }

    /// Runs a screen action in the background and shows its sentence.
    func perform(_ action: @escaping @Sendable (PepperState) async -> Notice) {
        Task { await run(action) }
    }

    /// Runs a call-list action, then has the system reload the call directory (its lists
    /// changed); the extension loads only the changes when it can.
    func runCallChange(_ action: @escaping @Sendable (PepperState) async -> Notice) async {
        await run(action)
        if notice?.isError == false { await CallDirectory.reload() }
    }

    /// What a restore replaced, read again (`BackupScreenPlan.Reload`): the call directory's
    /// numbers, a running DNS tunnel's lists and the next background sync (the restored state's
    /// pairing). Safari's content blockers already read the rebuilt lists (the context's
    /// `afterPublish`); the sync screen reads its status again when the runner's restore ends;
    /// every other screen reads its state again when shown.
    func reload(_ reloads: [BackupScreenPlan.Reload]) async {
        if reloads.contains(.callDirectory) { await CallDirectory.reload() }
        if reloads.contains(.tunnel) { await TunnelControl.reload() }
        if reloads.contains(.syncStatus) { await sync?.scheduleBackgroundSync() }
    }
}

/// Why Pepper's state cannot be opened (the app group is not set up).
struct AppModelError: Error, CustomStringConvertible {
    var description: String
}
