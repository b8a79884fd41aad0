import Foundation
import Synchronization
import Testing

@testable import BlockingWork

@Suite("Blocking work on threads of its own")
struct BlockingWorkPoolTests {
    @Test func noMoreRunAtOnceThanItHasThreads() async throws {
        let pool = BlockingWorkPool(threads: 3, name: "test.bound")
        let running = Concurrency()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    await pool.run {
                        running.enter()
                        // Blocking, as a synchronous database read is: the thread is held.
                        usleep(50_000)
                        running.leave()
                    }
                }
            }
        }
        let most = running.most
        #expect(most == 3, "at most three at once, and all three used: \(most)")
    }

    /// The work runs on the pool's threads, the caller resumes off them, and what the work
    /// returns or throws (typed) reaches the caller.
    @Test func workRunsOnThePoolsThreadsAndItsResultComesBack() async throws {
        let pool = BlockingWorkPool(threads: 2, name: "test.where")
        let (onPool, value) = await pool.run { (pool.runsTheCurrentThread, 6 * 7) }
        #expect(onPool)
        #expect(value == 42)
        #expect(!pool.runsTheCurrentThread)
        await #expect(throws: Refusal.no) { try await pool.run { () throws(Refusal) -> Int in throw .no } }
    }

    private enum Refusal: Error { case no }
}

/// How many run at once, and the most seen.
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

@Suite("Background work")
struct BackgroundWorkTests {
    /// Work nobody waits for runs on a thread of its own at the lowest priority (Linux: nice
    /// 19), other work at the caller's, and the caller's thread keeps its own.
    @Test func backgroundWorkRunsAtTheLowestPriorityOnlyWhenAsked() async throws {
        let before = BackgroundWork.currentNice
        func nice(lowest: Bool) async -> Int32?? {
            await withCheckedContinuation { continuation in
                BackgroundWork.start(named: "test.background", lowestPriority: lowest) {
                    continuation.resume(returning: BackgroundWork.currentNice)
                }
            }
        }
        let lowest = await nice(lowest: true)
        let normal = await nice(lowest: false)
        #if os(Linux)
        #expect(lowest == 19)
        #expect(normal == before)
        #expect(BackgroundWork.currentNice == before)
        #endif
    }
}
