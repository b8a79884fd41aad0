import Foundation
import PepperTestSupport
import Testing

@testable import QRCode

/// Reads codes back with a real decoder: ZBar's `zbarimg` (Debian's zbar-tools, which
/// scripts/test.sh installs), from a PGM image of the symbol.
enum Decoder {
    static let zbarimg = URL(fileURLWithPath: "/usr/bin/zbarimg")

    static func ready() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: zbarimg.path),
            "zbarimg is needed: apt-get install zbar-tools (scripts/test.sh installs it)")
    }

    /// What zbarimg reads in a greyscale image `pixels` (rows of `true` for dark) scaled by
    /// `scale`; `nil` when it finds no code.
    static func decode(_ pixels: [[Bool]], scale: Int = 4) async throws -> String? {
        let height = pixels.count * scale
        let width = (pixels.first?.count ?? 0) * scale
        var image = Data("P5\n\(width) \(height)\n255\n".utf8)
        for row in pixels {
            let line = row.flatMap { dark in Array(repeating: dark ? UInt8(0) : 255, count: scale) }
            for _ in 0..<scale { image.append(contentsOf: line) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-qr-\(UUID().uuidString.prefix(8)).pgm")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await Subprocess.run(zbarimg, ["--raw", "-q", file.path])
        // 4: no code found.
        guard outcome.status == 0 else { return nil }
        // --raw prints the data and a newline.
        return outcome.stdout.hasSuffix("\n") ? String(outcome.stdout.dropLast()) : outcome.stdout
    }

    /// The symbol with a quiet zone of 4 light modules, as pixels.
    static func pixels(_ code: QRCode, quietZone: Int = 4) -> [[Bool]] {
        let side = code.size + 2 * quietZone
        return (0..<side).map { y in
            (0..<side).map { x in
                let (symbolX, symbolY) = (x - quietZone, y - quietZone)
                return (0..<code.size).contains(symbolX) && (0..<code.size).contains(symbolY) && code[symbolX, symbolY]
            }
        }
    }

    static func decode(_ code: QRCode) async throws -> String? { try await decode(pixels(code)) }
}

@Suite("QR codes read back by a real decoder")
struct QRCodeDecodingTests {
    static let invitation = "pepper-sync://pepper.lan:8443/?code=ABCD-EFGH-JKMN&pin=q9PkYh2xJrL0sX8wVb3nT5cF7mZ1dA4eG6iK2oQ8uWy"

    /// Text of `count` characters, varied so no version is reached by accident of repetition.
    static func text(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-._~ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return String((0..<count).map { alphabet[($0 * 7 + $0 / alphabet.count) % alphabet.count] })
    }

    @Test func thePairingInvitationReadsBack() async throws {
        try Decoder.ready()
        let code = try QRCode(encoding: Self.invitation)
        #expect(Self.invitation.utf8.count == 98)
        // 98 bytes at level M: version 6 (106 bytes at most), 41 modules.
        #expect(code.version == 6 && code.size == 41 && code.correction == .medium)
        #expect(try await Decoder.decode(code) == Self.invitation)
        // A long host name: version 8 (with the version information), still read.
        let long =
            "pepper-sync://pepper-home-server.living-room.example-family.home.arpa:8443/?code=ABCD-EFGH-JKMN&pin="
            + String(repeating: "A", count: 43)
        let larger = try QRCode(encoding: long)
        #expect(larger.version == 8)
        #expect(try await Decoder.decode(larger) == long)
    }

    @Test(arguments: [(1, 14), (2, 20), (7, 110), (10, 200), (20, 666)])
    func lengthsReachTheirVersionAndReadBack(version: Int, length: Int) async throws {
        try Decoder.ready()
        let text = Self.text(length)
        let code = try QRCode(encoding: text)
        #expect(code.version == version, "\(length) bytes")
        #expect(code.size == 17 + 4 * version)
        #expect(try await Decoder.decode(code) == text)
    }

    @Test(arguments: QRCode.Correction.allCases)
    func everyVersionAtEveryLevelReadsBackFull(correction: QRCode.Correction) async throws {
        try Decoder.ready()
        // Each version filled to its last byte: a wrong block table or placement fails here.
        for version in QRCode.versions {
            let text = Self.text(QRCode.capacity(version: version, correction: correction))
            let code = try QRCode(encoding: text, correction: correction)
            #expect(code.version == version, "\(correction) \(version)")
            #expect(try await Decoder.decode(code) == text, "\(correction) version \(version)")
        }
    }

    @Test(arguments: 0..<8)
    func everyMaskReadsBack(mask: Int) async throws {
        try Decoder.ready()
        for text in [Self.invitation, "pepper", Self.text(300)] {
            let code = try QRCode(encoding: Data(text.utf8), correction: .medium, forcedMask: mask)
            #expect(code.mask == mask)
            #expect(try await Decoder.decode(code) == text, "mask \(mask), version \(code.version)")
        }
    }

    @Test func utf8TextReadsBack() async throws {
        try Decoder.ready()
        for text in ["Grève générale — 罢工 ✊🏽", "Ünïcödé: ½ ∞ ≠ ☃", String(repeating: "пикет ", count: 30)] {
            let code = try QRCode(encoding: text, correction: .quartile)
            #expect(try await Decoder.decode(code) == text, "\(text)")
        }
    }

    @Test func theTerminalTextReadsBack() async throws {
        try Decoder.ready()
        let code = try QRCode(encoding: Self.invitation)
        for background in [QRCode.TerminalBackground.dark, .light] {
            let text = code.terminalText(quietZone: 4, background: background)
            // Each character is two modules high; a drawn half is ink of the terminal's text colour.
            var pixels: [[Bool]] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                let halves = line.map { character -> (Bool, Bool) in
                    switch character {
                    case "█": (true, true)
                    case "▀": (true, false)
                    case "▄": (false, true)
                    default: (false, false)
                    }
                }
                // On a dark background the ink is light: dark modules are where there is no ink.
                let dark = { (inked: Bool) in background == .dark ? !inked : inked }
                pixels.append(halves.map { dark($0.0) })
                pixels.append(halves.map { dark($0.1) })
            }
            #expect(pixels.count == code.size + 8 + 1, "45 + 8 rows and one more half line below")
            #expect(Array(pixels.prefix(code.size + 8)) == Decoder.pixels(code), "\(background)")
            #expect(try await Decoder.decode(pixels) == Self.invitation, "\(background)")
        }
    }

    @Test func theSVGDrawsExactlyTheDarkModules() async throws {
        let code = try QRCode(encoding: Self.invitation)
        let svg = code.svg(moduleSize: 6, quietZone: 4, title: "Pair a device: <scan> & go")
        // 41 modules and 4 of quiet zone each side, 6 pixels each.
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 49 49\" width=\"294\" height=\"294\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\"") && svg.contains("role=\"img\""))
        #expect(svg.contains("<title>Pair a device: &lt;scan&gt; &amp; go</title>"))
        #expect(svg.components(separatedBy: "<path").count == 2, "one path")
        // Every rectangle of the path, filled back in: exactly the dark modules.
        let data = try #require(svg.range(of: " d=\"").map { svg[$0.upperBound...].prefix { $0 != "\"" } })
        var filled = Array(repeating: Array(repeating: false, count: 49), count: 49)
        for command in data.split(separator: "z") {
            let numbers = command.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5 && numbers[3] == 1 && numbers[4] == -numbers[2], "\(command)")
            for x in numbers[0]..<numbers[0] + numbers[2] { filled[numbers[1]][x] = true }
        }
        #expect(filled == Decoder.pixels(code))
        // Runs are merged: a third fewer rectangles than dark modules at least (439 for 825 here).
        let dark = Decoder.pixels(code).joined().filter { $0 }.count
        #expect(data.split(separator: "z").count < dark * 2 / 3)
    }

    @Test func dataThatDoesNotFitThrows() throws {
        #expect(throws: QRCodeError.tooLong(bytes: 667, maximum: 666)) { try QRCode(encoding: Data(count: 667)) }
        #expect(throws: QRCodeError.tooLong(bytes: 383, maximum: 382)) { try QRCode(encoding: Data(count: 383), correction: .high) }
        let error = QRCodeError.tooLong(bytes: 667, maximum: 666)
        #expect(error.description == "667 bytes do not fit a QR code of version 20 (666 bytes at most at this error correction level)")
        // The largest that fits, fits.
        #expect(try QRCode(encoding: Data(count: 666)).version == 20)
        #expect(try QRCode(encoding: Data()).version == 1)
    }
}

