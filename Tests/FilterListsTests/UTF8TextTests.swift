import Testing

@testable import FilterLists

/// The parser's UTF-8 check before iOS 18 and macOS 15 (`UTF8Text.validated`), against the
/// standard library's `String(validating:as:)`, which Linux has.
@Suite("UTF-8 validation fallback")
struct UTF8TextTests {
    private func validated(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { UTF8Text.validated($0) }
    }

    @Test(arguments: [
        ([0x61, 0xC3, 0xA9], "aé"),  // two-byte sequence
        ([0xF0, 0x9F, 0x98, 0x80], "😀"),  // four bytes
        ([0xEF, 0xBF, 0xBD], "\u{FFFD}"),  // a real replacement character is valid text
        ([], ""),
    ])
    func validTextComesBackUnchanged(bytes: [UInt8], text: String) {
        #expect(validated(bytes) == text)
    }

    @Test(arguments: [
        [0x61, 0xFF],  // a byte that never occurs
        [0xC3],  // a sequence cut short at the end
        [0xF0, 0x9F, 0x98, 0x41],  // cut short before ASCII: replaced by one U+FFFD of the same length
        [0xC0, 0xAF],  // overlong
        [0xED, 0xA0, 0x80],  // an encoded surrogate
        [0xEF, 0xBF, 0xBD, 0x80],  // a real U+FFFD, then a stray continuation byte
    ])
    func invalidTextIsRefused(bytes: [UInt8]) {
        #expect(validated(bytes) == nil)
    }

    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        // Bytes drawn mostly from the ranges where sequences start and continue, so that valid and
        // invalid inputs both occur often.
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        var valid = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let expected = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
            #expect(validated(bytes) == expected, "\(bytes)")
            if expected != nil { valid += 1 }
        }
        #expect(valid > 100)
    }
}
