import Foundation

extension TrackerDataSet {
    /// Reads a TDS JSON document with a reader made for it: the fields Pepper uses are read
    /// straight from the bytes and everything else is skipped without building values, which
    /// takes a fifth of `JSONDecoder`'s time on DuckDuckGo's 2.8 MB file. It accepts and refuses
    /// what the `Decodable` conformance does for those fields (missing optional fields and
    /// `null` are `nil`; a required field missing or of another type is an error).
    ///
    /// - Throws: ``TrackerDataSetReadError`` with the byte offset and what was expected.
    public init(json bytes: UnsafeRawBufferPointer) throws(TrackerDataSetReadError) {
        var reader = JSONReader(bytes)
        var trackers: [String: Tracker]?
        var entities: [String: Entity]?
        var cnames: [String: String]?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            switch key {
            case "trackers": trackers = try reader.dictionary { reader throws(TrackerDataSetReadError) in try Tracker(reading: &reader) }
            case "entities": entities = try reader.dictionary { reader throws(TrackerDataSetReadError) in try Entity(reading: &reader) }
            case "cnames":
                cnames = try reader.optional { reader throws(TrackerDataSetReadError) in
                    try reader.dictionary { reader throws(TrackerDataSetReadError) in try reader.string() }
                }
            default: try reader.skip()
            }
        }
        try reader.end()
        guard let trackers else { throw reader.missing("trackers") }
        guard let entities else { throw reader.missing("entities") }
        self.init(trackers: trackers, entities: entities, cnames: cnames)
    }
}

/// Why a TDS document could not be read.
public struct TrackerDataSetReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was expected there.
    public var reason: String

    /// A one-line explanation.
    public var description: String { "at byte \(offset): \(reason)" }
}

extension TrackerDataSet.Tracker {
    fileprivate init(reading reader: inout JSONReader) throws(TrackerDataSetReadError) {
        var domain: String?
        var owner: Owner?
        var defaultAction: String?
        var rules: [Rule]?
        var categories: [String]?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            switch key {
            case "domain": domain = try reader.string()
            case "categories": categories = try reader.optionalStrings()
            case "owner": owner = try reader.optional { reader throws(TrackerDataSetReadError) in try Owner(reading: &reader) }
            case "default": defaultAction = try reader.optionalString()
            case "rules":
                rules = try reader.optional { reader throws(TrackerDataSetReadError) in
                    try reader.array { reader throws(TrackerDataSetReadError) in try Rule(reading: &reader) }
                }
            default: try reader.skip()
            }
        }
        guard let domain else { throw reader.missing("domain") }
        self.init(domain: domain, owner: owner, default: defaultAction, rules: rules, categories: categories)
    }
}

extension TrackerDataSet.Tracker.Owner {
    fileprivate init(reading reader: inout JSONReader) throws(TrackerDataSetReadError) {
        var name: String?
        var ownedBy: String?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            switch key {
            case "name": name = try reader.string()
            case "ownedBy": ownedBy = try reader.optionalString()
            default: try reader.skip()
            }
        }
        guard let name else { throw reader.missing("name") }
        self.init(name: name, ownedBy: ownedBy)
    }
}

extension TrackerDataSet.Tracker.Rule {
    fileprivate init(reading reader: inout JSONReader) throws(TrackerDataSetReadError) {
        var rule: String?
        var action: String?
        var options: Scope?
        var exceptions: Scope?
        var surrogate: String?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            switch key {
            case "rule": rule = try reader.string()
            case "action": action = try reader.optionalString()
            case "options": options = try reader.optional { reader throws(TrackerDataSetReadError) in try Scope(reading: &reader) }
            case "exceptions": exceptions = try reader.optional { reader throws(TrackerDataSetReadError) in try Scope(reading: &reader) }
            case "surrogate": surrogate = try reader.optionalString()
            default: try reader.skip()
            }
        }
        guard let rule else { throw reader.missing("rule") }
        self.init(rule: rule, action: action, options: options, exceptions: exceptions, surrogate: surrogate)
    }
}

extension TrackerDataSet.Tracker.Rule.Scope {
    fileprivate init(reading reader: inout JSONReader) throws(TrackerDataSetReadError) {
        var domains: [String]?
        var types: [String]?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            switch key {
            case "domains": domains = try reader.optionalStrings()
            case "types": types = try reader.optionalStrings()
            default: try reader.skip()
            }
        }
        self.init(domains: domains, types: types)
    }
}

extension TrackerDataSet.Entity {
    fileprivate init(reading reader: inout JSONReader) throws(TrackerDataSetReadError) {
        var domains: [String]?
        try reader.object { reader, key throws(TrackerDataSetReadError) in
            if key == "domains" {
                domains = try reader.optionalStrings()
            } else {
                try reader.skip()
            }
        }
        self.init(domains: domains)
    }
}

