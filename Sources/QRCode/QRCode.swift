import Foundation

/// A QR code (ISO/IEC 18004, Model 2) of some bytes: the pairing invitation a phone scans from the
/// console's Sync page or from `pepper sync code` in a terminal.
///
/// The bytes are encoded in byte mode in the smallest version from 1 to 20 (21 to 97 modules a
/// side) that holds them at the chosen error correction level, split into Reed–Solomon blocks
/// and interleaved; of the eight masks, the one with the lowest penalty (the standard's four
/// rules) is applied, and the format and version information are written with their BCH codes.
///
/// ```swift
/// let code = try QRCode(encoding: invitation.text)
/// let svg = code.svg(moduleSize: 6)
/// print(code.terminalText())
/// ```
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol may be damaged and still read: about 7 % (``low``), 15 %
    /// (``medium``), 25 % (``quartile``) or 30 % (``high``) of its codewords. More correction
    /// holds fewer bytes in the same size.
    public enum Correction: Int, Sendable, Hashable, CaseIterable {
        case low, medium, quartile, high

        /// The two bits the format information gives the level (the standard's Table 12: L is
        /// 01, M 00, Q 11, H 10).
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    /// The versions this encoder makes: 1 (21 × 21 modules) to 20 (97 × 97). A pairing
    /// invitation of about 110 bytes needs version 7 at ``Correction/medium``.
    public static let versions = 1...20

    /// The version (1 to 20): the symbol is `17 + 4 × version` modules a side.
    public let version: Int
    /// The error correction level.
    public let correction: Correction
    /// The mask applied (0 to 7).
    public let mask: Int
    /// Modules a side.
    public let size: Int
    /// Dark modules, row by row.
    private let modules: [Bool]

    /// The QR code of `data`.
    ///
    /// - Throws: ``QRCodeError/tooLong(bytes:maximum:)`` when `data` does not fit version 20 at
    ///   `correction`.
    public init(encoding data: Data, correction: Correction = .medium) throws(QRCodeError) {
        try self.init(encoding: data, correction: correction, forcedMask: nil)
    }

    /// The QR code of `text` as UTF-8 bytes (what phones' scanners read in byte mode).
    ///
    /// - Throws: ``QRCodeError/tooLong(bytes:maximum:)`` when the text does not fit.
    public init(encoding text: String, correction: Correction = .medium) throws(QRCodeError) {
        try self.init(encoding: Data(text.utf8), correction: correction)
    }

    /// The QR code of `data` with mask `forcedMask` instead of the one of lowest penalty (tests
    /// read every mask back with a real decoder).
    init(encoding data: Data, correction: Correction, forcedMask: Int?) throws(QRCodeError) {
        let bytes = [UInt8](data)
        guard let version = Self.versions.first(where: { bytes.count <= Self.capacity(version: $0, correction: correction) }) else {
            throw .tooLong(bytes: bytes.count, maximum: Self.capacity(version: Self.versions.upperBound, correction: correction))
        }
        let layout = SymbolLayout(version: version)
        let blocks = BlockStructure(version: version, correction: correction, rawCodewords: layout.rawCodewords)
        let codewords = blocks.interleaved(Self.dataCodewords(bytes, version: version, capacity: blocks.dataCodewords))
        var matrix = layout.functionPatterns
        matrix.place(codewords, avoiding: layout.isFunction)

        let chosen: Int
        if let forcedMask {
            precondition((0..<8).contains(forcedMask), "a mask is 0 to 7")
            chosen = forcedMask
        } else {
            // Every mask tried on the whole symbol, format information included, as it will be
            // read; the first of the lowest penalty wins.
            let penalties = (0..<8).map { Self.finished(matrix, layout: layout, correction: correction, mask: $0).penalty }
            chosen = penalties.indices.min { penalties[$0] < penalties[$1] }!
        }
        self.version = version
        self.correction = correction
        self.mask = chosen
        size = layout.size
        modules = Self.finished(matrix, layout: layout, correction: correction, mask: chosen).modules
    }

    /// Whether the module at column `x`, row `y` (from the top left, 0 to ``size`` − 1) is dark.
    public subscript(x: Int, y: Int) -> Bool {
        precondition((0..<size).contains(x) && (0..<size).contains(y), "(\(x), \(y)) is outside a symbol of \(size) modules")
        return modules[y * size + x]
    }

    /// The most bytes version `version` holds at `correction` in byte mode.
    public static func capacity(version: Int, correction: Correction) -> Int {
        let layout = SymbolLayout(version: version)
        let dataBits = BlockStructure(version: version, correction: correction, rawCodewords: layout.rawCodewords).dataCodewords * 8
        return (dataBits - 4 - countBits(version: version)) / 8
    }

    // MARK: Encoding

    /// Bits of the character count in byte mode: 8 up to version 9, 16 from version 10.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// The data codewords: mode (byte, `0100`), count, the bytes, a terminator of up to four
    /// zeros, zeros to the byte, then the pad codewords `0xEC 0x11` alternately.
    static func dataCodewords(_ bytes: [UInt8], version: Int, capacity: Int) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacityBits = capacity * 8
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The symbol with `mask` applied to its data and the format information for it, and its
    /// penalty.
    private static func finished(
        _ matrix: ModuleMatrix, layout: SymbolLayout, correction: Correction, mask: Int
    ) -> (modules: [Bool], penalty: Int) {
        var masked = matrix
        masked.apply(mask: mask, avoiding: layout.isFunction)
        masked.drawFormat(FormatInformation.bits(correction: correction, mask: mask))
        return (masked.modules, Penalty.score(masked))
    }
}

/// Why a QR code cannot be made.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data does not fit the largest version this encoder makes at the chosen correction.
    case tooLong(bytes: Int, maximum: Int)

    public var description: String {
        switch self {
        case .tooLong(let bytes, let maximum):
            "\(bytes) bytes do not fit a QR code of version \(QRCode.versions.upperBound) (\(maximum) bytes at most at this error correction level)"
        }
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bits: [Bool] = []

    var count: Int { bits.count }

    /// Appends the low `count` bits of `value`, most significant first.
    mutating func append(_ value: Int, count: Int) {
        precondition(count >= 0 && (count == 0 || value >> count == 0), "\(value) does not fit \(count) bits")
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    /// The bits as bytes (their count is a multiple of 8).
    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }
}
