import Dispatch

/// A task executor of its own for servers that tests run in-process (the Picket API, the
/// console): their request handlers then never wait for Swift's cooperative threads, which
/// other tests may hold for seconds with blocking work (a `dig`, a child process). Jobs run on a
/// concurrent Dispatch queue, whose threads are not the cooperative pool's.
@available(macOS 15, iOS 18, *)
public final class ServerExecutor: TaskExecutor {
    /// The executor every in-process test server shares.
    public static let shared = ServerExecutor()

    private let queue = DispatchQueue(label: "pepper.tests.servers", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
