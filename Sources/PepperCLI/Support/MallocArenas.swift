import Foundation

#if canImport(CMalloc)
import CMalloc
#endif
#if canImport(Glibc)
import Glibc
#endif

/// How many malloc arenas the process may have.
///
/// glibc gives each thread that allocates an arena of its own, up to eight per core, and an
/// arena keeps much of what its thread freed. `pepper console` has more threads than cores
/// (Swift's cooperative threads, `BlockingWorkPool`'s four, the top lists' count), most of them
/// waiting on SQLite: with an arena each, its own memory grew by 2 MB over the console before
/// them; with as many arenas as cores, it is back to what it was (docs/benchmarks.md). The
/// servers that allocate on every core at once (`pepper dns serve`) keep glibc's default.
public enum MallocArenas {
    /// Limits the arenas to one per core (two at least) when `arguments` run `pepper console`:
    /// called by the `pepper` executable before anything else, while the process has one thread.
    public static func limitForConsole(_ arguments: [String]) {
        guard arguments.dropFirst().first == "console" else { return }
        limit(to: max(2, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Allows at most `count` arenas from now on (arenas that exist stay, so it belongs before
    /// the threads start allocating). glibc's `mallopt` reports success for any positive count,
    /// so nothing is returned: ``count()`` shows the effect. Does nothing where malloc is not glibc's.
    static func limit(to count: Int) {
        #if canImport(CMalloc) && os(Linux)
        _ = mallopt(M_ARENA_MAX, Int32(clamping: count))
        #endif
    }

    /// How many arenas the process has now (`malloc_info`'s heaps); `nil` where malloc is not
    /// glibc's.
    static func count() -> Int? {
        #if canImport(CMalloc) && os(Linux)
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let written = malloc_info(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard written == 0, let buffer else { return nil }
        let xml = String(cString: buffer)
        return xml.components(separatedBy: "<heap nr=").count - 1
        #else
        return nil
        #endif
    }
}