@Suite("QR codes: the standard's numbers")
struct QRCodeStandardTests {
    @Test func formatBitsAreTheStandardsCodes() {
        // ISO/IEC 18004 Annex C's example: level M, mask 101.
        #expect(FormatInformation.bits(correction: .medium, mask: 5) == 0b100_0000_1100_1110)
        // Mask 0 of each level (data 00000 of M is the XOR pattern alone).
        #expect(FormatInformation.bits(correction: .medium, mask: 0) == 0b101_0100_0001_0010)
        #expect(FormatInformation.bits(correction: .low, mask: 0) == 0b111_0111_1100_0100)
        #expect(FormatInformation.bits(correction: .quartile, mask: 0) == 0b011_0101_0101_1111)
        #expect(FormatInformation.bits(correction: .high, mask: 0) == 0b001_0110_1000_1001)
        // Any two of the 32 codes differ in at least 7 bits, so a reader corrects 3 wrong ones.
        let all = QRCode.Correction.allCases.flatMap { correction in
            (0..<8).map { FormatInformation.bits(correction: correction, mask: $0) }
        }
        for (index, first) in all.enumerated() {
            for second in all[(index + 1)...] { #expect((first ^ second).nonzeroBitCount >= 7) }
        }
    }

    @Test func versionBitsAreTheStandardsCodes() {
        // Annex D.
        #expect(VersionInformation.bits(version: 7) == 0x07C94)
        #expect(VersionInformation.bits(version: 10) == 0x0A4D3)
        #expect(VersionInformation.bits(version: 20) == 0x149A6)
    }

    @Test func reedSolomonMatchesTheStandardsExample() {
        // "01234567" at version 1-M (Annex I): 16 data codewords and their 10 error correction codewords.
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(
            ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10))
                == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test func capacitiesAreTheStandardsByteModeCapacities() {
        // Table 7, byte mode.
        let expected: [(Int, QRCode.Correction, Int)] = [
            (1, .low, 17), (1, .medium, 14), (1, .quartile, 11), (1, .high, 7), (7, .medium, 122), (10, .medium, 213),
            (10, .high, 119), (20, .low, 858), (20, .medium, 666), (20, .quartile, 482), (20, .high, 382),
        ]
        for (version, correction, bytes) in expected {
            #expect(QRCode.capacity(version: version, correction: correction) == bytes, "\(version)-\(correction)")
        }
        // Raw codewords of every version (function modules counted out): 26 at version 1, 1,085 at 20.
        #expect(SymbolLayout(version: 1).rawCodewords == 26)
        #expect(SymbolLayout(version: 7).rawCodewords == 196)
        #expect(SymbolLayout(version: 20).rawCodewords == 1_085)
    }

    @Test func bothFormatCopiesAndTheVersionBlocksAreInTheSymbol() throws {
        // 130 bytes at level Q: version 9, with version information.
        let code = try QRCode(encoding: QRCodeDecodingTests.text(130), correction: .quartile)
        #expect(code.version == 9)
        let size = code.size
        var first = 0
        var second = 0
        // Read back in the order they were written (bit 0 first).
        let firstCopy: [(Int, Int)] = (0..<6).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        let secondCopy: [(Int, Int)] = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
        for (index, (x, y)) in firstCopy.enumerated() where code[x, y] { first |= 1 << index }
        for (index, (x, y)) in secondCopy.enumerated() where code[x, y] { second |= 1 << index }
        #expect(first == FormatInformation.bits(correction: .quartile, mask: code.mask))
        #expect(second == first)
        #expect(code[8, size - 8], "the dark module")
        var lower = 0
        var right = 0
        for index in 0..<18 {
            if code[index / 3, size - 11 + index % 3] { lower |= 1 << index }
            if code[size - 11 + index % 3, index / 3] { right |= 1 << index }
        }
        #expect(lower == VersionInformation.bits(version: 9) && right == lower)
    }

    @Test func theChosenMaskHasTheLowestPenalty() throws {
        for text in [QRCodeDecodingTests.invitation, "pepper", QRCodeDecodingTests.text(400)] {
            let chosen = try QRCode(encoding: text)
            let penalties = try (0..<8).map { mask in
                Penalty.score(try Self.matrix(QRCode(encoding: Data(text.utf8), correction: .medium, forcedMask: mask)))
            }
            #expect(penalties[chosen.mask] == penalties.min(), "\(penalties)")
            #expect(penalties.firstIndex(of: penalties.min()!) == chosen.mask, "the first of the lowest")
            #expect(Set(penalties).count > 1, "the masks differ")
        }
    }

    @Test func penaltyRulesCountAsTheStandardSays() {
        // Rule 1: a run of 5 is 3, each module more 1; shorter runs nothing.
        #expect(Penalty.runs([true, true, true, true, true, false, true, false, false, false, false, false, false]) == 3 + 4)
        #expect(Penalty.runs([true, false, true, true, true, true, false]) == 0)
        // Rule 3: 1:1:3:1:1 with four light modules before it (here the quiet zone too) and after it.
        let finder = [true, false, true, true, true, false, true]
        #expect(Penalty.finderLike(finder + [false, false, false, false, true]) == 80)
        #expect(Penalty.finderLike([true] + finder + [false, false, false, true]) == 0)
        #expect(Penalty.finderLike([true, false, false, false, false] + finder + [true]) == 40)
        // Rules 2 and 4 on a whole symbol: all light is 2 × 2 blocks everywhere and 50 % off balance.
        var light = ModuleMatrix(size: 21)
        let allLight = Penalty.score(light)
        // Rows and columns: 21 runs of 21 (19 each); blocks: 20 × 20 × 3; balance: 10 × 10.
        #expect(allLight == 2 * 21 * 19 + 400 * 3 + 100)
        light[10, 10] = true
        #expect(Penalty.score(light) < allLight)
    }

    /// The symbol's modules as a matrix, for the penalty.
    static func matrix(_ code: QRCode) -> ModuleMatrix {
        var matrix = ModuleMatrix(size: code.size)
        for y in 0..<code.size { for x in 0..<code.size { matrix[x, y] = code[x, y] } }
        return matrix
    }
}
