import FilterLists

/// Converts a JavaScript regular expression from a `/regex/` rule into WebKit's `url-filter`
/// subset, or says why it cannot be.
///
/// WebKit accepts `.`, `*`, `+`, `?`, character classes, groups, `^` at the start and `$` at
/// the end, in ASCII. This translator also rewrites what has an exact equivalent: `\d` `\w`
/// `\s` and their negations become classes, `{n,m}` is unrolled, `(?:...)` becomes `(...)`,
/// lazy quantifiers become greedy ones (same set of matches), and a top-level or group
/// alternation `a|b` becomes several rules. Backreferences (which WebKit accepts but never
/// matches), lookarounds and `\b` are refused with a reason.
public enum WebKitRegexTranslator {
    /// At most this many rules from one expression's alternations.
    public static let maximumAlternatives = 16
    /// At most this many characters per produced expression.
    public static let maximumLength = 2_048

    /// The `url-filter` expressions equivalent to `source`, or why there are none.
    public static func translate(_ source: String) -> Result<[String], SkipReason> {
        var parser = Parser(bytes: Array(source.utf8))
        do throws(Unsupported) {
            let tree = try parser.parseAlternation()
            guard parser.position == parser.bytes.count else { throw Unsupported.syntax }
            // Most expressions have no alternation: write them out directly.
            let expansions: [[UInt8]]
            if parser.hasAlternation {
                expansions = try expand(tree)
            } else {
                var single: [UInt8] = []
                single.reserveCapacity(source.utf8.count + 16)
                try write(tree, into: &single)
                expansions = [single]
            }
            var results: [String] = []
            for expansion in expansions {
                // Anchors are held as markers (0x01 start, 0x02 end) until their position is known.
                if let start = expansion.firstIndex(of: 0x01), start != 0 { throw Unsupported.anchor }
                if let end = expansion.firstIndex(of: 0x02), end != expansion.count - 1 { throw Unsupported.anchor }
                if expansion.dropFirst().contains(0x01) { throw Unsupported.anchor }
                var bytes = expansion
                if bytes.first == 0x01 { bytes[0] = UInt8(ascii: "^") }
                if bytes.last == 0x02 { bytes[bytes.count - 1] = UInt8(ascii: "$") }
                guard bytes.count <= maximumLength else { throw Unsupported.tooLong }
                let text = String(decoding: bytes, as: UTF8.self)
                if !results.contains(text) { results.append(text) }
            }
            return .success(results.isEmpty ? [".*"] : results)
        } catch {
            return .failure(
                SkipReason(
                    "unsupported-regex:" + error.rawValue,
                    words: "WebKit's regular expressions cannot express it (\(error.rawValue))"))
        }
    }

    enum Unsupported: String, Error {
        case alternation, anchor, backreference, lookaround, wordBoundary = "word-boundary"
        case nonASCII = "non-ascii", repetition, syntax, tooLong = "too-long", controlCharacter = "control-character"
    }

    /// A parsed expression.
    indirect enum Node {
        case sequence([Node])
        case alternation([Node])
        case group(Node)
        case atom([UInt8])  // already in WebKit syntax: a literal, `.`, or a class
        case startAnchor
        case endAnchor
        case repetition(Node, min: Int, max: Int?)
    }

    // MARK: Expansion

    /// Writes an expression without alternations.
    static func write(_ node: Node, into output: inout [UInt8]) throws(Unsupported) {
        switch node {
        case .atom(let bytes): output += bytes
        case .startAnchor: output.append(0x01)
        case .endAnchor: output.append(0x02)
        case .group(let inner): try write(inner, into: &output)
        case .alternation: throw .alternation
        case .sequence(let items):
            for item in items { try write(item, into: &output) }
        case .repetition:
            output += try expand(node)[0]
        }
    }

