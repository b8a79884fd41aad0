import FilterLists

/// URL helpers on lower-cased bytes.
enum PreparedURL {
    /// The host of a `scheme://[user@]host[:port]/...` URL.
    static func hostRange(in bytes: [UInt8]) -> Range<Int>? {
        var index = 0
        // scheme
        while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
            let byte = bytes[index]
            let isSchemeByte =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isSchemeByte else { return nil }
            index += 1
        }
        guard index > 0, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        var start = index + 3
        var end = start
        var atSign: Int?
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { atSign = end }
            end += 1
        }
        if let atSign { start = atSign + 1 }
        // Drop a port (but not the colons of a bracketed IPv6 address).
        var hostEnd = end
        if start < end, bytes[start] == UInt8(ascii: "[") {
            if let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) { hostEnd = close + 1 }
        } else if let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        return start..<hostEnd
    }
}
