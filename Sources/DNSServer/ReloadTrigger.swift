import Foundation
import ServiceLifecycle
import UnixSignals

/// Calls ``reload`` when the lists may have changed: on SIGHUP, and when ``stamp`` (e.g. the
/// modification times of the compiled state and the groups file) changes, checked every
/// ``interval``. Reloads run one at a time, in the order they were asked for; a `Service` that
/// ends at graceful shutdown.
public struct ReloadTrigger<Stamp: Equatable & Sendable>: Service {
    /// How often ``stamp`` is read.
    public let interval: Duration
    /// What the watched files look like now.
    public let stamp: @Sendable () -> Stamp
    /// Reloads; its argument says why.
    public let reload: @Sendable (String) async -> Void

    /// A trigger reading `stamp` every `interval`.
    public init(
        interval: Duration = .seconds(2), stamp: @escaping @Sendable () -> Stamp, reload: @escaping @Sendable (String) async -> Void
    ) {
        self.interval = interval
        self.stamp = stamp
        self.reload = reload
    }

    /// Ignores SIGHUP's default action (ending the process) until the trigger runs: call it
    /// before the server announces itself, so an early SIGHUP cannot stop it.
    public static func ignoreHangUpUntilRunning() {
        signal(SIGHUP, SIG_IGN)
    }

    public func run() async throws {
        let (reasons, continuation) = AsyncStream<String>.makeStream()
        let interval = self.interval
        let stamp = self.stamp
        let reload = self.reload
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup) { continuation.yield("SIGHUP") }
                }
                group.addTask {
                    var last = stamp()
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        let current = stamp()
                        if current != last {
                            last = current
                            continuation.yield("the state's lists or allowlist, or the groups file, changed")
                        }
                    }
                }
                group.addTask {
                    for await reason in reasons { await reload(reason) }
                }
                // Runs until cancelled (at graceful shutdown): then every child stops.
                await withTaskCancellationHandler {
                    await group.next()
                } onCancel: {
                    continuation.finish()
                }
                group.cancelAll()
            }
        }
    }
}