    static func expand(_ node: Node) throws(Unsupported) -> [[UInt8]] {
        switch node {
        case .atom(let bytes): return [bytes]
        case .startAnchor: return [[0x01]]
        case .endAnchor: return [[0x02]]
        case .group(let inner):
            return try expand(inner)
        case .alternation(let branches):
            var all: [[UInt8]] = []
            for branch in branches { all += try expand(branch) }
            guard all.count <= maximumAlternatives else { throw .alternation }
            return all
        case .sequence(let items):
            var results: [[UInt8]] = [[]]
            for item in items {
                let parts = try expand(item)
                guard results.count * parts.count <= maximumAlternatives else { throw .alternation }
                results = results.flatMap { prefix in parts.map { prefix + $0 } }
            }
            return results
        case .repetition(let inner, let min, let max):
            let parts = try expand(inner)
            guard parts.count == 1, let body = parts.first else { throw .alternation }
            if body.contains(0x01) || body.contains(0x02) { throw .anchor }
            let unit = isSingleAtom(inner) ? body : [UInt8(ascii: "(")] + body + [UInt8(ascii: ")")]
            return [try repeated(unit, min: min, max: max)]
        }
    }

    private static func isSingleAtom(_ node: Node) -> Bool {
        if case .atom = node { return true }
        return false
    }

    /// `x{2,4}` → `xxx?x?`, `x{2,}` → `xx+`, `x?`, `x*`, `x+` as is.
    private static func repeated(_ unit: [UInt8], min: Int, max: Int?) throws(Unsupported) -> [UInt8] {
        switch (min, max) {
        case (0, nil): return unit + [UInt8(ascii: "*")]
        case (1, nil): return unit + [UInt8(ascii: "+")]
        case (0, 1?): return unit + [UInt8(ascii: "?")]
        default: break
        }
        let optionalCount = max.map { $0 - min } ?? 0
        guard min + optionalCount <= 64, (min + optionalCount) * unit.count <= maximumLength else { throw .repetition }
        var output: [UInt8] = []
        if let max {
            for _ in 0..<min { output += unit }
            for _ in 0..<(max - min) { output += unit + [UInt8(ascii: "?")] }
        } else {
            for _ in 0..<(min - 1) { output += unit }
            output += unit + [UInt8(ascii: "+")]
        }
        return output
    }

    // MARK: Parsing

