/// Checks that a selector list is valid CSS (Selectors Level 4, as WebKit parses it).
///
/// WebKit drops a `css-display-none` rule whose selector does not parse, silently, and one bad
/// selector invalidates a whole comma-separated list; so Pepper validates every selector before
/// grouping them. Unknown pseudo-classes are invalid, as in WebKit.
public enum CSSSelectorValidator {
    /// Whether `selector` (one selector or a comma-separated list) is valid.
    public static func isValid(_ selector: some StringProtocol) -> Bool {
        var parser = Parser(bytes: Array(selector.utf8))
        return parser.parseSelectorList(relative: false, allowEmpty: false) && parser.atEnd
    }

    static let pseudoClassesWithoutArguments: Set<String> = [
        "active", "any-link", "autofill", "-webkit-autofill", "checked", "default", "defined", "disabled",
        "empty", "enabled", "first-child", "first-of-type", "focus", "focus-visible", "focus-within",
        "fullscreen", "-webkit-full-screen", "hover", "in-range", "indeterminate", "invalid", "last-child",
        "last-of-type", "link", "only-child", "only-of-type", "optional", "out-of-range", "placeholder-shown",
        "read-only", "read-write", "required", "root", "scope", "target", "valid", "visited", "playing",
        "paused", "modal", "popover-open", "user-invalid", "user-valid", "first", "left", "right",
        "-webkit-any-link", "picture-in-picture", "open", "closed",
    ]

    static let pseudoClassesWithSelectorList: Set<String> = ["not", "is", "where", "matches", "-webkit-any", "has"]
    static let nthPseudoClasses: Set<String> = ["nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type"]
    static let pseudoElements: Set<String> = [
        "before", "after", "first-line", "first-letter", "selection", "placeholder", "marker", "backdrop",
        "file-selector-button", "-webkit-scrollbar", "-webkit-input-placeholder",
    ]

    fileprivate struct Parser {
        let bytes: [UInt8]
        var position = 0
        var depth = 0
        /// Inside `:has(...)`, where another `:has` is not allowed (CSS Selectors 4; WebKit refuses it).
        var insideHas = false

        var atEnd: Bool { position >= bytes.count }
        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpaces() -> Bool {
            let start = position
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D {
                position += 1
            }
            return position > start
        }

        mutating func parseSelectorList(relative: Bool, allowEmpty: Bool) -> Bool {
            depth += 1
            defer { depth -= 1 }
            guard depth < 32 else { return false }
            repeat {
                _ = skipSpaces()
                if allowEmpty && current == UInt8(ascii: ")") { return true }
                guard parseComplex(relative: relative) else { return false }
                _ = skipSpaces()
            } while consume(UInt8(ascii: ","))
            return true
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        mutating func parseCombinator() -> Bool {
            if let byte = current, byte == UInt8(ascii: ">") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "~") {
                position += 1
                return true
            }
            return false
        }

        mutating func parseComplex(relative: Bool) -> Bool {
            if relative {
                _ = parseCombinator()
                _ = skipSpaces()
            }
            guard parseCompound() else { return false }
            while true {
                let hadSpace = skipSpaces()
                let hadCombinator = parseCombinator()
                if hadCombinator { _ = skipSpaces() }
                guard let byte = current, byte != UInt8(ascii: ","), byte != UInt8(ascii: ")") else {
                    return !hadCombinator
                }
                guard hadSpace || hadCombinator else { return false }
                guard parseCompound() else { return false }
            }
        }

        mutating func parseCompound() -> Bool {
            var parts = 0
            if consume(UInt8(ascii: "*")) {
                parts += 1
            } else if let byte = current, isNameStart(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\\") {
                guard parseIdentifier() != nil else { return false }
                parts += 1
            }
            while let byte = current {
                switch byte {
                case UInt8(ascii: "#"):
                    // An id must be an identifier: `#1a` is not a valid selector.
                    position += 1
                    guard parseIdentifier() != nil else { return false }
                case UInt8(ascii: "."):
                    position += 1
                    guard parseIdentifier() != nil else { return false }
                case UInt8(ascii: "["):
                    position += 1
                    guard parseAttribute() else { return false }
                case UInt8(ascii: ":"):
                    position += 1
                    guard parsePseudo() else { return false }
                default:
                    return parts > 0
                }
                parts += 1
            }
            return parts > 0
        }

        mutating func parseAttribute() -> Bool {
            _ = skipSpaces()
            guard parseIdentifier() != nil else { return false }
            _ = skipSpaces()
            if consume(UInt8(ascii: "]")) { return true }
            if let byte = current, "~|^$*".utf8.contains(byte) {
                position += 1
            }
            guard consume(UInt8(ascii: "=")) else { return false }
            _ = skipSpaces()
            if let byte = current, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard parseString() else { return false }
            } else {
                guard parseIdentifier() != nil else { return false }
            }
            _ = skipSpaces()
            if let byte = current,
                byte == UInt8(ascii: "i") || byte == UInt8(ascii: "s") || byte == UInt8(ascii: "I") || byte == UInt8(ascii: "S")
            {
                position += 1
                _ = skipSpaces()
            }
            return consume(UInt8(ascii: "]"))
        }

