import Foundation

/// Folds text so that spellings meant to dodge a word filter read as the word: case, accents and
/// compatibility forms (`Ｆｒｅｅ`, `𝐟𝐫𝐞𝐞`, `ﬁ`), Cyrillic and Greek look-alikes (`frее` with
/// Cyrillic е), digits and symbols for letters (`fr3e`, `w0n`, `c1ick`, `fr€€` is not folded),
/// and invisible characters (zero-width spaces, soft hyphens) inside words.
///
/// Everything that is not a letter or digit is a word boundary. Both the filter's words and the
/// messages go through the same folding, so ambiguous look-alikes are folded to one letter on both
/// sides: `l`, `1`, `|`, `!` and `i` all read as `i`.
public enum TextFolding {
    /// A folded symbol: 0 is a word boundary; ASCII letters are their lower-case code; other
    /// letters keep their (lower-cased) scalar value.
    public typealias Symbol = UInt32

    /// The word boundary symbol.
    public static let boundary: Symbol = 0

    /// How one ASCII byte folds: a symbol, a boundary, or a symbol only inside a word (`$`, `@`, `!`, `|`).
    static let asciiFold: [Symbol] = {
        var table = [Symbol](repeating: boundary, count: 128)
        for letter in UInt32(97)...122 {
            table[Int(letter)] = letter
            table[Int(letter - 32)] = letter
        }
        for digit in UInt32(48)...57 { table[Int(digit)] = digit }
        let lookalikes: [(Character, Character)] = [
            ("0", "o"), ("1", "i"), ("3", "e"), ("4", "a"), ("5", "s"), ("7", "t"), ("8", "b"), ("l", "i"), ("L", "i"),
        ]
        for (from, to) in lookalikes { table[Int(from.asciiValue!)] = Symbol(to.asciiValue!) }
        return table
    }()

    /// Symbols that stand for letters only between two word characters (`fr$e`, `@ll`… but not `$5`).
    static let asciiInWord: [Symbol] = {
        var table = [Symbol](repeating: boundary, count: 128)
        for (from, to) in [("$", "s"), ("@", "a"), ("!", "i"), ("|", "i")] as [(Character, Character)] {
            table[Int(from.asciiValue!)] = Symbol(to.asciiValue!)
        }
        return table
    }()

    /// Apostrophes join the letters around them (`won't` is one word, not `won` and `t`).
    static func isApostrophe(_ value: UInt32) -> Bool { value == 0x27 || value == 0x2019 }

    /// Cyrillic, Greek and other letters that look like Latin ones.
    static let homoglyphs: [UInt32: Character] = {
        let pairs: [(String, Character)] = [
            ("аАɑα", "a"), ("вВβΒ", "b"), ("сСϲ", "c"), ("ԁ", "d"), ("еЕёЁєΕε", "e"), ("ɡ", "g"), ("һНΗ", "h"),
            ("іІїΙιıɩӏ", "i"), ("јЈ", "j"), ("кКκΚ", "k"), ("ℓ", "l"), ("мМΜ", "m"), ("ηΝп", "n"), ("оОοΟσ", "o"),
            ("рРρΡ", "p"), ("ԛ", "q"), ("ѕЅ", "s"), ("тТτΤ", "t"), ("υ", "u"), ("νѵ", "v"), ("ԝω", "w"), ("хХχΧ", "x"),
            ("уУүΥγ", "y"), ("Ζ", "z"),
        ]
        var table: [UInt32: Character] = [:]
        for (letters, latin) in pairs {
            for scalar in letters.unicodeScalars { table[scalar.value] = latin }
        }
        return table
    }()

