/// Finds where a network rule's `$options` begin.
enum OptionsSplitter {
    /// The index of the `$` that starts the options of a network rule, or `nil`.
    ///
    /// The last `$` followed by something that looks like an option name is the separator;
    /// a `$` inside a whole-line regular expression (`/ad$/`) is not.
    static func optionsStart(in text: String) -> String.Index? {
        let utf8 = text.utf8
        // A whole-line `/regex/` has no options, whatever `$` it contains.
        let body = utf8.starts(with: "@@".utf8) ? utf8.dropFirst(2) : utf8[...]
        if body.count > 2 && body.first == UInt8(ascii: "/") && body.last == UInt8(ascii: "/") { return nil }
        var index = utf8.endIndex
        while index > utf8.startIndex {
            index = utf8.index(before: index)
            guard utf8[index] == UInt8(ascii: "$") else { continue }
            let next = utf8.index(after: index)
            guard next < utf8.endIndex, isOptionStart(utf8[next]) else { continue }
            return index
        }
        return nil
    }

    @inline(__always)
    static func isOptionStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
