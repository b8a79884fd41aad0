import Dispatch
import Foundation
import Synchronization

/// Holds every one of Swift's cooperative threads (one per core) with a task that blocks until
/// let go, as a test or an embedding process doing blocking work would: whatever still runs
/// meanwhile runs on threads of its own. Used from a plain thread (`Thread`), which is not one
/// of them.
public final class CooperativeThreadsBlocker: Sendable {
    /// How many cooperative threads there are (and blocking tasks).
    public let width = ProcessInfo.processInfo.activeProcessorCount

    /// One blocker at a time in the process: two would each hold some of the threads and wait
    /// for the rest.
    private static let oneAtATime = DispatchSemaphore(value: 1)

    /// The tasks of one attempt: each signals `started`, waits for `release`, signals `ended`.
    private final class Hold: Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let timedOut = Mutex(false)
    }

    private let holding = Mutex<Hold?>(nil)

    /// A blocker; nothing is held until ``blockAll(attempts:each:)``.
    public init() {}

    /// Holds every cooperative thread, waiting (on this thread) up to `seconds` for all the
    /// blocking tasks to start. In a full test run other tests hold some of those threads for a
    /// while, so an attempt that does not get them all lets go of what it got and tries again,
    /// `attempts` times. False when it never held them all; after true, ``letGo()``.
    public func blockAll(attempts: Int = 24, each seconds: Double = 5) -> Bool {
        Self.oneAtATime.wait()
        for _ in 0..<attempts {
            let hold = Hold()
            for _ in 0..<width {
                Task.detached {
                    hold.started.signal()
                    // The blocking work a test or an embedding process might do: a thread held.
                    if hold.release.wait(timeout: .now() + 60) == .timedOut { hold.timedOut.withLock { $0 = true } }
                    hold.ended.signal()
                }
            }
            var all = true
            for _ in 0..<width where hold.started.wait(timeout: .now() + seconds) == .timedOut {
                all = false
                break
            }
            if all {
                holding.withLock { $0 = hold }
                return true
            }
            _ = finish(hold)
        }
        Self.oneAtATime.signal()
        return false
    }

    /// Lets the threads go and waits until every blocking task ended; false when one had timed
    /// out instead (the caller held them more than a minute).
    public func letGo() -> Bool {
        guard let hold = holding.withLock({ $0 }) else { return true }
        holding.withLock { $0 = nil }
        let letGo = finish(hold)
        Self.oneAtATime.signal()
        return letGo
    }

    private func finish(_ hold: Hold) -> Bool {
        for _ in 0..<width { hold.release.signal() }
        for _ in 0..<width { _ = hold.ended.wait(timeout: .now() + 120) }
        return !hold.timedOut.withLock { $0 }
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
            guard blocker.blockAll() else {
                outcome.withLock { $0 = .failure(Failure(description: "the cooperative threads were never all free for 2 minutes")) }
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
            if !blocker.letGo() {
                outcome.withLock { $0 = .failure(Failure(description: "the blocking tasks timed out (\($0))")) }
            }
        }
        thread.start()
        while !thread.isFinished { try? await Task.sleep(for: .milliseconds(20)) }
        return outcome.withLock { $0 }
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
