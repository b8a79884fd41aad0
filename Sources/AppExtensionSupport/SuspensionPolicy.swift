import Foundation

/// When the shared database may take locks, decided from what iOS says about the process.
///
/// iOS kills a suspended process that holds a lock on a file in the app group's container
/// (`0xDEAD10CC`). GRDB's remedy is to suspend the database before iOS suspends the process and
/// resume it when the process may run again; this value decides which, from four events:
///
/// - the app came to the foreground, or went to the background;
/// - a piece of work that must write began or ended (a background refresh, a location event, a
///   notification's answer, an action the person started just before leaving the app), each
///   under its own background time;
/// - iOS said the background time is running out (a background task's expiration handler).
///
/// The database is suspended exactly when the process is in the background and no work that
/// still has background time is running. Work that began before the time ran out no longer
/// keeps it awake; work that begins afterwards was given new time by iOS, so it does.
public struct SuspensionPolicy: Sendable, Equatable {
    /// What iOS says of the process.
    public enum Event: Sendable, Equatable {
        /// The app is in front (`UIApplication.willEnterForegroundNotification`).
        case enteredForeground
        /// The app left the screen (`UIApplication.didEnterBackgroundNotification`), or an
        /// extension finished what it was asked.
        case enteredBackground
        /// Work that writes began, under background time of its own.
        case workBegan(UUID)
        /// That work ended (or was cancelled).
        case workEnded(UUID)
        /// The background time is running out: iOS suspends the process next.
        case timeExpiring
    }

    /// What to do to the database.
    public enum Action: Sendable, Equatable {
        /// Stop it taking locks (interrupting and rolling back a write in progress).
        case suspend
        /// Let it take locks again.
        case resume
    }

    /// Whether the process is in the background.
    public private(set) var inBackground: Bool
    /// The work that keeps the database awake.
    public private(set) var awakeWork: Set<UUID> = []
    /// Whether the database is suspended now.
    public private(set) var isSuspended = false

    /// A policy for a process that starts in the foreground (the app opened by the person) or
    /// in the background (the app relaunched for a location event or a refresh; an extension).
    /// The database starts resumed, as GRDB opens it.
    public init(inBackground: Bool) {
        self.inBackground = inBackground
    }

    /// Applies `event` and says what to do to the database, `nil` when nothing changes.
    public mutating func handle(_ event: Event) -> Action? {
        switch event {
        case .enteredForeground:
            inBackground = false
        case .enteredBackground:
            inBackground = true
        case .workBegan(let work):
            awakeWork.insert(work)
        case .workEnded(let work):
            awakeWork.remove(work)
        case .timeExpiring:
            awakeWork.removeAll()
        }
        let suspend = inBackground && awakeWork.isEmpty
        guard suspend != isSuspended else { return nil }
        isSuspended = suspend
        return suspend ? .suspend : .resume
    }
}
