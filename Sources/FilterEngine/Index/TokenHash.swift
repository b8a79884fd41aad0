/// Tokens: the runs of letters, digits and `%` that URLs and patterns are indexed by.
enum TokenHash {
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "%") || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// FNV-1a over lower-cased bytes; never 0 (0 marks an empty slot).
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for index in range {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash == 0 ? 1 : hash
    }

    /// FNV-1a 64 over bytes (host names are lower case already); never 0.
    @inline(__always)
    static func hash64(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for index in range { hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01B3 }
        return hash == 0 ? 1 : hash
    }

    static func hash64(_ text: some StringProtocol) -> UInt64 {
        var copy = String(text)
        return copy.withUTF8 { hash64($0, 0..<$0.count) }
    }
}
