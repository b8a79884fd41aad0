import BlockingWork

/// Runs a screen's synchronous reads and writes (SQLite through GRDB's synchronous API, the
/// lists' files) on ``BlockingWorkPool/shared``: every public method of a screen that touches the
/// state is `async` and goes through here, so neither the console's handlers nor the app's views
/// ever wait on the disk on Swift's cooperative threads or on the main actor.
func blocking<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    try await BlockingWorkPool.shared.run(body)
}
