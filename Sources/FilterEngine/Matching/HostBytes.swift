/// Host-name helpers on bytes.
enum HostBytes {
    /// Calls `body` with the start of the host and of each parent (`a.b.com`, `b.com`, `com`),
    /// until it returns `false`.
    @inline(__always)
    static func forEachSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ host: Range<Int>, _ body: (Int) -> Bool) {
        guard !host.isEmpty, body(host.lowerBound) else { return }
        var index = host.lowerBound
        while index < host.upperBound - 1 {
            if bytes[index] == UInt8(ascii: "."), !body(index + 1) { return }
            index += 1
        }
    }

    /// Whether `bytes[range]` equals the host of a hostname rule (its pattern without `^`).
    @inline(__always)
    static func equalsHost(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        var length = pattern.count
        if length > 0 && pattern[length - 1] == UInt8(ascii: "^") { length -= 1 }
        guard length == range.count else { return false }
        var offset = 0
        while offset < length {
            if bytes[range.lowerBound + offset] != pattern[offset] { return false }
            offset += 1
        }
        return true
    }
}

/// The hash of a host name for the host tables, the allowlist and `$domain` sites: FNV-1a 64
/// over the bytes from the end, so that the hashes of a host and all its parents come out of a
/// single pass (`com`, `example.com`, `www.example.com`).
enum HostHash {
    static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    static let prime: UInt64 = 0x100_0000_01B3

    /// The hash of a whole host.
    static func of(_ host: some StringProtocol) -> UInt64 {
        var hash = offsetBasis
        for byte in host.utf8.reversed() { hash = (hash ^ UInt64(byte)) &* prime }
        return hash == 0 ? 1 : hash
    }

    /// Writes the hashes of the host and its parents into `output`, most specific first, with
    /// where each starts; returns how many (at most the output's capacity: beyond it, the most specific names
    /// are left out).
    @inline(__always)
    static func suffixes(
        _ bytes: UnsafeBufferPointer<UInt8>, _ host: Range<Int>, hashes: UnsafeMutableBufferPointer<UInt64>,
        starts: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        guard !host.isEmpty else { return 0 }
        var found = 0
        var hash = offsetBasis
        var index = host.upperBound - 1
        // Shortest suffix first from the backward pass; reversed below.
        while index >= host.lowerBound {
            hash = (hash ^ UInt64(bytes[index])) &* prime
            if index == host.lowerBound || bytes[index - 1] == UInt8(ascii: ".") {
                // Too many labels: keep the shortest suffixes, where the rules are (a long
                // host must not slip past the rule for its site).
                if found == hashes.count { break }
                hashes[found] = hash == 0 ? 1 : hash
                starts[found] = index
                found += 1
            }
            index -= 1
        }
        // Most specific first.
        var low = 0
        var high = found - 1
        while low < high {
            hashes.swapAt(low, high)
            starts.swapAt(low, high)
            low += 1
            high -= 1
        }
        return found
    }
}