/// A pull reader of JSON (RFC 8259) over bytes: objects and arrays are walked with closures,
/// strings are decoded (escapes and surrogate pairs included), and values nobody asked for are
/// skipped after checking their syntax.
struct JSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func failure(_ reason: String) -> TrackerDataSetReadError {
        TrackerDataSetReadError(offset: position, reason: reason)
    }

    func missing(_ key: String) -> TrackerDataSetReadError {
        failure("the object before this has no \"\(key)\"")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not consumed; `nil` at the end.
    private mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(TrackerDataSetReadError) {
        guard peek() == byte else { throw failure("expected \(what)") }
        position += 1
    }

    /// Only whitespace may follow the document.
    mutating func end() throws(TrackerDataSetReadError) {
        guard peek() == nil else { throw failure("unexpected data after the document") }
    }

    /// `nil` for `null`, else what `read` reads.
    mutating func optional<T>(_ read: (inout JSONReader) throws(TrackerDataSetReadError) -> T) throws(TrackerDataSetReadError) -> T? {
        if peek() == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try read(&self)
    }

    /// A string or `null`.
    mutating func optionalString() throws(TrackerDataSetReadError) -> String? {
        try optional { reader throws(TrackerDataSetReadError) in try reader.string() }
    }

    /// An array of strings or `null`.
    mutating func optionalStrings() throws(TrackerDataSetReadError) -> [String]? {
        try optional { reader throws(TrackerDataSetReadError) in
            try reader.array { reader throws(TrackerDataSetReadError) in try reader.string() }
        }
    }

    /// Walks an object, calling `member` with each key; `member` must read or skip the value.
    mutating func object(_ member: (inout JSONReader, String) throws(TrackerDataSetReadError) -> Void) throws(TrackerDataSetReadError) {
        try expect(UInt8(ascii: "{"), "an object")
        if peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            try expect(UInt8(ascii: ":"), "':'")
            try member(&self, key)
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    /// An object read into a dictionary (a later duplicate key wins, as with `JSONDecoder`).
    mutating func dictionary<T>(
        _ value: (inout JSONReader) throws(TrackerDataSetReadError) -> T
    ) throws(TrackerDataSetReadError) -> [String: T] {
        var result: [String: T] = [:]
        try object { reader, key throws(TrackerDataSetReadError) in result[key] = try value(&reader) }
        return result
    }

    /// An array of what `element` reads.
    mutating func array<T>(_ element: (inout JSONReader) throws(TrackerDataSetReadError) -> T) throws(TrackerDataSetReadError) -> [T] {
        try expect(UInt8(ascii: "["), "an array")
        var result: [T] = []
        if peek() == UInt8(ascii: "]") {
            position += 1
            return result
        }
        while true {
            result.append(try element(&self))
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return result
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    /// A string.
    mutating func string() throws(TrackerDataSetReadError) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        // The common case: no escapes, so the bytes are the string.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            position += 1
        }
        var decoded = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hexQuad()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by its low half.
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                        else { throw failure("a lone surrogate in a string") }
                        position += 2
                        let low = try hexQuad()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw failure("a lone surrogate in a string")
                    }
                    decoded.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default: throw failure("an unknown escape in a string")
                }
            case 0..<0x20: throw failure("a control character in a string")
            default: decoded.append(byte)
            }
        }
        throw failure("an unterminated string")
    }

    private mutating func hexQuad() throws(TrackerDataSetReadError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func literal(_ word: StaticString) throws(TrackerDataSetReadError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
            memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0
        else { throw failure("expected \(word)") }
        position += count
    }

    /// Skips one value of any kind, checking its syntax.
    mutating func skip() throws(TrackerDataSetReadError) {
        switch peek() {
        case UInt8(ascii: "{")?: try object { reader, _ throws(TrackerDataSetReadError) in try reader.skip() }
        case UInt8(ascii: "[")?: _ = try array { reader throws(TrackerDataSetReadError) in try reader.skip() }
        case UInt8(ascii: "\"")?: _ = try string()
        case UInt8(ascii: "t")?: try literal("true")
        case UInt8(ascii: "f")?: try literal("false")
        case UInt8(ascii: "n")?: try literal("null")
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
        default: throw failure("expected a value")
        }
    }

    /// Skips a number, checking its grammar.
    private mutating func number() throws(TrackerDataSetReadError) {
        func digits(_ reader: inout JSONReader) -> Int {
            let start = reader.position
            while reader.position < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.position]) {
                reader.position += 1
            }
            return reader.position - start
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digits(&self) > 0 else { throw failure("a malformed number") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw failure("a malformed number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw failure("a malformed number") }
        }
    }
}
