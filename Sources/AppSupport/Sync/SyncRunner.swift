import BlockingWork
import DeviceSync
import Foundation
import PepperActions

/// The app's one owner of its home's sync (`HomeSync`): it follows the serving home while Pepper
/// is in front (changes arrive within seconds, both ways), syncs once for a background refresh,
/// pairs and leaves, one thing at a time.
///
/// One at a time because a sync holds `sync.lock` in the home: a second one started beside it
/// would be refused ("another Pepper process syncs this home now"). So every one-off sync
/// (a background refresh, "Sync now", pairing, leaving) first stops the following and waits for
/// it to let the lock go, waits for the one-off before it, and following starts again afterwards
/// if the app still wants it. The lock is a file lock in the app group's container, which iOS does
/// not allow a suspended app to hold (`0xDEAD10CC`): the app stops following when it leaves the
/// front (``stopFollowing()``, under background time), and a background refresh's sync ends when
/// its task is cancelled.
public actor SyncRunner {
    /// Makes the HTTP client for a serving home and its trust (the app: `URLSessionSyncHTTPClient`).
    public typealias ClientMaker = @Sendable (_ server: URL, _ trust: SyncServerTrust) -> any SyncHTTPClient

    /// The app's context.
    public let context: AppContext
    private let makeClient: ClientMaker
    private var current: (id: UUID, task: Task<Void, Never>, follows: Bool)?
    private var waiting = 0
    private var wantsFollowing = false
    private var observers: [UUID: AsyncStream<Void>.Continuation] = [:]

    /// A runner for `context`'s home, reaching serving homes through the clients `makeClient` makes.
    public init(context: AppContext, makeClient: @escaping ClientMaker) {
        self.context = context
        self.makeClient = makeClient
    }

    /// The home's sync.
    public nonisolated var sync: HomeSync { context.sync }

    /// Where the home stands (read on the blocking-work threads).
    public func status() async throws(ActionError) -> SyncStatus {
        let sync = self.sync
        return try await BlockingWorkPool.shared.run { () throws(ActionError) -> SyncStatus in try sync.status() }
    }

    /// Whether the runner follows the serving home now.
    public var isFollowing: Bool { current?.follows == true }

    /// A stream that yields after every sync, pairing or leaving (and when following stops), so
    /// a screen reads the status again. It ends when the caller stops iterating.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private nonisolated func notifyLater() {
        Task { await self.notify() }
    }

    private func notify() {
        for continuation in observers.values { continuation.yield() }
    }

    // MARK: Following

    /// Follows the serving home (Pepper came to the front): syncs at once, then whenever either
    /// side changes, until ``stopFollowing()``. Does nothing when the home does not follow one,
    /// or the serving home removed it.
    public func startFollowing() {
        wantsFollowing = true
        beginFollowingIfIdle()
    }

    /// Stops following (Pepper left the front) and returns once the sync lock is free.
    public func stopFollowing() async {
        wantsFollowing = false
        guard let running = current, running.follows else { return }
        running.task.cancel()
        await running.task.value
        if current?.id == running.id { current = nil }
    }

    private func beginFollowingIfIdle() {
        guard wantsFollowing, waiting == 0, current == nil else { return }
        let id = UUID()
        let sync = self.sync
        let makeClient = self.makeClient
        let task = Task {
            defer { Task { self.ended(id) } }
            guard let status = try? await self.status(), SyncScreenPlan(status: status).syncsAutomatically,
                let server = status.server
            else { return }
            let client = makeClient(server, status.trust ?? .system)
            try? await sync.follow(client: client) { [weak self] _ in self?.notifyLater() }
        }
        current = (id, task, true)
    }

    /// A following that ended by itself (not paired, removed by the serving home) is not started
    /// again until a one-off or the app asks.
    private func ended(_ id: UUID) {
        guard current?.id == id else { return }
        current = nil
        notify()
    }

    // MARK: One-off syncs

    /// Runs `work` alone, in the caller's task (cancelling the caller cancels it): after
    /// stopping the following (it starts again afterwards if wanted) and after the one-offs
    /// asked for before it. A caller cancelled while it waits gets `cancelled` without running.
    private func alone<Value: Sendable>(
        cancelled: Value, _ work: @escaping @Sendable () async -> Value
    ) async -> Value {
        waiting += 1
        while let running = current {
            if running.follows { running.task.cancel() }
            await running.task.value
            if current?.id == running.id { current = nil }
        }
        waiting -= 1
        guard !Task.isCancelled else {
            beginFollowingIfIdle()
            return cancelled
        }
        // What the next in line waits for: a task that ends when this work does.
        let (ended, end) = AsyncStream<Void>.makeStream()
        let id = UUID()
        current = (id, Task { for await _ in ended {} }, false)
        let value = await work()
        end.finish()
        if current?.id == id { current = nil }
        notify()
        beginFollowingIfIdle()
        return value
    }

    /// Runs `work` with the sync lock free (a restore, which replaces the replica the lock
    /// guards): after stopping the following, which starts again afterwards, and after the
    /// one-offs asked for before it. A caller cancelled while it waits gets `cancelled`.
    public func pausingSync<Value: Sendable>(cancelled: Value, _ work: @escaping @Sendable () async -> Value) async -> Value {
        await alone(cancelled: cancelled, work)
    }

    /// Pushes this phone's changes and pulls the serving home's until neither has more ("Sync
    /// now", a background refresh), with the database kept awake meanwhile. Cancelling the
    /// caller's task (a background refresh whose time ran out) cancels the sync.
    public func syncNow() async -> Result<SyncRunReport, ActionError> {
        let context = self.context
        let makeClient = self.makeClient
        let runner = self
        return await alone(cancelled: .failure(.sync("the sync was cancelled"))) { () async -> Result<SyncRunReport, ActionError> in
            do throws(ActionError) {
                let status = try await runner.status()
                guard status.role == .following, let server = status.server else {
                    throw ActionError.sync("this phone is not paired with a serving home")
                }
                let client = makeClient(server, status.trust ?? .system)
                return .success(
                    try await context.keepingAwake { () async throws(ActionError) -> SyncRunReport in
                        try await context.sync.syncNow(client: client)
                    })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Pairs this phone with the serving home of `invitation` as `deviceName`, then syncs once.
    public func pair(_ invitation: SyncInvitation, deviceName: String) async -> Result<SyncStatus, ActionError> {
        let context = self.context
        let client = makeClient(invitation.server, invitation.pin.map { .pinned(sha256: $0) } ?? .system)
        return await alone(cancelled: .failure(.sync("pairing was cancelled"))) { () async -> Result<SyncStatus, ActionError> in
            do throws(ActionError) {
                return .success(
                    try await context.keepingAwake { () async throws(ActionError) -> SyncStatus in
                        try await context.sync.pair(invitation, deviceName: deviceName, client: client)
                    })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Stops syncing: the pairing and the sync records are forgotten; this phone's decisions stay.
    public func leave() async -> Result<Void, ActionError> {
        let context = self.context
        return await alone(cancelled: .failure(.sync("leaving was cancelled"))) { () async -> Result<Void, ActionError> in
            do throws(ActionError) {
                try await context.keepingAwake { () async throws(ActionError) in
                    try await BlockingWorkPool.shared.run { () throws(ActionError) in try context.sync.leave() }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }
}

/// When the app asks iOS for its next background sync (`BGAppRefreshTask`
/// ``BackgroundRefresh/syncTask``).
public enum SyncSchedule {
    /// The soonest a background sync is asked for after the last: iOS decides when it runs (from
    /// how the person uses Pepper), never sooner.
    public static let backgroundInterval: TimeInterval = 15 * 60

    /// The earliest date for the next background sync, or `nil` when there is none to ask for
    /// (the phone is not paired, or the serving home removed it).
    public static func nextBackgroundSync(after now: Date, plan: SyncScreenPlan) -> Date? {
        plan.syncsAutomatically ? now.addingTimeInterval(backgroundInterval) : nil
    }
}
