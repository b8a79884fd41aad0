/// The modules of a symbol, row by row (`true`: dark).
struct ModuleMatrix: Sendable, Hashable {
    /// Modules a side.
    let size: Int
    /// Row by row: module (x, y) is at `y * size + x`.
    private(set) var modules: [Bool]

    /// An all-light symbol.
    init(size: Int) {
        self.size = size
        modules = Array(repeating: false, count: size * size)
    }

    subscript(x: Int, y: Int) -> Bool {
        get { modules[y * size + x] }
        set { modules[y * size + x] = newValue }
    }

    /// Places the codewords' bits in the modules that are not `avoiding`: two columns at a
    /// time from the right, up then down, skipping the vertical timing pattern's column. Modules
    /// left over (the remainder bits) stay light.
    mutating func place(_ codewords: [UInt8], avoiding function: [Bool]) {
        let total = codewords.count * 8
        var index = 0
        var right = size - 1
        while right >= 1 {
            // Column 6 is the timing pattern: the pair to its left starts at column 5.
            if right == 6 { right = 5 }
            // The pairs alternate up and down, the first (at the right edge) going up: with a
            // side of 17 + 4 × version, that is the pairs whose right column plus one has bit 1 clear.
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !function[y * size + x] && index < total {
                    self[x, y] = (codewords[index / 8] >> (7 - index % 8)) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Inverts the data modules (those not `avoiding`) where mask `mask`'s condition holds.
    mutating func apply(mask: Int, avoiding function: [Bool]) {
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] && Self.masks(mask, x: x, y: y) {
                self[x, y].toggle()
            }
        }
    }

    /// The eight mask conditions of the standard (Table 10), for column `x` and row `y`.
    static func masks(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (x * y) % 2 + (x * y) % 3 == 0
        case 6: ((x * y) % 2 + (x * y) % 3) % 2 == 0
        case 7: ((x + y) % 2 + (x * y) % 3) % 2 == 0
        default: preconditionFailure("a mask is 0 to 7")
        }
    }

    /// Writes the 15 format bits twice: around the top-left finder, and split between the
    /// bottom-left and top-right ones. Bit 14 is the most significant.
    mutating func drawFormat(_ bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        // Beside the top-left finder: bits 0–7 down column 8 (skipping the timing row), bits
        // 8–14 leftwards along row 8 (skipping the timing column).
        for index in 0..<6 { self[8, index] = bit(index) }
        self[8, 7] = bit(6)
        self[8, 8] = bit(7)
        self[7, 8] = bit(8)
        for index in 9..<15 { self[14 - index, 8] = bit(index) }
        // The second copy: bits 0–7 along row 8 from the right edge, bits 8–14 down column 8 to
        // the bottom edge.
        for index in 0..<8 { self[size - 1 - index, 8] = bit(index) }
        for index in 8..<15 { self[8, size - 15 + index] = bit(index) }
    }
}

/// What every symbol of a version has besides its data: the finder, separator, timing and
/// alignment patterns, the dark module, the version information (version 7 and up) and the
/// reserved format areas.
struct SymbolLayout: Sendable {
    let version: Int
    /// Modules a side: 17 + 4 × version.
    let size: Int
    /// The function patterns drawn (the format areas still light).
    let functionPatterns: ModuleMatrix
    /// Which modules are function patterns or reserved for the format, row by row.
    let isFunction: [Bool]

    /// Codewords the data and error correction modules hold (the modules left over after the
    /// function patterns, in whole bytes).
    var rawCodewords: Int { isFunction.lazy.filter { !$0 }.count / 8 }

    /// The centres of the alignment patterns on each axis (the standard's Annex E), versions 1
    /// to 20.
    static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90],
    ]

    init(version: Int) {
        precondition(QRCode.versions.contains(version), "versions 1 to 20")
        self.version = version
        size = 17 + 4 * version
        var matrix = ModuleMatrix(size: size)
        var function = Array(repeating: false, count: size * size)
        let size = self.size
        func set(_ x: Int, _ y: Int, _ dark: Bool) {
            matrix[x, y] = dark
            function[y * size + x] = true
        }
        // Timing patterns first: the finders and alignment patterns overwrite their ends.
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        // Finders with their separators: rings at Chebyshev distance 0–1 and 3 dark, 2 and 4 light.
        for (centreX, centreY) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let (x, y) = (centreX + dx, centreY + dy)
                    guard (0..<size).contains(x) && (0..<size).contains(y) else { continue }
                    let distance = max(abs(dx), abs(dy))
                    set(x, y, distance != 2 && distance != 4)
                }
            }
        }
        // Alignment patterns at every pair of centres but the three the finders take.
        let centres = Self.alignmentCentres[version - 1]
        for (row, centreY) in centres.enumerated() {
            for (column, centreX) in centres.enumerated() {
                let last = centres.count - 1
                if (row == 0 && column == 0) || (row == 0 && column == last) || (row == last && column == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(centreX + dx, centreY + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // The format areas, reserved (drawn once the mask is chosen), and the dark module.
        for index in 0..<9 {
            set(8, index, false)
            set(index, 8, false)
        }
        for index in 0..<8 {
            set(size - 1 - index, 8, false)
            set(8, size - 1 - index, false)
        }
        set(8, size - 8, true)
        // Version information: a 6 × 3 block above the bottom-left finder and its transpose left
        // of the top-right one, bit 0 first.
        if version >= 7 {
            let bits = VersionInformation.bits(version: version)
            for index in 0..<18 {
                let dark = (bits >> index) & 1 == 1
                let (long, short) = (size - 11 + index % 3, index / 3)
                set(long, short, dark)
                set(short, long, dark)
            }
        }
        functionPatterns = matrix
        isFunction = function
    }
}

/// The 15 bits that say a symbol's error correction level and mask: 5 data bits and a BCH(15,5)
/// code, XOR `101010000010010` so that they are never all light.
enum FormatInformation {
    /// The format bits for `correction` and `mask`, bit 14 the most significant.
    static func bits(correction: QRCode.Correction, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        return (data << 10 | BCH.remainder(of: data << 10, generator: 0b101_0011_0111, degree: 10)) ^ 0b101_0100_0001_0010
    }
}

/// The 18 bits that say the version (7 and up): 6 data bits and a BCH(18,6) code.
enum VersionInformation {
    static func bits(version: Int) -> Int {
        version << 12 | BCH.remainder(of: version << 12, generator: 0b1_1111_0010_0101, degree: 12)
    }
}

/// Remainders of polynomials over GF(2), bits as coefficients.
enum BCH {
    /// The remainder of `value` divided by `generator` (of degree `degree`).
    static func remainder(of value: Int, generator: Int, degree: Int) -> Int {
        var value = value
        while value.bitWidth - value.leadingZeroBitCount > degree {
            value ^= generator << (value.bitWidth - value.leadingZeroBitCount - 1 - degree)
        }
        return value
    }
}
