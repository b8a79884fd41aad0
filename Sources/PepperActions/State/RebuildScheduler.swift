import BlockingWork
import Foundation

/// Runs rebuilds one at a time; callers that arrive while one runs share the next.
///
/// Every call is answered by a rebuild that *started* after the call, so a change made before
/// calling is always in the output the call returns.
actor RebuildScheduler {
    typealias Work = @Sendable () throws(ActionError) -> RebuildOutcome
    private typealias Waiter = (generation: Int, continuation: CheckedContinuation<Result<RebuildOutcome, ActionError>, Never>)

    private var requested = 0
    private var waiters: [Waiter] = []
    private var draining = false
    private var work: Work?

    /// Asks for a rebuild and waits for the one that covers this call.
    func run(_ work: @escaping Work) async -> Result<RebuildOutcome, ActionError> {
        requested += 1
        let generation = requested
        self.work = work
        return await withCheckedContinuation { continuation in
            waiters.append((generation, continuation))
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
    }

    /// Starts rebuilds until nobody waits. Calls made while a rebuild runs wait for the next.
    private func drain() async {
        while !waiters.isEmpty, let work {
            let covered = requested
            let result = await LongBlockingWork.run { () -> Result<RebuildOutcome, ActionError> in
                Result { () throws(ActionError) in try work() }
            }
            let done = waiters.filter { $0.generation <= covered }
            waiters.removeAll { $0.generation <= covered }
            for waiter in done { waiter.continuation.resume(returning: result) }
        }
        draining = false
    }
}