        mutating func parsePseudo() -> Bool {
            let isElement = consume(UInt8(ascii: ":"))
            guard let name = parseIdentifier()?.lowercased() else { return false }
            if consume(UInt8(ascii: "(")) {
                if isElement { return false }
                let valid: Bool
                if CSSSelectorValidator.pseudoClassesWithSelectorList.contains(name) {
                    if name == "has" {
                        guard !insideHas else { return false }
                        insideHas = true
                    }
                    valid = parseSelectorList(relative: name == "has", allowEmpty: name == "is" || name == "where")
                    if name == "has" { insideHas = false }
                } else if CSSSelectorValidator.nthPseudoClasses.contains(name) {
                    valid = parseNth(allowOf: name == "nth-child" || name == "nth-last-child")
                } else if name == "lang" || name == "dir" {
                    _ = skipSpaces()
                    valid = parseIdentifier() != nil || parseString()
                    _ = skipSpaces()
                } else {
                    return false
                }
                return valid && consume(UInt8(ascii: ")"))
            }
            if isElement {
                return CSSSelectorValidator.pseudoElements.contains(name) || name.hasPrefix("-webkit-")
            }
            return CSSSelectorValidator.pseudoClassesWithoutArguments.contains(name)
                || CSSSelectorValidator.pseudoElements.contains(name) && ["before", "after", "first-line", "first-letter"].contains(name)
        }

        /// `An+B [of S]`, `odd`, `even`.
        mutating func parseNth(allowOf: Bool) -> Bool {
            _ = skipSpaces()
            let start = position
            while let byte = current, byte != UInt8(ascii: ")") {
                if allowOf && byte == UInt8(ascii: "o") && bytes[position...].starts(with: "of ".utf8) { break }
                position += 1
            }
            let expression = String(decoding: bytes[start..<position], as: UTF8.self)
                .lowercased().filter { $0 != " " && $0 != "\t" }
            guard Self.isNthExpression(expression) else { return false }
            if allowOf && bytes[position...].starts(with: "of ".utf8) {
                position += 3
                return parseSelectorList(relative: false, allowEmpty: false)
            }
            return true
        }

        static func isNthExpression(_ text: String) -> Bool {
            if text == "odd" || text == "even" { return true }
            if let value = Int(text) { return value == value }
            guard let n = text.firstIndex(of: "n") else { return false }
            let a = text[..<n]
            let b = text[text.index(after: n)...]
            let aValid = a.isEmpty || a == "-" || a == "+" || Int(a) != nil
            let bValid = b.isEmpty || ((b.first == "+" || b.first == "-") && Int(b.dropFirst()) != nil && b.count > 1)
            return aValid && bValid
        }

        mutating func parseString() -> Bool {
            guard let quote = current, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return false }
            position += 1
            while let byte = current {
                position += 1
                if byte == UInt8(ascii: "\\") {
                    guard current != nil else { return false }
                    position += 1
                } else if byte == quote {
                    return true
                } else if byte == 0x0A {
                    return false
                }
            }
            return false
        }

        func isNameStart(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_") || byte >= 0x80
        }

        func isNameByte(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
        }

        /// Consumes an escape (`\31 `, `\:`); `false` if malformed.
        mutating func parseEscape() -> Bool {
            guard consume(UInt8(ascii: "\\")), let byte = current, byte != 0x0A else { return false }
            if byte.isHexDigit {
                var digits = 0
                while let next = current, next.isHexDigit, digits < 6 {
                    position += 1
                    digits += 1
                }
                if let next = current, next == 0x20 { position += 1 }
            } else {
                position += 1
            }
            return true
        }

        /// An identifier: `-?` (name-start | escape) (name | escape)*, or `--name`.
        mutating func parseIdentifier() -> String? {
            let start = position
            if consume(UInt8(ascii: "-")) {
                if consume(UInt8(ascii: "-")) {
                    // custom identifier `--x`
                } else if let byte = current, isNameStart(byte) {
                    position += 1
                } else if current == UInt8(ascii: "\\") {
                    guard parseEscape() else { return nil }
                } else {
                    return nil
                }
            } else if let byte = current, isNameStart(byte) {
                position += 1
            } else if current == UInt8(ascii: "\\") {
                guard parseEscape() else { return nil }
            } else {
                return nil
            }
            while let byte = current {
                if isNameByte(byte) {
                    position += 1
                } else if byte == UInt8(ascii: "\\") {
                    guard parseEscape() else { return nil }
                } else {
                    break
                }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
