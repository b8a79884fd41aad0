import Dispatch

/// Synchronous work that may block for long — a rebuild, a list parsed and stored after its
/// download, a wait for another process's lock, a socket read with a timeout — run on a Dispatch
/// thread, never on one of Swift's cooperative threads, which a blocked call would take from
/// every other task.
///
/// Not on ``BlockingWorkPool/shared``: on its few threads a page's short reads would queue
/// behind seconds of compiling. How many run at once is bounded by the callers (one rebuild at a
/// time per state, one update lock per home, one list update at a time per update).
public enum LongBlockingWork {
    /// Runs `work` on a Dispatch thread and returns what it returns, or throws what it throws.
    /// The caller's task suspends meanwhile; cancelling it does not stop `work`.
    public static func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(Failure) -> Value in try work() })
            }
        }
        return try result.get()
    }
}
