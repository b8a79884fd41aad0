import Dispatch
import Foundation
import Synchronization

/// Holds every one of Swift's cooperative threads (one per core) with a task that blocks until
/// released, as a test or an embedding process doing blocking work would: whatever still runs
/// meanwhile runs on threads of its own.
public final class CooperativeThreadsBlocker: Sendable {
    /// How many cooperative threads there are (and blocking tasks).
    public let width = ProcessInfo.processInfo.activeProcessorCount
    private let started = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let tasks = Mutex<[Task<Bool, Never>]>([])

    /// One blocker at a time in the process: two would each hold some of the threads and wait
    /// for the rest forever.
    private static let oneAtATime = DispatchSemaphore(value: 1)

    /// A blocker; nothing is held until ``blockAll(within:)``.
    public init() {}

    /// Starts the blocking tasks and waits (on this thread: call it from a plain thread) until
    /// every one runs, at most `seconds`; false when they did not all start. Then ``letGo()``
    /// from the same thread, and ``waitUntilEnded()``.
    public func blockAll(within seconds: Double) -> Bool {
        Self.oneAtATime.wait()
        let started = self.started
        let release = self.release
        tasks.withLock { tasks in
            for _ in 0..<width {
                tasks.append(
                    Task.detached {
                        started.signal()
                        // The blocking work a test or an embedding process might do: a thread held.
                        return release.wait(timeout: .now() + 30) == .success
                    })
            }
        }
        for _ in 0..<width where started.wait(timeout: .now() + seconds) == .timedOut { return false }
        return true
    }

    /// Lets them all go (from the thread that blocked them: an async caller could not run before).
    public func letGo() {
        for _ in 0..<width { release.signal() }
    }

    /// Waits until the blocking tasks ended; false when one timed out instead of being let go.
    /// The next blocker in the process may start after this.
    public func waitUntilEnded() async -> Bool {
        var all = true
        for task in tasks.withLock({ $0 }) { all = await task.value && all }
        Self.oneAtATime.signal()
        return all
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CooperativeThreadsBlocker {
    /// GETs `url` from a plain thread while every cooperative thread of the process is held: the
    /// status of the answer, or why there was none (`timeout` seconds at most). A server that
    /// answers runs its connections on threads of its own.
    public static func get(_ url: URL, timeout: Double = 10) async -> Result<Int, Failure> {
        let blocker = CooperativeThreadsBlocker()
        let outcome = Outcome()
        let thread = Thread {
            defer { blocker.letGo() }
            guard blocker.blockAll(within: 20) else {
                outcome.withLock { $0 = .failure(Failure(description: "the blocking tasks did not all start in 20 s")) }
                return
            }
            let done = DispatchSemaphore(value: 0)
            URLSession.shared.dataTask(with: URLRequest(url: url, timeoutInterval: timeout)) { _, response, error in
                let status = (response as? HTTPURLResponse)?.statusCode
                outcome.withLock {
                    $0 = status.map { .success($0) } ?? .failure(Failure(description: "no answer: \(error.map { "\($0)" } ?? "none")"))
                }
                done.signal()
            }.resume()
            if done.wait(timeout: .now() + timeout + 1) == .timedOut {
                outcome.withLock { $0 = .failure(Failure(description: "no answer in \(timeout) s")) }
            }
        }
        thread.start()
        while !thread.isFinished { try? await Task.sleep(for: .milliseconds(20)) }
        let released = await blocker.waitUntilEnded()
        let result = outcome.withLock { $0 }
        guard released else { return .failure(Failure(description: "the blocking tasks timed out (\(result))")) }
        return result
    }

    private final class Outcome: Sendable {
        let mutex = Mutex<Result<Int, Failure>>(.failure(Failure(description: "not run")))
        func withLock<T>(_ body: (inout Result<Int, Failure>) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    /// Why ``get(_:timeout:)`` got no status.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }
}
