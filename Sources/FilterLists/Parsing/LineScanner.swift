#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level helpers for reading lists line by line without copying them.
enum LineScanner {
    typealias Line = Slice<UnsafeBufferPointer<UInt8>>

    /// Calls `body` with each line (without its line terminator) and its number, counted from
    /// `firstNumber`, until `body` returns `false`.
    static func forEachLine(in bytes: UnsafeBufferPointer<UInt8>, firstNumber: Int = 1, _ body: (Line, Int) -> Bool) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        var number = firstNumber - 1
        let count = bytes.count
        while start < count {
            number += 1
            let remaining = count - start
            let end: Int
            if let hit = memchr(base + start, 0x0A, remaining) {
                end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            } else {
                end = count
            }
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if !body(bytes[start..<lineEnd], number) { return }
            start = end + 1
        }
    }

    /// The line breaks (`\n`) in `bytes`.
    static func lineBreaks(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard var cursor = bytes.baseAddress else { return 0 }
        let end = cursor + bytes.count
        var count = 0
        while cursor < end, let hit = memchr(cursor, 0x0A, end - cursor) {
            count += 1
            cursor = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return count
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C || byte == 0x0D
    }

    /// The line without leading and trailing ASCII whitespace.
    static func trimmed(_ line: Line) -> Line {
        var lower = line.startIndex
        var upper = line.endIndex
        while lower < upper && isSpace(line[lower]) { lower += 1 }
        while upper > lower && isSpace(line[upper - 1]) { upper -= 1 }
        return line[lower..<upper]
    }

    static func hasPrefix(_ line: Line, _ prefix: String) -> Bool {
        var index = line.startIndex
        for byte in prefix.utf8 {
            guard index < line.endIndex, line[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// The index of the first occurrence of `needle` at or after `from`, or `nil`.
    static func firstIndex(of needle: String, in line: Line, from: Int) -> Int? {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, line.count >= pattern.count else { return nil }
        var index = max(from, line.startIndex)
        let last = line.endIndex - pattern.count
        while index <= last {
            if line[index] == pattern[0] {
                var matched = true
                for offset in 1..<pattern.count where line[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    static func string(_ line: Line) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: line), as: UTF8.self)
    }
}
