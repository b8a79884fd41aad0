/// How a version's codewords are split into blocks at a correction level, and how the blocks'
/// data and error correction codewords are interleaved into the order they are placed in.
struct BlockStructure: Sendable {
    /// Blocks (the standard's Table 9), by correction level then version 1 to 20.
    static let blockCounts: [QRCode.Correction: [Int]] = [
        .low: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8],
        .medium: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16],
        .quartile: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20],
        .high: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25],
    ]
    /// Error correction codewords per block (Table 9), by correction level then version.
    static let correctionCodewords: [QRCode.Correction: [Int]] = [
        .low: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28],
        .medium: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26],
        .quartile: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30],
        .high: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28],
    ]

    /// How many blocks.
    let blocks: Int
    /// Error correction codewords in each block.
    let correctionPerBlock: Int
    /// Data codewords of the shorter blocks (the last ones hold one more).
    let shortBlockData: Int
    /// How many blocks are short.
    let shortBlocks: Int
    /// Data codewords in all.
    var dataCodewords: Int { blocks * shortBlockData + (blocks - shortBlocks) }

    init(version: Int, correction: QRCode.Correction, rawCodewords: Int) {
        blocks = Self.blockCounts[correction]![version - 1]
        correctionPerBlock = Self.correctionCodewords[correction]![version - 1]
        // The raw codewords split as evenly as they go: the first blocks are one shorter.
        shortBlocks = blocks - rawCodewords % blocks
        shortBlockData = rawCodewords / blocks - correctionPerBlock
    }

    /// The data codewords split into blocks, each block's error correction codewords computed,
    /// then everything interleaved: the first data codeword of each block, the second of each,
    /// … (short blocks are skipped once they end), then the error correction codewords the same
    /// way.
    func interleaved(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count == dataCodewords, "\(data.count) data codewords for a symbol of \(dataCodewords)")
        let generator = ReedSolomon.generator(degree: correctionPerBlock)
        var blockData: [[UInt8]] = []
        var start = 0
        for index in 0..<blocks {
            let length = shortBlockData + (index < shortBlocks ? 0 : 1)
            blockData.append(Array(data[start..<start + length]))
            start += length
        }
        let blockCorrection = blockData.map { ReedSolomon.remainder($0, generator: generator) }
        var result: [UInt8] = []
        result.reserveCapacity(data.count + blocks * correctionPerBlock)
        for position in 0...shortBlockData {
            for block in blockData where position < block.count { result.append(block[position]) }
        }
        for position in 0..<correctionPerBlock {
            for block in blockCorrection { result.append(block[position]) }
        }
        return result
    }
}

/// Reed–Solomon error correction over GF(256) with the QR code's field polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (`0x11D`) and generator roots α⁰ … αⁿ⁻¹.
enum ReedSolomon {
    /// α^i for i in 0..<255, then again (so products need no modulo).
    private static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for index in 0..<255 {
            table[index] = UInt8(value)
            table[index + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()
    /// log_α of 1…255 (index 0 unused).
    private static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for index in 0..<255 { table[Int(exponents[index])] = index }
        return table
    }()

    /// The product of two field elements.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0 && b != 0 else { return 0 }
        return exponents[logarithms[Int(a)] + logarithms[Int(b)]]
    }

    /// The coefficients of (x − α⁰)(x − α¹)…(x − αⁿ⁻¹) below the leading 1, highest first.
    static func generator(degree: Int) -> [UInt8] {
        // Starts as the polynomial 1; each step multiplies by (x + αⁱ) (minus is plus here).
        var coefficients: [UInt8] = [1]
        for root in 0..<degree {
            var next = [UInt8](repeating: 0, count: coefficients.count + 1)
            for (index, coefficient) in coefficients.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= multiply(coefficient, exponents[root])
            }
            coefficients = next
        }
        return Array(coefficients.dropFirst())
    }

    /// The error correction codewords of `data`: the remainder of data(x) · xⁿ divided by the
    /// generator.
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in generator.indices { remainder[index] ^= multiply(generator[index], factor) }
        }
        return remainder
    }
}
