import Foundation
import Storage

/// The app's (or an extension's) ``SuspensionPolicy``, carried out on the process's databases.
///
/// The iOS faces tell it what iOS says (``enteredForeground()``, ``enteredBackground()``,
/// ``timeExpiring()``) and run each piece of background work that writes inside
/// ``keepingAwake(_:)``; it suspends and resumes every database opened with `observesSuspension`
/// (Storage's `DatabaseSuspension`). Events are applied in order, one at a time, so a suspend
/// never overtakes the resume before it.
public final class SharedDatabaseSuspension: Sendable {
    private let policy: LockedState<SuspensionPolicy>
    private let apply: @Sendable (SuspensionPolicy.Action) -> Void

    /// A suspension for a process starting in the foreground or the background, carried out by
    /// `apply` (by default on the process's databases).
    public init(
        inBackground: Bool = false,
        apply: @escaping @Sendable (SuspensionPolicy.Action) -> Void = SharedDatabaseSuspension.applyToDatabases
    ) {
        policy = LockedState(SuspensionPolicy(inBackground: inBackground))
        self.apply = apply
    }

    /// Suspends or resumes every database of the process opened with `observesSuspension`.
    public static let applyToDatabases: @Sendable (SuspensionPolicy.Action) -> Void = { action in
        switch action {
        case .suspend: DatabaseSuspension.suspend()
        case .resume: DatabaseSuspension.resume()
        }
    }

    /// The app came to the foreground.
    public func enteredForeground() { handle(.enteredForeground) }
    /// The app went to the background (or an extension finished what it was asked).
    public func enteredBackground() { handle(.enteredBackground) }
    /// iOS is about to suspend the process: the database is suspended whatever runs.
    public func timeExpiring() { handle(.timeExpiring) }

    /// Whether the database is suspended now.
    public var isSuspended: Bool { policy.withLock { $0.isSuspended } }

    /// Runs `work` with the database awake (resuming it if it was suspended), and suspends it
    /// again afterwards if the process is in the background by then. Cancelling the task (what
    /// SwiftUI does when a background task's time runs out) ends the work's claim at once.
    public func keepingAwake<T, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
        let id = UUID()
        handle(.workBegan(id))
        defer { handle(.workEnded(id)) }
        // Through a Result: withTaskCancellationHandler rethrows untyped errors.
        let result: Result<T, Failure> = await withTaskCancellationHandler {
            do throws(Failure) {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        } onCancel: { [self] in
            handle(.workEnded(id))
        }
        return try result.get()
    }

    private func handle(_ event: SuspensionPolicy.Event) {
        // Under the lock, so two threads' actions reach the databases in the policy's order.
        policy.withLock { policy in
            if let action = policy.handle(event) { apply(action) }
        }
    }
}
