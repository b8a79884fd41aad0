import Foundation

/// Runs blocking work (child processes, sleeps, waits) on a thread of its own and awaits it.
///
/// Swift concurrency shares a few threads (one per core: two here) among all the tests running
/// at once; a test that blocks one of them for long (a hundred killed updates, a server that
/// takes seconds to start) can starve the in-process servers of other tests until their
/// clients time out. Work given to this function blocks only its own thread.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

extension Process {
    /// Waits for the process to exit on a thread of its own; returns its termination status.
    @discardableResult
    public func exited() async -> Int32 {
        let process = UncheckedProcess(process: self)
        return
            (try? await onOwnThread {
                process.process.waitUntilExit()
                return process.process.terminationStatus
            }) ?? -1
    }
}

/// `Process` is not `Sendable`; waiting for it from another thread is safe.
private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}
