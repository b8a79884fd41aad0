import AppExtensionSupport
import AppSupport
import Foundation
import Observation
import PepperActions
import Screens

/// The app's state: Pepper's home in the app-group container, with the Picket key in the
/// Keychain and every rebuild handed to Safari. Views call screen models on it and show the
/// `Notice` they return.
@MainActor
@Observable
final class AppModel {
    /// Pepper's state, or why it could not be opened.
    let state: Result<PepperState, AppModelError>
    /// The last sentence an action returned.
    var notice: Notice?

    init() {
        state = Self.open()
    }

    private static func open() -> Result<PepperState, AppModelError> {
        do {
            return .success(try openState())
        } catch {
            return .failure(AppModelError(description: "\(error)"))
        }
    }

    /// Pepper's state as every part of the app opens it (the window, background updates,
    /// geofencing, notification answers): in the app-group container, with the Picket key in
    /// the Keychain and Safari's content blockers reloaded after every rebuild.
    nonisolated static func openState() throws -> PepperState {
        let container = try AppGroupContainer.current()
        let configuration = PepperState.Configuration(
            afterPublish: [{ _, _ in SafariBlockers.reloadAll() }], picketKeys: KeychainKeyStore())
        return try PepperState(home: container.home, configuration: configuration)
    }

    /// The state, when it opened.
    var pepper: PepperState? { try? state.get() }

    /// What the app does once its window is up: background updates and geofencing resume.
    func started() {
        BackgroundUpdates.schedule()
        GeofenceMonitor.shared.resume()
        // A first launch has no compiled lists yet: compile the enabled ones (or the starter list).
        if let pepper, pepper.manifest() == nil {
            Task { _ = try? await pepper.rebuild() }
        }
    }

    /// Runs a screen action and shows its sentence.
    func run(_ action: @escaping @Sendable (PepperState) async -> Notice) async {
        guard let pepper else { return }
        notice = await action(pepper)
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
}

/// Why Pepper's state cannot be opened (the app group is not set up).
struct AppModelError: Error, CustomStringConvertible {
    var description: String
}
