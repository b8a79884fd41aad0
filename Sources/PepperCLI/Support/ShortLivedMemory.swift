#if canImport(Glibc)
import Glibc
#endif

/// The C heap's settings for a command that builds content blockers and exits.
///
/// A compile allocates about 150 MB in many small blocks and frees most of them. By default glibc
/// grows its heap in small steps and hands memory freed at its top back to the kernel, so the
/// same memory is faulted in again moments later: page faults were a quarter of a compile's CPU
/// time on a 2-core virtual machine. Growing the heap 64 MB at a time (address space, not memory
/// used) and keeping what is freed for reuse took `pepper compile` from 0.25 s to 0.23 s without
/// raising its peak memory (`docs/benchmarks.md`). Servers keep glibc's defaults, which give
/// memory back after a burst of work.
enum ShortLivedMemory {
    /// Applies the settings; call before the work starts.
    static func configure() {
        #if canImport(Glibc)
        // <malloc.h> is not part of the Glibc module: `mallopt` is looked up by name.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(topPad, 64 << 20)
        _ = mallopt(trimThreshold, 512 << 20)
        _ = mallopt(mmapThreshold, 32 << 20)
        #endif
    }

    // `M_TRIM_THRESHOLD` and `M_TOP_PAD` of <malloc.h>.
    private static let trimThreshold: Int32 = -1
    private static let topPad: Int32 = -2
    private static let mmapThreshold: Int32 = -3
}
