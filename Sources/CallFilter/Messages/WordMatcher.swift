/// Finds many words and phrases at once in a text, as whole words, after ``TextFolding``: an
/// Aho–Corasick automaton over folded symbols, with each pattern framed by word boundaries, so
/// one pass over the text finds every listed word whatever the list's size.
///
/// The automaton is a dense transition table over a small alphabet (the boundary, the folded
/// ASCII letters and digits, and any other letter a pattern uses; every other letter is one shared
/// "other" symbol), so each character of a message costs one table lookup. It is a class so that
/// copies of the filters holding it share the (large) table instead of retaining each array.
public final class WordMatcher: Sendable {
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
    /// The first state to report from: the state itself if it has an output, else its output link
    /// (-1: nothing ends here), so the hot loop makes one load per symbol to know.
    private let firstOutput: [Int32]
    /// Folded length (symbols, boundaries included) of each folded pattern.
    private let outputLength: [Int]
    private let startState: Int32
    /// Longest folded pattern plus one, rounded up to a power of two: the size of the ring of symbol offsets.
    private let ringSize: Int

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
        self.firstOutput = output.indices.map { output[$0] >= 0 ? Int32($0) : outputLink[$0] }
        self.outputLength = folded.map(\.count)
        var ringSize = 4
        while ringSize < (folded.map(\.count).max() ?? 0) + 1 { ringSize *= 2 }
        self.ringSize = ringSize
        // Texts start with a boundary, as patterns do.
        self.startState = transitions[0]
    }

    /// Number of automaton states (for sizing).
    public var stateCount: Int { output.count }

    /// Calls `body` for every match, in the order the matches end; `body` returns false to stop.
    public func forEachMatch(in text: String, _ body: (Match) -> Bool) {
        var text = text
        text.withUTF8 { bytes in
            scan(bytes) { foldedPattern, range in
                for pattern in outputPatterns[foldedPattern] {
                    if !body(Match(pattern: pattern, utf8Range: range)) { return false }
                }
                return true
            }
        }
    }

    /// The indices of the patterns found in `text` (each once, in the order they end).
    public func matches(in text: String) -> [Int] {
        var found: [Int] = []
        forEachMatch(in: text) { match in
            if !found.contains(match.pattern) { found.append(match.pattern) }
            return true
        }
        return found
    }

    /// Whether the byte at `index` starts a word character (any non-ASCII byte counts).
    @inline(__always)
    private static func isWordStart(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, _ asciiClass: UnsafeBufferPointer<UInt8>) -> Bool {
        guard index < bytes.count else { return false }
        let byte = bytes[index]
        return byte >= 0x80 || (asciiClass[Int(byte)] != 0 && asciiClass[Int(byte)] < 254)
    }

    /// The hot loop: one table lookup per ASCII byte. Calls `hit(foldedPattern, utf8Range)` for
    /// each folded pattern ending at the current symbol; `hit` returns false to stop.
    ///
    /// The UTF-8 offset of the last few symbols is kept in a small ring, so a match's start is
    /// known without folding the text a second time.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ hit: (Int, Range<Int>) -> Bool) {
        let classCount = self.classCount
        let ringSize = self.ringSize
        let ringMask = ringSize - 1
        let count = bytes.count
        transitions.withUnsafeBufferPointer { table in
            firstOutput.withUnsafeBufferPointer { firstOutput in
                outputLink.withUnsafeBufferPointer { outputLink in
                    asciiClass.withUnsafeBufferPointer { asciiClass in
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: ringSize) { ring in
                            ring[0] = 0
                            var state = Int(startState)
                            var previousWasBoundary = true
                            var symbolIndex = 0
                            var index = 0
                            var pendingFolds: [TextFolding.Symbol] = []
                            var pendingIndex = 0
                            var pendingOffset = 0
                            var finished = false
                            while !finished {
                                // The next symbol: from a non-ASCII character's fold, an ASCII byte, or the final boundary.
                                var column: Int
                                var sourceOffset: Int
                                if pendingIndex < pendingFolds.count {
                                    let symbol = pendingFolds[pendingIndex]
                                    pendingIndex += 1
                                    sourceOffset = pendingOffset
                                    if symbol == TextFolding.boundary {
                                        column = 0
                                    } else if symbol < 128 {
                                        column = Int(asciiClass[Int(symbol)])
                                    } else {
                                        column = Int(nonASCIIClass[symbol] ?? otherClass)
                                    }
                                } else if index < count {
                                    sourceOffset = index
                                    let byte = bytes[index]
                                    index += 1
                                    if byte < 0x80 {
                                        column = Int(asciiClass[Int(byte)])
                                        if column >= 254 {
                                            let inWord = !previousWasBoundary && Self.isWordStart(bytes, index, asciiClass)
                                            if column == 254 {
                                                // An apostrophe inside a word joins it.
                                                if inWord { continue }
                                                column = 0
                                            } else {
                                                column = inWord ? Int(inWordClass[Int(byte)]) : 0
                                            }
                                        }
                                    } else {
                                        // Decode one scalar and fold it (non-ASCII text only).
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
                                        while extra > 0, index < count {
                                            value = value << 6 | UInt32(bytes[index] & 0x3F)
                                            index += 1
                                            extra -= 1
                                        }
                                        guard let scalar = Unicode.Scalar(value) else { continue }
                                        if TextFolding.isApostrophe(value) {
                                            if !previousWasBoundary && Self.isWordStart(bytes, index, asciiClass) { continue }
                                            pendingFolds = [TextFolding.boundary]
                                        } else {
                                            pendingFolds = TextFolding.fold(scalar)
                                        }
                                        pendingIndex = 0
                                        pendingOffset = sourceOffset
                                        continue
                                    }
                                } else {
                                    column = 0
                                    sourceOffset = count
                                    finished = true
                                }
                                if column == 0 {
                                    if previousWasBoundary { continue }
                                    previousWasBoundary = true
                                } else {
                                    previousWasBoundary = false
                                }
                                symbolIndex += 1
                                ring[symbolIndex & ringMask] = sourceOffset
                                state = Int(table[state &* classCount &+ column])
                                var current = firstOutput[state]
                                while current >= 0 {
                                    let folded = Int(self.output[Int(current)])
                                    let length = outputLength[folded]
                                    // First letter: one after the opening boundary; end: where the closing boundary's character starts.
                                    let start = ring[(symbolIndex - length + 2) & ringMask]
                                    let end = ring[symbolIndex & ringMask]
                                    if !hit(folded, start..<max(start, end)) { return }
                                    current = outputLink[Int(current)]
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
