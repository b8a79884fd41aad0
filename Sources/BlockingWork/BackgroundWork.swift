import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Work started in the background on a thread of its own, such as the DNS screen's top lists (a
/// second of one core over a day of queries). Work nobody waits for runs at the lowest scheduling
/// priority: it takes only the processor time that the work people wait for leaves, so the pages
/// asked for meanwhile answer as fast as without it. Work that someone may wait for must not
/// (a wait for it would last as long as the processor is busy with anything else).
public enum BackgroundWork {
    /// Starts `work` on a thread of its own, named `name` (with `lowestPriority`, at the lowest
    /// priority), and returns at once. Callers bound how many run (the top lists: one at a time).
    public static func start(named name: String, lowestPriority: Bool, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread {
            if lowestPriority { lowerThisThreadsPriority() }
            work()
        }
        thread.name = name
        // SQLite recurses: a main thread's stack size rather than a secondary thread's default.
        thread.stackSize = 8 << 20
        #if canImport(Darwin)
        if lowestPriority { thread.qualityOfService = .background }
        #endif
        thread.start()
    }

    /// Linux: nice is per thread (`who` 0 is the calling thread), and 19 the lowest priority (a
    /// process may always lower its own).
    private static func lowerThisThreadsPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }

    /// This thread's nice value (Linux), for the tests.
    static var currentNice: Int32? {
        #if os(Linux)
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? value : nil
        #else
        return nil
        #endif
    }
}
