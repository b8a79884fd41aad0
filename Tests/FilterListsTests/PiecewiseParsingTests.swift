import Foundation
import Testing

@testable import FilterLists

/// Lists parsed in pieces on every core (`FilterListParser.parseAll`) must be exactly the lists
/// a parse of each whole list gives.
@Suite("Parsing lists in pieces")
struct PiecewiseParsingTests {
    /// Every field a parse gives, compared one by one so that a failure names the field.
    static func expectSame(_ pieces: ParsedFilterList, _ whole: ParsedFilterList, _ comment: Comment) {
        #expect(pieces.name == whole.name, comment)
        #expect(pieces.format == whole.format, comment)
        #expect(pieces.networkRules == whole.networkRules, comment)
        #expect(pieces.cosmeticRules == whole.cosmeticRules, comment)
        #expect(pieces.lineCount == whole.lineCount, comment)
        #expect(pieces.commentCount == whole.commentCount, comment)
        #expect(pieces.skipped == whole.skipped, comment)
        #expect(pieces.skippedExamples == whole.skippedExamples, comment)
        #expect(pieces.metadata == whole.metadata, comment)
    }

    /// A list several pieces long whose lines of every kind recur in every piece: header fields
    /// (early, and a late `! Title:` that must not count), comments, blank lines, rules, and
    /// skipped lines of several reasons (more than the examples kept per reason).
    static func syntheticList(lineEnding: String, trailingNewline: Bool) -> String {
        var lines = ["[Adblock Plus 2.0]", "! Title: Synthetic", "! Version: 7", "! Expires: 2 days", ""]
        for block in 0..<6_000 {
            lines += [
                "||ads\(block).example^",
                "||tracker.example/pixel\(block).gif$image,third-party",
                "example\(block).com##.banner-\(block)",
                "@@||cdn\(block).example^$script",
                "example.com##.ad:has-text(sponsor \(block))",  // procedural: skipped
                "! comment \(block)",
                "   ",
                "||bad\(block).example^$unknown-option-\(block % 3)",  // unsupported option: skipped
            ]
            if block == 5_000 { lines.append("! Title: Not a header this far down") }
        }
        let text = lines.joined(separator: lineEnding)
        return trailingNewline ? text + lineEnding : text
    }

    @Test(arguments: [("\n", true), ("\n", false), ("\r\n", true), ("\r\n", false)])
    func aListInPiecesIsTheWholeList(lineEnding: String, trailingNewline: Bool) throws {
        let data = Data(Self.syntheticList(lineEnding: lineEnding, trailingNewline: trailingNewline).utf8)
        // The case is only meaningful if the list is cut, in several places.
        let pieceCount = data.withUnsafeBytes { raw in
            FilterListParser.lineRanges(of: raw.bindMemory(to: UInt8.self), in: 0..<data.count).count
        }
        #expect(pieceCount >= 4)
        let whole = try FilterListParser().parse(data, name: "synthetic")
        #expect(whole.skipped.count >= 2)
        #expect(whole.skipped.values.allSatisfy { $0 > ParsedFilterList.examplesPerReason })

        let outcome = try #require(FilterListParser.parseAll([.init(data: data, name: "synthetic")]).first)
        Self.expectSame(try outcome.result.get(), whole, "\(pieceCount) pieces, line ending \(lineEnding.debugDescription)")
    }

    @Test func piecesEndAfterALineBreakAndNumberTheirFirstLine() throws {
        let data = Data(Self.syntheticList(lineEnding: "\n", trailingNewline: false).utf8)
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let pieces = FilterListParser.lineRanges(of: bytes, in: 0..<bytes.count)
            #expect(pieces.first?.0.lowerBound == 0)
            #expect(pieces.last?.0.upperBound == bytes.count)
            var expectedLine = 1
            for (index, (range, firstLine)) in pieces.enumerated() {
                #expect(firstLine == expectedLine)
                if index > 0 { #expect(bytes[range.lowerBound - 1] == 0x0A) }
                expectedLine += bytes[range].count(where: { $0 == 0x0A })
            }
        }
    }

    @Test func failuresAndJSONListsKeepTheirPlace() throws {
        let binary = Data([0x00, 0x01, 0x02])
        let domains = Data("ads.example\ntracker.example\n".utf8)
        let empty = Data()
        let disconnect = Data(#"{"categories": {"Advertising": [{"Ads Inc": {"https://ads.example/": ["ads.example"]}}]}}"#.utf8)
        let outcomes = FilterListParser.parseAll([
            .init(data: binary, name: "binary"), .init(data: domains, name: "domains", format: .domains),
            .init(data: empty, name: "empty"), .init(data: disconnect, name: "disconnect"),
        ])
        #expect(outcomes.count == 4)
        #expect(throws: FilterListError.binaryContent(name: "binary")) { try outcomes[0].result.get() }
        Self.expectSame(try outcomes[1].result.get(), try FilterListParser().parse(domains, name: "domains", format: .domains), "domains")
        Self.expectSame(try outcomes[2].result.get(), try FilterListParser().parse(empty, name: "empty"), "empty")
        let converted = try outcomes[3].result.get()
        #expect(converted.format == .disconnect)
        Self.expectSame(converted, try FilterListParser().parse(disconnect, name: "disconnect"), "disconnect")
    }

    @Test
    func realListsInPiecesAreTheWholeLists() throws {
        let names = ["easylist.txt", "easyprivacy.txt"]
        let datas = try names.map { try Data(contentsOf: RealListsTests.filters.appendingPathComponent($0)) }
        let outcomes = FilterListParser.parseAll(zip(datas, names).map { .init(data: $0, name: $1) })
        for (index, name) in names.enumerated() {
            Self.expectSame(try outcomes[index].result.get(), try FilterListParser().parse(datas[index], name: name), "\(name)")
            #expect(outcomes[index].seconds > 0)
        }
    }
}
