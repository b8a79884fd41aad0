import Dispatch
import Foundation
import PepperTestSupport
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

    @Test func workRunsWhileEveryCooperativeThreadIsHeld() async throws {
        let blocker = CooperativeThreadsBlocker()
        // A plain thread holds every cooperative thread, then asks the executor for work and
        // waits for its answer: that answer can only come from threads that are not the pool's.
        let answered = DispatchSemaphore(value: 0)
        let outcome = Text("not run")
        let thread = Thread {
            guard blocker.blockAll() else {
                outcome.set("the cooperative threads were never all free for 2 minutes")
                return
            }
            Task(executorPreference: BlockingWorkExecutor.shared) {
                outcome.set(BlockingWorkExecutor.shared.runsTheCurrentThread ? "on the executor's threads" : "elsewhere")
                answered.signal()
            }
            if answered.wait(timeout: .now() + 10) == .timedOut {
                outcome.set("no answer in 10 s while the cooperative threads were held")
            }
            if !blocker.letGo() { outcome.set("the blocking tasks timed out") }
        }
        thread.start()
        while !thread.isFinished { try await Task.sleep(for: .milliseconds(20)) }
        #expect(outcome.value == "on the executor's threads")
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

/// A string set from any thread.
private final class Text: Sendable {
    private let text: Mutex<String>
    init(_ text: String) { self.text = Mutex(text) }
    func set(_ value: String) { text.withLock { $0 = value } }
    var value: String { text.withLock { $0 } }
}
