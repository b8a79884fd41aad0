import Foundation

extension Array {
    /// `transform` of each index of `0..<count`, in order, computed in chunks on every core
    /// (serially below `serialBelow` elements, where threads cost more than they save).
    ///
    /// `transform` must only read shared state.
    static func parallelMap(count: Int, serialBelow: Int = 2_048, _ transform: @Sendable (Int) -> Element) -> [Element] {
        guard count >= serialBelow else { return (0..<count).map(transform) }
        // More chunks than cores, so that a slow chunk does not leave a core idle.
        let chunks = Swift.min(count, ProcessInfo.processInfo.activeProcessorCount * 4)
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = UncheckedPointer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for index in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
                    (base.pointer + index).initialize(to: transform(index))
                }
            }
            initialized = count
        }
    }
}

/// A pointer handed to concurrent chunks that write disjoint elements.
struct UncheckedPointer<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>

    init(_ pointer: UnsafeMutablePointer<Element>) {
        self.pointer = pointer
    }
}
