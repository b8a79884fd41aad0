import Foundation

/// Threads of its own, a fixed number of them, for the servers' request handlers: the console's
/// handlers read the SQLite state synchronously through the screen models, and a handler that
/// waits on the disk (or on a busy database) then holds one of these threads, never one of Swift's
/// cooperative threads, which every task of the process shares (one per core: two on a small box).
///
/// A `TaskExecutor` (SE-0417): a task that prefers it runs its jobs here, and so do its child
/// tasks. Jobs run in the order they came on the first free thread; the bound is the point, as in
/// swift-nio's `NIOThreadPool`: a burst of slow requests queues here instead of starting a thread
/// each, and however long the queued work takes, the rest of the process keeps running.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class BlockingWorkExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: `jobs`, `head` and `started` are only touched with `condition` locked.

    /// The executor the servers of a process share: four threads at least (a slow read, such as
    /// the DNS screen's top lists over a day of queries, leaves room for the others), two per core
    /// on a bigger machine.
    public static let shared = BlockingWorkExecutor(
        threads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount), name: "pepper.blocking")

    /// How many jobs run at once at most.
    public let threads: Int

    private let name: String
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var started = false
    private var threadIdentities: Set<ThreadIdentity> = []

    /// An executor of `threads` threads, named `name-1`, `name-2`, …, started at its first job
    /// and kept for the life of the process.
    public init(threads: Int, name: String) {
        self.threads = max(1, threads)
        self.name = name
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if !started {
            started = true
            for index in 1...threads { startThread(index) }
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func startThread(_ index: Int) {
        let thread = Thread { [self] in
            condition.withLock { _ = threadIdentities.insert(ThreadIdentity.current) }
            let executor = asUnownedTaskExecutor()
            while true { next().runSynchronously(on: executor) }
        }
        thread.name = "\(name)-\(index)"
        // SQLite, the rule parser and JSONDecoder recurse: a main thread's stack size rather
        // than a secondary thread's default (512 kB on Apple platforms).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Whether the caller runs on one of this executor's threads.
    var runsTheCurrentThread: Bool {
        condition.withLock { threadIdentities.contains(ThreadIdentity.current) }
    }

    /// The next job, waiting for one.
    private func next() -> UnownedJob {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count { condition.wait() }
        let job = jobs[head]
        head += 1
        // Drop the done part of the queue now and then, rather than shifting it at every job.
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1_024 {
            jobs.removeFirst(head)
            head = 0
        }
        return job
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
