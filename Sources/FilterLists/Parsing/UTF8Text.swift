/// Text from bytes that must be UTF-8.
enum UTF8Text {
    /// The bytes as a string when they are valid UTF-8, else `nil`.
    ///
    /// `String(validating:as:)` says the same from iOS 18 and macOS 15; this is what the parser
    /// uses before them. Decoding replaces every invalid sequence with U+FFFD, and a replacement
    /// always changes the bytes (the input was not valid UTF-8, the output is), so the decoded
    /// text is the input exactly when it was valid.
    static func validated(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
