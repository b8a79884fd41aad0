import Foundation
import Synchronization
import Testing

@testable import BlockingWork

@Suite("Blocking work on threads of its own")
struct BlockingWorkExecutorTests {
    @Test func noMoreJobsRunAtOnceThanItHasThreads() async throws {
        let executor = BlockingWorkExecutor(threads: 3, name: "test.bound")
        let running = Concurrency()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask(executorPreference: executor) {
                    running.enter()
                    // Blocking, as a synchronous database read is: the thread is held.
                    usleep(50_000)
                    running.leave()
                }
            }
            try await group.waitForAll()
        }
        let most = running.most
        #expect(most == 3, "at most three at once, and all three used: \(most)")
    }

    /// What a server wraps around its HTTP service runs there, and so do the child tasks it
    /// starts (its connections): every one of them on the executor's own threads.
    @Test func aServiceAndItsChildTasksRunOnTheExecutorsThreads() async throws {
        let (service, children) = try await onBlockingWorkThreads {
            let service = BlockingWorkExecutor.shared.runsTheCurrentThread
            let children = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { BlockingWorkExecutor.shared.runsTheCurrentThread } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            return (service, children)
        }
        #expect(service)
        #expect(children == Array(repeating: true, count: 8))
        // And outside it, the cooperative threads as usual.
        #expect(!BlockingWorkExecutor.shared.runsTheCurrentThread)
    }
}

/// How many jobs run at once, and the most seen.
private final class Concurrency: Sendable {
    private let counts = Mutex((now: 0, most: 0))
    func enter() {
        counts.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
        }
    }
    func leave() { counts.withLock { $0.now -= 1 } }
    var most: Int { counts.withLock { $0.most } }
}
