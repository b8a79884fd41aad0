extension TextFolding {
    /// A spelling a word rule still catches, and how it differs.
    public struct LookAlike: Sendable, Hashable {
        /// The spelling (`FR3E`).
        public var text: String
        /// How it differs, for people (`digits for letters`).
        public var how: String
    }

    /// Spellings of `word` that a word rule still matches, to explain folding by example:
    /// upper case with a digit for a letter (`FR3E`), Cyrillic look-alike letters (`frее`) and
    /// accents (`frée`).
    ///
    /// Every example is checked against the folding itself: only spellings that fold to the
    /// same words as `word` are returned, so a screen never promises a match that would not
    /// happen.
    public static func lookAlikeExamples(of word: String) -> [LookAlike] {
        let target = foldedWords(word)
        guard !target.isEmpty else { return [] }
        let digits: [Character: Character] = ["o": "0", "i": "1", "e": "3", "a": "4", "s": "5", "t": "7"]
        let cyrillic: [Character: Character] = ["a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"]
        let accents: [Character: Character] = ["a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú", "n": "ñ", "c": "ç"]
        let lower = word.lowercased()

        // Replaces the first letters found in `table` (at most `limit` of them), keeping the rest.
        func swapping(_ table: [Character: Character], limit: Int, in text: String) -> String {
            var swapped = 0
            return String(
                text.map { character in
                    guard swapped < limit, let replacement = table[character] else { return character }
                    swapped += 1
                    return replacement
                })
        }
        let candidates = [
            LookAlike(text: swapping(digits, limit: 1, in: lower).uppercased(), how: "capitals, a digit for a letter"),
            LookAlike(text: swapping(cyrillic, limit: 2, in: lower), how: "Cyrillic letters"),
            LookAlike(text: swapping(accents, limit: 2, in: lower), how: "accents"),
        ]
        var seen: Set<String> = [word, lower]
        return candidates.filter { candidate in
            guard foldedWords(candidate.text) == target, seen.insert(candidate.text).inserted else { return false }
            return true
        }
    }
}
