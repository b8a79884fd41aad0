/// Matches Adblock Plus patterns (`*` wildcard, `^` separator, `|` and `||` anchors) against a
/// URL's bytes, without allocating.
enum PatternMatcher {
    /// A separator for `^`: anything but a letter, a digit or one of `_ - . %`.
    @inline(__always)
    static func isSeparator(_ byte: UInt8) -> Bool {
        !((byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%"))
    }

    /// Whether `pattern` matches `url`, anchored as `flags` say. `hostRange` is the URL's host.
    static func matches(
        pattern: UnsafeBufferPointer<UInt8>, flags: RuleFlags, url: UnsafeBufferPointer<UInt8>, hostRange: Range<Int>
    ) -> Bool {
        let endAnchored = flags.contains(.endAnchor)
        if flags.contains(.startAnchor) {
            return match(pattern, url, from: 0, endAnchored: endAnchored)
        }
        if flags.contains(.hostAnchor) {
            // At the host's start or at the start of one of its labels.
            if match(pattern, url, from: hostRange.lowerBound, endAnchored: endAnchored) { return true }
            var index = hostRange.lowerBound
            while index < hostRange.upperBound {
                if url[index] == UInt8(ascii: ".") && match(pattern, url, from: index + 1, endAnchored: endAnchored) { return true }
                index += 1
            }
            return false
        }
        if pattern.isEmpty { return true }
        // Unanchored: try each position where the first literal byte occurs.
        let first = pattern[0]
        if first == UInt8(ascii: "*") || first == UInt8(ascii: "^") {
            for start in 0...url.count where match(pattern, url, from: start, endAnchored: endAnchored) { return true }
            return false
        }
        var start = 0
        while start < url.count {
            if url[start] == first && match(pattern, url, from: start, endAnchored: endAnchored) { return true }
            start += 1
        }
        return false
    }

    /// Glob matching from `start`, with backtracking to the last `*`.
    @inline(__always)
    static func match(_ pattern: UnsafeBufferPointer<UInt8>, _ url: UnsafeBufferPointer<UInt8>, from start: Int, endAnchored: Bool) -> Bool
    {
        var p = 0
        var u = start
        var starP = -1
        var starU = 0
        let patternCount = pattern.count
        let urlCount = url.count
        while true {
            if p == patternCount {
                if !endAnchored || u == urlCount { return true }
            } else {
                let c = pattern[p]
                if c == UInt8(ascii: "*") {
                    starP = p
                    starU = u
                    p += 1
                    continue
                }
                if u < urlCount {
                    let x = url[u]
                    if c == x || (c == UInt8(ascii: "^") && isSeparator(x)) {
                        p += 1
                        u += 1
                        continue
                    }
                } else if c == UInt8(ascii: "^") {
                    // `^` also matches the end of the URL.
                    p += 1
                    continue
                }
            }
            guard starP >= 0, starU < urlCount else { return false }
            starU += 1
            u = starU
            p = starP + 1
        }
    }
}
