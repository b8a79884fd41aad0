/// Finds many words and phrases at once in a text, as whole words, after ``TextFolding``: an
/// Aho–Corasick automaton over folded symbols, with each pattern framed by word boundaries, so
/// one pass over the text finds every listed word whatever the list's size.
///
/// The automaton is a dense transition table over a small alphabet (the boundary, the folded
/// ASCII letters and digits, and any other letter a pattern uses; every other letter is one shared
/// "other" symbol), so each character of a message costs one table lookup.
public struct WordMatcher: Sendable {
    /// A pattern found in a text.
    public struct Match: Sendable, Hashable {
        /// The pattern's index in the list given to ``init(patterns:)``.
        public var pattern: Int
        /// Where the match starts and ends in the text's UTF-8 bytes (without the framing boundaries).
        public var utf8Range: Range<Int>
    }

    /// The patterns, as given.
    public let patterns: [String]
    /// For each folded pattern (a state's output), the indices of the given patterns that fold to it.
    private let outputPatterns: [[Int]]
    private let classCount: Int
    /// ASCII byte → class; 255 for `$ @ ! |` (letters only inside a word), 254 for the apostrophe
    /// (nothing inside a word, else a boundary).
    private let asciiClass: [UInt8]
    private let inWordClass: [UInt8]
    private let otherClass: Int32
    private let nonASCIIClass: [UInt32: Int32]
    private let transitions: [Int32]
    /// The folded pattern ending at each state (-1: none).
    private let output: [Int32]
    /// The nearest state on the failure chain with an output (-1: none).
    private let outputLink: [Int32]
    /// Folded length (symbols, boundaries included) of each folded pattern.
    private let outputLength: [Int]
    private let startState: Int32

    /// Builds the automaton; patterns that fold to nothing (only punctuation) never match.
    public init(patterns: [String]) {
        self.patterns = patterns
        // Fold every pattern: boundary, words separated by one boundary, boundary.
        var folded: [[TextFolding.Symbol]] = []
        var foldedIndex: [[TextFolding.Symbol]: Int] = [:]
        var outputPatterns: [[Int]] = []
        var patternOutput: [Int?] = []
        for (index, pattern) in patterns.enumerated() {
            let symbols = TextFolding.fold(pattern).symbols
            guard symbols.count > 2 else {
                patternOutput.append(nil)
                continue
            }
            if let existing = foldedIndex[symbols] {
                outputPatterns[existing].append(index)
            } else {
                foldedIndex[symbols] = folded.count
                folded.append(symbols)
                outputPatterns.append([index])
            }
        }
        self.outputPatterns = outputPatterns

        // The alphabet: 0 boundary, 1... ASCII symbols, then other letters used by patterns, then "other".
        var classOf: [TextFolding.Symbol: Int32] = [TextFolding.boundary: 0]
        var asciiClass = [UInt8](repeating: 0, count: 128)
        var inWordClass = [UInt8](repeating: 0, count: 128)
        for byte in 0..<128 {
            let symbol = TextFolding.asciiFold[byte]
            if symbol != TextFolding.boundary {
                if classOf[symbol] == nil { classOf[symbol] = Int32(classOf.count) }
                asciiClass[byte] = UInt8(classOf[symbol]!)
            }
        }
        for byte in 0..<128 where TextFolding.asciiInWord[byte] != TextFolding.boundary {
            asciiClass[byte] = 255
            inWordClass[byte] = UInt8(classOf[TextFolding.asciiInWord[byte]]!)
        }
        asciiClass[0x27] = 254
        var nonASCIIClass: [UInt32: Int32] = [:]
        for symbols in folded {
            for symbol in symbols where classOf[symbol] == nil {
                classOf[symbol] = Int32(classOf.count)
                nonASCIIClass[symbol] = classOf[symbol]
            }
        }
        let otherClass = Int32(classOf.count)
        let classCount = classOf.count + 1
        self.asciiClass = asciiClass
        self.inWordClass = inWordClass
        self.nonASCIIClass = nonASCIIClass
        self.otherClass = otherClass
        self.classCount = classCount

        // The trie, then breadth-first failure links folded into a full transition table.
        var transitions = [Int32](repeating: -1, count: classCount)
        var output: [Int32] = [-1]
        for (index, symbols) in folded.enumerated() {
            var state = 0
            for symbol in symbols {
                let column = Int(classOf[symbol]!)
                if transitions[state * classCount + column] < 0 {
                    transitions[state * classCount + column] = Int32(output.count)
                    transitions.append(contentsOf: repeatElement(-1, count: classCount))
                    output.append(-1)
                }
                state = Int(transitions[state * classCount + column])
            }
            output[state] = Int32(index)
        }
        let stateCount = output.count
        var failure = [Int32](repeating: 0, count: stateCount)
        var outputLink = [Int32](repeating: -1, count: stateCount)
        var queue: [Int32] = []
        queue.reserveCapacity(stateCount)
        for column in 0..<classCount {
            let next = transitions[column]
            if next < 0 {
                transitions[column] = 0
            } else {
                failure[Int(next)] = 0
                queue.append(next)
            }
        }
        var head = 0
        while head < queue.count {
            let state = Int(queue[head])
            head += 1
            for column in 0..<classCount {
                let next = transitions[state * classCount + column]
                let fallback = transitions[Int(failure[state]) * classCount + column]
                if next < 0 {
                    transitions[state * classCount + column] = fallback
                } else {
                    failure[Int(next)] = fallback
                    outputLink[Int(next)] = output[Int(fallback)] >= 0 ? fallback : outputLink[Int(fallback)]
                    queue.append(next)
                }
            }
        }
        self.transitions = transitions
        self.output = output
        self.outputLink = outputLink
        self.outputLength = folded.map(\.count)
        // Texts start with a boundary, as patterns do.
        self.startState = transitions[0]
    }

