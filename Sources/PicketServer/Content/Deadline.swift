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