    /// Folded forms of the non-ASCII scalars in the blocks where look-alikes live, computed once.
    private static let nonASCIICache: [UInt32: [Symbol]] = {
        var table: [UInt32: [Symbol]] = [:]
        let ranges: [ClosedRange<UInt32>] = [
            0x00A0...0x024F, 0x0370...0x03FF, 0x0400...0x052F, 0x1E00...0x1EFF, 0x2000...0x206F, 0x2100...0x214F,
            0x2460...0x24FF, 0xFB00...0xFB06, 0xFF00...0xFFEF, 0x1D400...0x1D7FF,
        ]
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                table[value] = computeFold(scalar)
            }
        }
        return table
    }()

    /// The symbols one non-ASCII scalar folds to: empty for invisible characters and combining
    /// marks, `[boundary]` for punctuation and symbols.
    public static func fold(_ scalar: Unicode.Scalar) -> [Symbol] {
        if scalar.isASCII {
            let symbol = asciiFold[Int(scalar.value)]
            return [symbol]
        }
        if let cached = nonASCIICache[scalar.value] { return cached }
        return computeFold(scalar)
    }

    private static func computeFold(_ scalar: Unicode.Scalar) -> [Symbol] {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .format, .nonspacingMark, .enclosingMark, .spacingMark: return []
        default: break
        }
        if let latin = homoglyphs[scalar.value] { return [asciiFold[Int(latin.asciiValue!)]] }
        // Compatibility decomposition: accents drop away, full-width and mathematical letters
        // become ASCII, ligatures split.
        let decomposed = String(Character(scalar)).decomposedStringWithCompatibilityMapping
        var symbols: [Symbol] = []
        for part in decomposed.unicodeScalars {
            if part.isASCII {
                symbols.append(asciiFold[Int(part.value)])
            } else if part.properties.generalCategory == .nonspacingMark || part.properties.generalCategory == .format {
                continue
            } else if let latin = homoglyphs[part.value] {
                symbols.append(asciiFold[Int(latin.asciiValue!)])
            } else if part.properties.isAlphabetic || part.properties.numericType != nil {
                let lower = part.properties.lowercaseMapping.unicodeScalars.first ?? part
                symbols.append(homoglyphs[lower.value].map { asciiFold[Int($0.asciiValue!)] } ?? lower.value)
            } else {
                symbols.append(boundary)
            }
        }
        return symbols
    }

    /// The folded symbols of `text` with runs of boundaries collapsed to one, a boundary at each end,
    /// and for each symbol the UTF-8 offset in `text` where its source character starts (the end
    /// offset for the final boundary).
    public static func fold(_ text: String) -> (symbols: [Symbol], offsets: [Int]) {
        var symbols: [Symbol] = [boundary]
        var offsets: [Int] = [0]
        let scalars = Array(text.unicodeScalars)
        var offset = 0
        for (index, scalar) in scalars.enumerated() {
            defer { offset += UTF8.width(scalar) }
            var folded: [Symbol]
            if isApostrophe(scalar.value) {
                let inWord = symbols.last != boundary && index + 1 < scalars.count && isWordScalar(scalars[index + 1])
                folded = inWord ? [] : [boundary]
            } else if scalar.isASCII, asciiFold[Int(scalar.value)] == boundary, asciiInWord[Int(scalar.value)] != boundary {
                let before = symbols.last != boundary
                let after = index + 1 < scalars.count && isWordScalar(scalars[index + 1])
                folded = [before && after ? asciiInWord[Int(scalar.value)] : boundary]
            } else {
                folded = fold(scalar)
            }
            for symbol in folded {
                if symbol == boundary && symbols.last == boundary { continue }
                symbols.append(symbol)
                offsets.append(offset)
            }
        }
        if symbols.last != boundary {
            symbols.append(boundary)
            offsets.append(offset)
        }
        return (symbols, offsets)
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return asciiFold[Int(scalar.value)] != boundary }
        return fold(scalar).contains { $0 != boundary }
    }

    /// The folded words of `text` as a string of folded letters separated by single spaces
    /// (`"You have W0N!"` → `"you have won"`), for showing and storing words.
    public static func foldedWords(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for symbol in fold(text).symbols {
            if symbol == boundary {
                if !result.isEmpty { result.append(" ") }
            } else if let scalar = Unicode.Scalar(symbol) {
                result.append(scalar)
            }
        }
        var string = String(result)
        if string.hasSuffix(" ") { string.removeLast() }
        return string
    }
}