    /// Number of automaton states (for sizing).
    public var stateCount: Int { output.count }

    /// Calls `body` for every match, in the order the matches end; `body` returns false to stop.
    public func forEachMatch(in text: String, _ body: (Match) -> Bool) {
        var text = text
        var foldedOffsets: [Int]?
        text.withUTF8 { bytes in
            scan(bytes) { foldedPattern, end in
                // A hit: recover where it started (rare, so folding again the slow way is fine).
                let offsets = foldedOffsets ?? TextFolding.fold(String(decoding: bytes, as: UTF8.self)).offsets
                foldedOffsets = offsets
                let length = outputLength[foldedPattern]
                let endIndex = min(end, offsets.count - 1)
                let startIndex = max(0, endIndex - length + 1)
                let start = startIndex + 1 < offsets.count ? offsets[startIndex + 1] : offsets[startIndex]
                let stop = offsets[endIndex]
                for pattern in outputPatterns[foldedPattern] {
                    if !body(Match(pattern: pattern, utf8Range: start..<max(start, stop))) { return false }
                }
                return true
            }
        }
    }

    /// The indices of the patterns found in `text` (each once, in the order they end).
    public func matches(in text: String) -> [Int] {
        var found: [Int] = []
        var text = text
        text.withUTF8 { bytes in
            scan(bytes) { foldedPattern, _ in
                for pattern in outputPatterns[foldedPattern] where !found.contains(pattern) { found.append(pattern) }
                return true
            }
        }
        return found
    }

    /// The hot loop: one table lookup per byte for ASCII text. Calls `hit(foldedPattern, symbolIndex)`
    /// with the index of the pattern's last (boundary) symbol in the folded text.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ hit: (Int, Int) -> Bool) {
        let classCount = self.classCount
        transitions.withUnsafeBufferPointer { table in
            output.withUnsafeBufferPointer { output in
                asciiClass.withUnsafeBufferPointer { asciiClass in
                    var state = Int(startState)
                    var previousWasBoundary = true
                    var symbolIndex = 0
                    var index = 0
                    let count = bytes.count

                    @inline(__always) func feed(_ column: Int) -> Bool {
                        if column == 0 {
                            if previousWasBoundary { return true }
                            previousWasBoundary = true
                        } else {
                            previousWasBoundary = false
                        }
                        symbolIndex += 1
                        state = Int(table[state * classCount + column])
                        if output[state] >= 0 || outputLink[state] >= 0 { return report() }
                        return true
                    }

                    @inline(__always) func nextIsWord(_ at: Int) -> Bool {
                        guard at < count else { return false }
                        let next = bytes[at]
                        return next >= 0x80 || (asciiClass[Int(next)] != 0 && asciiClass[Int(next)] < 254)
                    }

                    func report() -> Bool {
                        var current = output[state] >= 0 ? Int32(state) : outputLink[state]
                        while current >= 0 {
                            if !hit(Int(output[Int(current)]), symbolIndex) { return false }
                            current = outputLink[Int(current)]
                        }
                        return true
                    }

                    while index < count {
                        let byte = bytes[index]
                        if byte < 0x80 {
                            var column = Int(asciiClass[Int(byte)])
                            index += 1
                            if column >= 254 {
                                let inWord = !previousWasBoundary && nextIsWord(index)
                                if column == 254 {
                                    // An apostrophe inside a word joins it.
                                    if inWord { continue }
                                    column = 0
                                } else {
                                    column = inWord ? Int(inWordClass[Int(byte)]) : 0
                                }
                            }
                            if !feed(column) { return }
                        } else {
                            // Decode one scalar and fold it.
                            var value = UInt32(byte)
                            var extra = 0
                            if byte >= 0xF0 {
                                value &= 0x07
                                extra = 3
                            } else if byte >= 0xE0 {
                                value &= 0x0F
                                extra = 2
                            } else {
                                value &= 0x1F
                                extra = 1
                            }
                            index += 1
                            while extra > 0, index < count {
                                value = value << 6 | UInt32(bytes[index] & 0x3F)
                                index += 1
                                extra -= 1
                            }
                            guard let scalar = Unicode.Scalar(value) else { continue }
                            if value == 0x2019 {
                                if !previousWasBoundary && nextIsWord(index) { continue }
                                if !feed(0) { return }
                                continue
                            }
                            for symbol in TextFolding.fold(scalar) {
                                let column: Int
                                if symbol == TextFolding.boundary {
                                    column = 0
                                } else if symbol < 128 {
                                    column = Int(asciiClass[Int(symbol)])
                                } else {
                                    column = Int(nonASCIIClass[symbol] ?? otherClass)
                                }
                                if !feed(column) { return }
                            }
                        }
                    }
                    _ = feed(0)
                }
            }
        }
    }
}
