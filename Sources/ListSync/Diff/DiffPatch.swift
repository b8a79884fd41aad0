import Crypto
import Foundation

/// Differential list updates, as EasyList, uBlock Origin and AdGuard publish them: a list's
/// `! Diff-Path:` header names a patch (relative to the list's URL, optionally `#name` for a
/// patch covering several lists) in RCS format (`diff -n`), optionally preceded by a
/// `diff name:NAME checksum:SHA1 lines:N` directive; the patch turns the current list into the next.
public struct DiffPatch: Sendable, Hashable {
    /// One list's part of a patch.
    public struct Block: Sendable, Hashable {
        /// The list name of the `diff` directive, if any.
        public var name: String?
        /// SHA-1 (hex) of the list after the patch, if given.
        public var checksum: String?
        /// The RCS commands and their added lines.
        public var lines: [Substring]
    }

    /// Why a patch cannot be used (the caller then downloads the whole list).
    public enum Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        /// The text is not RCS diff.
        case malformed(String)
        /// A command points outside the list or goes backwards.
        case outOfRange(String)
        /// The patched list does not have the announced checksum.
        case checksumMismatch(expected: String, actual: String)
        /// A patch for several lists has no part for this one.
        case missingBlock(String)

        public var description: String {
            switch self {
            case .malformed(let line): return "malformed patch line '\(line)'"
            case .outOfRange(let command): return "patch command '\(command)' does not fit the list"
            case .checksumMismatch(let expected, let actual): return "patched list has checksum \(actual), expected \(expected)"
            case .missingBlock(let name): return "the patch has no part for '\(name)'"
            }
        }
    }

    /// The parts of the patch.
    public var blocks: [Block]

    /// Parses a patch file.
    public init(_ text: String) throws(Error) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("diff ") {
                var block = Block(name: nil, checksum: nil, lines: [])
                var count: Int?
                for field in line.dropFirst(5).split(separator: " ") {
                    let parts = field.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    switch parts[0] {
                    case "name": block.name = String(parts[1])
                    case "checksum": block.checksum = String(parts[1]).lowercased()
                    case "lines": count = Int(parts[1])
                    default: break
                    }
                }
                guard let count, index + 1 + count <= lines.count else { throw .malformed(String(line)) }
                block.lines = Array(lines[(index + 1)..<(index + 1 + count)])
                blocks.append(block)
                index += 1 + count
            } else {
                // A plain RCS patch for one list: everything up to the end.
                var rest = Array(lines[index...])
                while rest.last?.isEmpty == true { rest.removeLast() }
                if !rest.isEmpty { blocks.append(Block(name: nil, checksum: nil, lines: rest)) }
                break
            }
        }
        self.blocks = blocks
    }

    /// Whether the patch changes nothing (an empty file: the list has no newer version yet).
    public var isEmpty: Bool { blocks.allSatisfy { $0.lines.isEmpty } }

    /// Applies the part named `name` (or the only part) to `original` and verifies its checksum.
    public func apply(to original: String, name: String? = nil) throws(Error) -> String {
        let block: Block
        if let name {
            guard let named = blocks.first(where: { $0.name == name }) ?? (blocks.count == 1 && blocks[0].name == nil ? blocks[0] : nil)
            else {
                throw .missingBlock(name)
            }
            block = named
        } else {
            guard let only = blocks.first else { return original }
            block = only
        }
        let result = try Self.applyRCS(block.lines, to: original)
        if let expected = block.checksum {
            let actual = Insecure.SHA1.hash(data: Data(result.utf8)).map { String(format: "%02x", $0) }.joined()
            guard actual == expected || actual.hasPrefix(expected) && expected.count >= 8 else {
                throw .checksumMismatch(expected: expected, actual: actual)
            }
        }
        return result
    }

    /// Applies RCS commands: `aL N` adds the next N lines after original line L; `dL N` deletes N
    /// lines starting at original line L. Line numbers refer to the original list.
    static func applyRCS(_ commands: [Substring], to original: String) throws(Error) -> String {
        var originalLines = original.split(separator: "\n", omittingEmptySubsequences: false)
        let endsWithNewline = originalLines.last?.isEmpty == true
        if endsWithNewline { originalLines.removeLast() }
        var output: [Substring] = []
        output.reserveCapacity(originalLines.count + commands.count)
        var consumed = 0  // original lines copied or deleted so far
        var index = 0
        while index < commands.count {
            let command = commands[index]
            index += 1
            guard let kind = command.first, kind == "a" || kind == "d" else {
                if command.isEmpty { continue }
                throw .malformed(String(command))
            }
            let numbers = command.dropFirst().split(separator: " ")
            guard numbers.count == 2, let line = Int(numbers[0]), let count = Int(numbers[1]), line >= 0, count >= 0 else {
                throw .malformed(String(command))
            }
            if kind == "d" {
                guard line >= 1, line - 1 >= consumed, line - 1 + count <= originalLines.count else { throw .outOfRange(String(command)) }
                output += originalLines[consumed..<(line - 1)]
                consumed = line - 1 + count
            } else {
                guard line >= consumed, line <= originalLines.count, index + count <= commands.count else {
                    throw .outOfRange(String(command))
                }
                output += originalLines[consumed..<line]
                consumed = line
                output += commands[index..<(index + count)]
                index += count
            }
        }
        output += originalLines[consumed...]
        return output.joined(separator: "\n") + (endsWithNewline ? "\n" : "")
    }
}
