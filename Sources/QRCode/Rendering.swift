extension QRCode {
    /// The code as an SVG image: a light background and one `<path>` of the dark modules (a
    /// rectangle per run of dark modules in a row), in module units with `crispEdges`, so it
    /// stays sharp at any zoom. `title` names it for screen readers (`role="img"`).
    ///
    /// - Parameters:
    ///   - moduleSize: The width and height of a module, in CSS pixels (the image's size).
    ///   - quietZone: Light modules around the symbol; readers need 4 (the standard's minimum).
    ///   - title: What the image is, for people who cannot see it.
    public func svg(moduleSize: Int = 4, quietZone: Int = 4, title: String = "QR code") -> String {
        precondition(moduleSize > 0 && quietZone >= 0, "a module has a size, and the quiet zone is not negative")
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let pixels = side * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" height="\(pixels)" \
            role="img" shape-rendering="crispEdges"><title>\(Self.escaped(title))</title>\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    /// The terminal's background, which decides what the characters draw.
    public enum TerminalBackground: Sendable, Hashable {
        /// Light text on a dark background (most terminals): the characters draw the light
        /// modules and the quiet zone, the background shows as the dark modules.
        case dark
        /// Dark text on a light background: the characters draw the dark modules.
        case light
    }

    /// The code as text for a terminal, two rows of modules per line with the half blocks `▀`,
    /// `▄` and `█`, so modules stay about square in a monospaced font (`pepper sync code`).
    ///
    /// - Parameters:
    ///   - quietZone: Light modules around the symbol (2 is usually enough on a screen).
    ///   - background: The terminal's background (see ``TerminalBackground``).
    public func terminalText(quietZone: Int = 2, background: TerminalBackground = .dark) -> String {
        precondition(quietZone >= 0, "the quiet zone is not negative")
        let side = size + 2 * quietZone
        // Whether the character cell draws module (x, y) of the symbol with its quiet zone.
        func inked(_ x: Int, _ y: Int) -> Bool {
            let (symbolX, symbolY) = (x - quietZone, y - quietZone)
            let dark = (0..<size).contains(symbolX) && (0..<size).contains(symbolY) && self[symbolX, symbolY]
            return background == .light ? dark : !dark
        }
        var text = ""
        for top in stride(from: 0, to: side, by: 2) {
            for x in 0..<side {
                // Below the last row (an odd number of rows) is more quiet zone.
                let (upper, lower) = (inked(x, top), top + 1 < side ? inked(x, top + 1) : background == .dark)
                switch (upper, lower) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            text += "\n"
        }
        return text
    }

    /// `text` safe inside an XML element.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
