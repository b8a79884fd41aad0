import Foundation
import Testing

@testable import PepperCLI

/// `pepper console` limits glibc's malloc arenas (its memory figure in docs/benchmarks.md
/// depends on it): threads started after the limit share the arenas there are.
@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test(.enabled(if: MallocArenas.count() != nil, "malloc is glibc's"))
    func threadsStartedAfterTheLimitMakeNoArenaOfTheirOwn() throws {
        // The limit first, then the count: a thread of another test that makes an arena between
        // the two would otherwise be taken for one of these.
        MallocArenas.limit(to: try #require(MallocArenas.count()))
        let before = try #require(MallocArenas.count())
        // Give the rest of the test process glibc's default back afterwards (eight per core).
        defer { MallocArenas.limit(to: 8 * ProcessInfo.processInfo.activeProcessorCount) }
        let threads = 8
        let allocated = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            Thread.detachNewThread {
                let block = malloc(4_096)
                allocated.signal()
                release.wait()
                free(block)
            }
        }
        for _ in 0..<threads { allocated.wait() }
        let during = try #require(MallocArenas.count())
        for _ in 0..<threads { release.signal() }
        #expect(during == before, "\(threads) threads allocating at once made no new arena (\(before) → \(during))")
    }
}
