import Foundation
import NIOConcurrencyHelpers

/// Waiting for the store no longer than a client should.
enum Deadline {
    /// The outcome of `task` if it ends within `limit`; `nil` when it does not (the task goes on:
    /// awaiting a task's value cannot be cancelled, so a task group would wait for it anyway).
    static func value<T: Sendable>(of task: Task<T, any Error>, within limit: Duration) async -> Result<T, any Error>? {
        let (stream, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
        let waiter = Task {
            do {
                continuation.yield(.success(try await task.value))
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(nil)
            continuation.finish()
        }
        defer {
            waiter.cancel()
            timer.cancel()
        }
        for await first in stream { return first }
        return nil
    }
}

/// Whether the store answered lately. A store that is merely slow (a loaded machine) is waited
/// for ``patience``; once an operation failed or was given up, and until one succeeds, only
/// ``impatience``: during an outage clients get their 503 (or the loaded content) at once,
/// while a healthy store keeps its read-after-write behaviour however slow it is.
final class StoreHealth: Sendable {
    /// How long a healthy store is waited for.
    static let patience: Duration = .seconds(10)
    /// How long a failing store is waited for.
    static let impatience: Duration = .seconds(1)

    private let failing = NIOLockedValueBox(false)

    /// How long to wait for the store now.
    var wait: Duration { failing.withLockedValue { $0 } ? Self.impatience : Self.patience }

    /// An operation succeeded: the store is healthy.
    func succeeded() {
        failing.withLockedValue { $0 = false }
    }

    /// An operation failed or was given up.
    func failed() {
        failing.withLockedValue { $0 = true }
    }
}