    struct Parser {
        let bytes: [UInt8]
        var position = 0
        var depth = 0
        var hasAlternation = false

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func parseAlternation() throws(Unsupported) -> Node {
            depth += 1
            defer { depth -= 1 }
            guard depth < 40 else { throw .syntax }
            var branches = [try parseSequence()]
            while current == UInt8(ascii: "|") {
                hasAlternation = true
                position += 1
                branches.append(try parseSequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func parseSequence() throws(Unsupported) -> Node {
            var items: [Node] = []
            while let byte = current, byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
                var node = try parseAtom()
                node = try parseQuantifier(on: node)
                items.append(node)
            }
            return .sequence(items)
        }

        mutating func parseQuantifier(on node: Node) throws(Unsupported) -> Node {
            guard let byte = current else { return node }
            var min = 0
            var max: Int?
            switch byte {
            case UInt8(ascii: "*"): position += 1
            case UInt8(ascii: "+"):
                position += 1
                min = 1
            case UInt8(ascii: "?"):
                position += 1
                max = 1
            case UInt8(ascii: "{"):
                guard let (low, high) = parseBraces() else { return node }
                min = low
                max = high
            default:
                return node
            }
            if case .startAnchor = node { throw .anchor }
            if case .endAnchor = node { throw .anchor }
            if current == UInt8(ascii: "?") { position += 1 }  // lazy: same matches, greedy is fine
            if let max, max < min { throw .syntax }
            if let max, min == max, max == 1 { return node }
            return .repetition(node, min: min, max: max)
        }

        /// `{n}`, `{n,}`, `{n,m}`; `nil` (and no input consumed) if the brace is a literal.
        mutating func parseBraces() -> (Int, Int?)? {
            let start = position
            position += 1
            func number() -> Int? {
                let begin = position
                while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
                guard position > begin, position - begin < 6 else { return nil }
                return Int(String(decoding: bytes[begin..<position], as: UTF8.self))
            }
            guard let low = number() else {
                position = start
                return nil
            }
            var high: Int? = low
            if current == UInt8(ascii: ",") {
                position += 1
                high = current == UInt8(ascii: "}") ? nil : number()
                if high == nil && current != UInt8(ascii: "}") {
                    position = start
                    return nil
                }
            }
            guard current == UInt8(ascii: "}") else {
                position = start
                return nil
            }
            position += 1
            return (low, high)
        }

        mutating func parseAtom() throws(Unsupported) -> Node {
            let byte = bytes[position]
            guard byte < 0x80 else { throw .nonASCII }
            switch byte {
            case UInt8(ascii: "("):
                position += 1
                if current == UInt8(ascii: "?") {
                    position += 1
                    guard let kind = current else { throw .syntax }
                    switch kind {
                    case UInt8(ascii: ":"): position += 1
                    case UInt8(ascii: "="), UInt8(ascii: "!"): throw .lookaround
                    case UInt8(ascii: "<"):
                        position += 1
                        if current == UInt8(ascii: "=") || current == UInt8(ascii: "!") { throw .lookaround }
                        while let next = current, next != UInt8(ascii: ">") { position += 1 }
                        guard current == UInt8(ascii: ">") else { throw .syntax }
                        position += 1
                    default: throw .syntax
                    }
                }
                let inner = try parseAlternation()
                guard current == UInt8(ascii: ")") else { throw .syntax }
                position += 1
                return .group(inner)
            case UInt8(ascii: "["):
                return .atom(try parseClass())
            case UInt8(ascii: "."):
                position += 1
                return .atom([UInt8(ascii: ".")])
            case UInt8(ascii: "^"):
                position += 1
                return .startAnchor
            case UInt8(ascii: "$"):
                position += 1
                return .endAnchor
            case UInt8(ascii: "\\"):
                position += 1
                return .atom(try parseEscape())
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                throw .syntax
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "]"):
                position += 1
                return .atom(literal(byte))
            default:
                guard byte >= 0x20 else { throw .controlCharacter }
                position += 1
                return .atom(literal(byte))
            }
        }

        mutating func parseEscape() throws(Unsupported) -> [UInt8] {
            guard let byte = current else { throw .syntax }
            position += 1
            switch byte {
            case UInt8(ascii: "d"): return Array("[0-9]".utf8)
            case UInt8(ascii: "D"): return Array("[^0-9]".utf8)
            case UInt8(ascii: "w"): return Array("[0-9A-Z_a-z]".utf8)
            case UInt8(ascii: "W"): return Array("[^0-9A-Z_a-z]".utf8)
            // URLs never contain white space, so `\s` matches nothing and `\S` anything.
            case UInt8(ascii: "s"): return Array("[ ]".utf8)
            case UInt8(ascii: "S"): return Array("[^ ]".utf8)
            case UInt8(ascii: "b"), UInt8(ascii: "B"): throw .wordBoundary
            case UInt8(ascii: "1")...UInt8(ascii: "9"), UInt8(ascii: "k"): throw .backreference
            case UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "v"),
                UInt8(ascii: "0"), UInt8(ascii: "c"):
                throw .controlCharacter
            case UInt8(ascii: "x"), UInt8(ascii: "u"):
                let length = byte == UInt8(ascii: "x") ? 2 : 4
                guard position + length <= bytes.count,
                    let value = Int(String(decoding: bytes[position..<(position + length)], as: UTF8.self), radix: 16)
                else { throw .syntax }
                position += length
                guard value < 0x80 else { throw .nonASCII }
                guard value >= 0x20 else { throw .controlCharacter }
                return literal(UInt8(value))
            default:
                guard byte < 0x80 else { throw .nonASCII }
                guard !(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) && !(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                else {
                    throw .syntax
                }
                return literal(byte)
            }
        }

        /// A character class, returned in canonical WebKit form.
        mutating func parseClass() throws(Unsupported) -> [UInt8] {
            position += 1  // [
            var negated = false
            if current == UInt8(ascii: "^") {
                negated = true
                position += 1
            }
            var members = [Bool](repeating: false, count: 128)
            var first = true
            while let byte = current, byte != UInt8(ascii: "]") || first {
                first = false
                let low = try classMember(into: &members)
                guard let low else { continue }
                if current == UInt8(ascii: "-"), position + 1 < bytes.count, bytes[position + 1] != UInt8(ascii: "]") {
                    position += 1
                    guard let high = try classMember(into: &members), high >= low else { throw .syntax }
                    for value in low...high { members[Int(value)] = true }
                } else {
                    members[Int(low)] = true
                }
            }
            guard current == UInt8(ascii: "]") else { throw .syntax }
            position += 1
            return Self.canonicalClass(members, negated: negated)
        }

        /// One member of a class: returns a single character, or adds a built-in class and returns `nil`.
        mutating func classMember(into members: inout [Bool]) throws(Unsupported) -> UInt8? {
            let byte = bytes[position]
            guard byte < 0x80 else { throw .nonASCII }
            position += 1
            guard byte == UInt8(ascii: "\\") else {
                guard byte >= 0x20 else { throw .controlCharacter }
                return byte
            }
            guard let escaped = current else { throw .syntax }
            position += 1
            func add(_ ranges: [ClosedRange<UInt8>], negated: Bool = false) {
                for value in 0..<128 {
                    let inside = ranges.contains { $0.contains(UInt8(value)) }
                    if inside != negated { members[value] = true }
                }
            }
            switch escaped {
            case UInt8(ascii: "d"): add([48...57])
            case UInt8(ascii: "D"): add([48...57], negated: true)
            case UInt8(ascii: "w"): add([48...57, 65...90, 95...95, 97...122])
            case UInt8(ascii: "W"): add([48...57, 65...90, 95...95, 97...122], negated: true)
            case UInt8(ascii: "s"): add([32...32])
            case UInt8(ascii: "S"): add([32...32], negated: true)
            case UInt8(ascii: "b"): throw .controlCharacter  // backspace inside a class
            case UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "v"), UInt8(ascii: "0"):
                throw .controlCharacter
            case UInt8(ascii: "x"), UInt8(ascii: "u"):
                position -= 1
                let literal = try parseEscape()
                return literal.last
            default:
                guard escaped < 0x80 else { throw .nonASCII }
                return escaped
            }
            return nil
        }

        /// Writes a class from its members: ranges in ascending order, specials escaped.
        static func canonicalClass(_ members: [Bool], negated: Bool) -> [UInt8] {
            var output: [UInt8] = [UInt8(ascii: "[")]
            if negated { output.append(UInt8(ascii: "^")) }
            var value = 0x20
            while value < 128 {
                guard members[value] else {
                    value += 1
                    continue
                }
                var end = value
                while end + 1 < 128 && members[end + 1] { end += 1 }
                output += classCharacter(UInt8(value))
                if end > value + 1 { output.append(UInt8(ascii: "-")) }
                if end > value { output += classCharacter(UInt8(end)) }
                value = end + 1
            }
            output.append(UInt8(ascii: "]"))
            return output
        }

        static func classCharacter(_ byte: UInt8) -> [UInt8] {
            switch byte {
            case UInt8(ascii: "]"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "-"), UInt8(ascii: "["):
                return [UInt8(ascii: "\\"), byte]
            default:
                return [byte]
            }
        }

        func literal(_ byte: UInt8) -> [UInt8] {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "$"):
                return [UInt8(ascii: "\\"), byte]
            default:
                return [byte]
            }
        }
    }
}
