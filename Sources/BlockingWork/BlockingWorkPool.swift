import Foundation

/// Threads of its own, a fixed number of them, for synchronous work that waits: SQLite reads and
/// writes through GRDB's synchronous API, files read whole. Async code hands such work to
/// ``run(_:)`` and suspends until it is done, so the wait holds one of these threads and never
/// one of Swift's cooperative threads, which every task of the process shares (one per core: two
/// on a small box).
///
/// The bound is the point, as in swift-nio's `NIOThreadPool`: a burst of slow reads queues here
/// instead of starting a thread each, and however long the queued work takes, the rest of the
/// process keeps running. Work runs in the order it came, on the first free thread.
public final class BlockingWorkPool: @unchecked Sendable {
    // `@unchecked`: `work`, `head`, `started` and `threadIdentities` are only touched with
    // `condition` locked.

    /// The pool of the process: the screens' loads and actions run here (four threads at least,
    /// so that a slow read, such as the DNS screen's top lists over a day of queries, leaves room
    /// for the others; two per core on a bigger machine).
    public static let shared = BlockingWorkPool(
        threads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount), name: "pepper.blocking")

    /// How many pieces of work run at once at most.
    public let threads: Int

    private let name: String
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var head = 0
    private var started = false
    private var threadIdentities: Set<ThreadIdentity> = []

    /// A pool of `threads` threads, named `name-1`, `name-2`, …, started at its first piece of
    /// work and kept for the life of the process.
    public init(threads: Int, name: String) {
        self.threads = max(1, threads)
        self.name = name
    }

    /// Runs `body` on one of the pool's threads and returns what it returns, or throws what it
    /// throws. The caller's task suspends meanwhile; cancelling it does not stop `body`, which
    /// is synchronous.
    public func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: Result { () throws(Failure) -> Value in try body() }) }
        }
        return try result.get()
    }

    /// Whether the caller runs on one of this pool's threads.
    public var runsTheCurrentThread: Bool {
        condition.withLock { threadIdentities.contains(ThreadIdentity.current) }
    }

    private func submit(_ item: @escaping @Sendable () -> Void) {
        condition.lock()
        if !started {
            started = true
            for index in 1...threads { startThread(index) }
        }
        work.append(item)
        condition.signal()
        condition.unlock()
    }

    private func startThread(_ index: Int) {
        let thread = Thread { [self] in
            condition.withLock { _ = threadIdentities.insert(ThreadIdentity.current) }
            while true { next()() }
        }
        thread.name = "\(name)-\(index)"
        // SQLite, the rule parser and JSONDecoder recurse: a main thread's stack size rather
        // than a secondary thread's default (512 kB on Apple platforms).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The next piece of work, waiting for one.
    private func next() -> @Sendable () -> Void {
        condition.lock()
        defer { condition.unlock() }
        while head == work.count { condition.wait() }
        let item = work[head]
        head += 1
        // Drop the done part of the queue now and then, rather than shifting it at every item.
        if head == work.count {
            work.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1_024 {
            work.removeFirst(head)
            head = 0
        }
        return item
    }
}

/// A running thread, told apart from the others (its `pthread_t`).
struct ThreadIdentity: Hashable {
    let value: UInt

    static var current: ThreadIdentity {
        #if canImport(Darwin)
        ThreadIdentity(value: UInt(bitPattern: pthread_self()))
        #else
        ThreadIdentity(value: UInt(pthread_self()))
        #endif
    }
}
