import Foundation

extension Array {
    /// `transform` of each index of `0..<count`, in order, computed in chunks on every core
    /// (serially below `serialBelow` elements, where threads cost more than they save).
    ///
    /// `transform` must only read shared state.
    static func parallelMap(count: Int, serialBelow: Int = 2_048, _ transform: @Sendable (Int) -> Element) -> [Element] {
        guard count >= serialBelow else { return (0..<count).map(transform) }
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = UncheckedPointer(buffer.baseAddress!)
            forEachChunk(of: count) { range in
                for index in range { (base.pointer + index).initialize(to: transform(index)) }
            }
            initialized = count
        }
    }
}

/// Calls `body` with consecutive ranges covering `0..<count`, concurrently on every core (more
/// ranges than cores, so that a slow one does not leave a core idle).
func forEachChunk(of count: Int, _ body: @Sendable (Range<Int>) -> Void) {
    let chunks = Swift.min(count, ProcessInfo.processInfo.activeProcessorCount * 4)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        body((count * chunk / chunks)..<(count * (chunk + 1) / chunks))
    }
}

/// A pointer handed to concurrent chunks that write disjoint elements.
struct UncheckedPointer<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>

    init(_ pointer: UnsafeMutablePointer<Element>) {
        self.pointer = pointer
    }
}
