import Foundation

/// Buffered stdout for commands that print millions of lines (`pepper calls export`): bytes are
/// collected and written 64 kB at a time, and integers are formatted without allocating.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private let handle: FileHandle

    init(handle: FileHandle = .standardOutput) {
        self.handle = handle
        bytes.reserveCapacity(1 << 16)
    }

    mutating func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func write(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // Digits are produced backwards into a fixed window, then copied.
        var buffer:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var start = 20
        withUnsafeMutableBytes(of: &buffer) { window in
            repeat {
                start -= 1
                window[start] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: window[start..<20])
        }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        handle.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}
