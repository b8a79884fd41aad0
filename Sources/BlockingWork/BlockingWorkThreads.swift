/// Runs `body`, and every child task it starts, on ``BlockingWorkExecutor/shared``: a server
/// whose `run` is wrapped in it (its connections are child tasks) keeps all its request handling
/// off Swift's cooperative threads. On macOS 14, which has no task executors, `body` runs where
/// it is called.
public func onBlockingWorkThreads<Value>(_ body: () async throws -> Value) async throws -> Value {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return try await withTaskExecutorPreference(BlockingWorkExecutor.shared) { try await body() }
    }
    return try await body()
}
