import Foundation
import Testing

@testable import ListSync

@Suite("Differential patches")
struct DiffPatchTests {
    let original = "! Diff-Path: p/1\nline one\nline two\nline three\n"

    @Test func rcsCommandsUseOriginalLineNumbers() throws {
        // Delete line 2, add two lines after line 3, add one after line 4.
        let patch = try DiffPatch("d2 1\na3 2\nnew A\nnew B\na4 1\nlast")
        #expect(try patch.apply(to: original) == "! Diff-Path: p/1\nline two\nnew A\nnew B\nline three\nlast\n")
    }

    @Test func emptyPatchMeansNoNewVersion() throws {
        #expect(try DiffPatch("").isEmpty)
        #expect(try DiffPatch("\n").isEmpty)
    }

    @Test func namedBlocksAndChecksums() throws {
        let result = "! Diff-Path: p/1\nline one\nline three\n"
        let sha1 = "2c3b1b3d9a5b1cb1a5fb50f3a2f6aa64cbb1c5d3"
        let text = "diff name:other lines:1\nd1 1\ndiff name:mine checksum:\(sha1) lines:1\nd3 1\n"
        let patch = try DiffPatch(text)
        #expect(patch.blocks.map(\.name) == ["other", "mine"])
        // The checksum above is deliberately wrong: the patch must be refused.
        #expect(throws: DiffPatch.Error.self) { try patch.apply(to: original, name: "mine") }
        #expect(throws: DiffPatch.Error.missingBlock("absent")) { try patch.apply(to: original, name: "absent") }
        let unchecked = try DiffPatch("diff name:mine lines:1\nd3 1\n")
        #expect(try unchecked.apply(to: original, name: "mine") == result)
    }

    @Test(arguments: ["d9 1", "a9 1\nx", "x3 1", "d2", "a1 5\nonly one"])
    func malformedOrOutOfRangePatchesAreRefused(text: String) throws {
        #expect(throws: DiffPatch.Error.self) { try DiffPatch(text).apply(to: original) }
    }
}
