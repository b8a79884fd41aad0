/// A regular expression over decimal digits, as the phone-number metadata writes them
/// (`0(?:0|1[3-9]\d)`, `([2-9]\d{6})$|1`).
///
/// The metadata's patterns use a small subset of regular-expression syntax — digits, `\d`, classes
/// with ranges, groups, alternation, `? * + {n} {n,m}` and a final `$` — so a small backtracking
/// machine runs them with the same leftmost-alternative, greedy semantics as the regular-expression
/// engines the metadata was written for, without pulling in a general regex library (and without
/// `NSRegularExpression`, which is slow and behaves differently across platforms).
public struct DigitPattern: Sendable, Hashable {
    /// A syntax error in a pattern.
    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        /// The pattern.
        public var pattern: String
        /// What is wrong.
        public var reason: String
        /// A one-line explanation.
        public var description: String { "invalid digit pattern \(pattern): \(reason)" }
    }

    /// A capture group's digits, as offsets into the matched input.
    public typealias Group = Range<Int>

    private enum Instruction: Hashable, Sendable {
        /// One digit in the set (bit n = digit n).
        case digits(UInt16)
        /// Try `preferred` first, then `other`.
        case split(preferred: Int, other: Int)
        case jump(Int)
        case save(Int)
        /// Succeeds only at the end of the input.
        case end
        case match
    }

    /// The source text.
    public let source: String
    private let program: [Instruction]
    /// Number of capture groups.
    public let groupCount: Int

    /// Compiles `source`.
    public init(_ source: String) throws(SyntaxError) {
        var parser = Parser(scalars: Array(source.unicodeScalars), source: source)
        let node = try parser.parseAlternation()
        guard parser.position == parser.scalars.count else {
            throw SyntaxError(pattern: source, reason: "unexpected \(parser.scalars[parser.position]) at \(parser.position)")
        }
        var compiler = Compiler()
        compiler.emit(node)
        compiler.program.append(.match)
        self.source = source
        self.program = compiler.program
        self.groupCount = parser.groupCount
    }

    /// Matches at the start of `digits` (values 0–9), like Python's `re.match`: the match may end
    /// before the input does.
    ///
    /// - Returns: The length of the match and the groups (nil for groups that took no part), or nil.
    public func prefixMatch(_ digits: some RandomAccessCollection<UInt8>) -> (length: Int, groups: [Group?])? {
        digits.withContiguousStorageIfAvailable { run($0, requireEnd: false) }
            ?? Array(digits).withUnsafeBufferPointer { run($0, requireEnd: false) }
    }

    /// Whether the whole of `digits` (values 0–9) matches.
    public func fullMatch(_ digits: some RandomAccessCollection<UInt8>) -> Bool {
        let result =
            digits.withContiguousStorageIfAvailable { run($0, requireEnd: true) }
            ?? Array(digits).withUnsafeBufferPointer { run($0, requireEnd: true) }
        return result != nil
    }

    private enum Backtrack {
        case resume(pc: Int, position: Int)
        case restore(slot: Int, value: Int)
    }

    private func run(_ input: UnsafeBufferPointer<UInt8>, requireEnd: Bool) -> (length: Int, groups: [Group?])? {
        var slots = groupCount == 0 ? [] : [Int](repeating: -1, count: groupCount * 2)
        var stack: [Backtrack] = []
        var pc = 0
        var position = 0
        // The metadata's patterns are tiny; the cap only guards against a pathological pattern.
        var budget = 100_000
        while budget > 0 {
            budget -= 1
            var failed = false
            switch program[pc] {
            case .digits(let set):
                if position < input.count, input[position] < 10, set & (1 << UInt16(input[position])) != 0 {
                    position += 1
                    pc += 1
                } else {
                    failed = true
                }
            case .split(let preferred, let other):
                stack.append(.resume(pc: other, position: position))
                pc = preferred
            case .jump(let target):
                pc = target
            case .save(let slot):
                stack.append(.restore(slot: slot, value: slots[slot]))
                slots[slot] = position
                pc += 1
            case .end:
                if position == input.count { pc += 1 } else { failed = true }
            case .match:
                if requireEnd && position != input.count {
                    failed = true
                } else {
                    var groups: [Group?] = []
                    for group in 0..<groupCount {
                        let start = slots[2 * group]
                        let end = slots[2 * group + 1]
                        groups.append(start >= 0 && end >= start ? start..<end : nil)
                    }
                    return (position, groups)
                }
            }
            if failed {
                var resumed = false
                while let top = stack.popLast() {
                    switch top {
                    case .restore(let slot, let value):
                        slots[slot] = value
                    case .resume(let target, let at):
                        pc = target
                        position = at
                        resumed = true
                    }
                    if resumed { break }
                }
                if !resumed { return nil }
            }
        }
        return nil
    }

    // MARK: Parsing

    private indirect enum Node {
        case digits(UInt16)
        case sequence([Node])
        case alternation([Node])
        case group(Node, capture: Int?)
        case repeated(Node, minimum: Int, maximum: Int?)
        case end
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let source: String
        var position = 0
        var groupCount = 0

        init(scalars: [Unicode.Scalar], source: String) {
            self.scalars = scalars
            self.source = source
        }

        func error(_ reason: String) -> SyntaxError { SyntaxError(pattern: source, reason: reason) }

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func parseAlternation() throws(SyntaxError) -> Node {
            var branches = [try parseSequence()]
            while current == "|" {
                position += 1
                branches.append(try parseSequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func parseSequence() throws(SyntaxError) -> Node {
            var items: [Node] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                var atom = try parseAtom()
                atom = try parseQuantifiers(atom)
                items.append(atom)
            }
            return .sequence(items)
        }

        mutating func parseAtom() throws(SyntaxError) -> Node {
            guard let scalar = current else { throw error("unexpected end") }
            position += 1
            switch scalar {
            case "0"..."9":
                return .digits(1 << UInt16(scalar.value - 48))
            case "\\":
                guard current == "d" else { throw error("only \\d is supported") }
                position += 1
                return .digits(0x3FF)
            case "[":
                return try parseClass()
            case "(":
                var capture: Int? = groupCount
                if current == "?" {
                    guard position + 1 < scalars.count, scalars[position + 1] == ":" else { throw error("unsupported group") }
                    position += 2
                    capture = nil
                } else {
                    groupCount += 1
                }
                let inner = try parseAlternation()
                guard current == ")" else { throw error("missing )") }
                position += 1
                return .group(inner, capture: capture)
            case "$":
                return .end
            default:
                throw error("unsupported \(scalar)")
            }
        }

        mutating func parseClass() throws(SyntaxError) -> Node {
            var set: UInt16 = 0
            var negated = false
            if current == "^" {
                negated = true
                position += 1
            }
            while let scalar = current, scalar != "]" {
                position += 1
                if scalar == "\\" {
                    guard current == "d" else { throw error("only \\d in classes") }
                    position += 1
                    set |= 0x3FF
                    continue
                }
                guard ("0"..."9").contains(scalar) else { throw error("non-digit \(scalar) in class") }
                var upper = scalar
                if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    upper = scalars[position + 1]
                    position += 2
                    guard ("0"..."9").contains(upper), upper >= scalar else { throw error("bad range") }
                }
                for value in scalar.value...upper.value { set |= 1 << UInt16(value - 48) }
            }
            guard current == "]" else { throw error("missing ]") }
            position += 1
            return .digits(negated ? ~set & 0x3FF : set)
        }

        mutating func parseQuantifiers(_ atom: Node) throws(SyntaxError) -> Node {
            var node = atom
            while let scalar = current {
                switch scalar {
                case "?": node = .repeated(node, minimum: 0, maximum: 1)
                case "*": node = .repeated(node, minimum: 0, maximum: nil)
                case "+": node = .repeated(node, minimum: 1, maximum: nil)
                case "{":
                    position += 1
                    let minimum = readNumber()
                    var maximum: Int? = minimum
                    if current == "," {
                        position += 1
                        maximum = current == "}" ? nil : readNumber()
                    }
                    guard let minimum, current == "}" else { throw error("bad {n,m}") }
                    if let maximum, maximum < minimum { throw error("bad {n,m}") }
                    node = .repeated(node, minimum: minimum, maximum: maximum)
                default:
                    return node
                }
                position += 1
            }
            return node
        }

        mutating func readNumber() -> Int? {
            var value: Int?
            while let scalar = current, ("0"..."9").contains(scalar) {
                value = (value ?? 0) * 10 + Int(scalar.value - 48)
                position += 1
            }
            return value
        }
    }

    private struct Compiler {
        var program: [Instruction] = []

        mutating func emit(_ node: Node) {
            switch node {
            case .digits(let set):
                program.append(.digits(set))
            case .sequence(let items):
                for item in items { emit(item) }
            case .end:
                program.append(.end)
            case .group(let inner, let capture):
                if let capture { program.append(.save(2 * capture)) }
                emit(inner)
                if let capture { program.append(.save(2 * capture + 1)) }
            case .alternation(let branches):
                // split L1, next; L1: branch; jump end; next: split ...
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = program.count
                        program.append(.split(preferred: split + 1, other: -1))
                        emit(branch)
                        jumps.append(program.count)
                        program.append(.jump(-1))
                        program[split] = .split(preferred: split + 1, other: program.count)
                    } else {
                        emit(branch)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let inner, let minimum, let maximum):
                for _ in 0..<minimum { emit(inner) }
                if let maximum {
                    // Greedy optional copies: split take, skip.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(program.count)
                        program.append(.split(preferred: program.count + 1, other: -1))
                        emit(inner)
                    }
                    for split in splits { program[split] = .split(preferred: split + 1, other: program.count) }
                } else {
                    let loop = program.count
                    program.append(.split(preferred: loop + 1, other: -1))
                    emit(inner)
                    program.append(.jump(loop))
                    program[loop] = .split(preferred: loop + 1, other: program.count)
                }
            }
        }
    }
}
