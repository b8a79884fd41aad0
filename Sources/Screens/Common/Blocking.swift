import BlockingWork
import PepperActions

/// Runs a screen's synchronous reads and writes (SQLite through GRDB's synchronous API, the
/// lists' files) on ``BlockingWorkPool/shared``: every public method of a screen that touches the
/// state is `async` and goes through here, so neither the console's handlers nor the app's views
/// ever wait on the disk on Swift's cooperative threads or on the main actor.
func blocking<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    try await BlockingWorkPool.shared.run(body)
}

/// An action's synchronous work on the blocking-work threads (``blocking(_:)``): the notice it
/// returns, or the notice of the error it throws, about `field` when given.
func blockingAction(
    field: String? = nil, _ work: @escaping @Sendable () throws(ActionError) -> Notice
) async -> Notice {
    await blocking { () -> Notice in
        do throws(ActionError) {
            return try work()
        } catch {
            return .failure(error, field: field)
        }
    }
}
