import Foundation
import PepperActions
import Screens
import UTCTime

/// Output helpers: results on stdout, progress and warnings on stderr.
enum Terminal {
    private static let lock = NSLock()

    /// Writes a progress or warning line to stderr.
    static func status(_ message: String) {
        lock.withLock {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }

    /// Writes a line to stdout at once (not buffered), for programs waiting for it.
    static func line(_ message: String) {
        lock.withLock {
            FileHandle.standardOutput.write(Data((message + "\n").utf8))
        }
    }

    /// Writes a warning line to stderr.
    static func warning(_ message: String) {
        status("warning: " + message)
    }

    /// Formats an integer with thousands separators (`112,360`).
    static func count(_ value: Int) -> String { Wording.count(value) }

    /// Formats a byte count (`1.9 MB`).
    static func bytes(_ value: Int) -> String {
        if value < 1_000 { return "\(value) B" }
        if value < 1_000_000 { return String(format: "%.1f kB", Double(value) / 1_000) }
        return String(format: "%.1f MB", Double(value) / 1_000_000)
    }

    /// Formats seconds (`0.21 s`).
    static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }

    /// Formats a date as commands print it (`2026-11-24T10:30:00Z`).
    static func date(_ date: Date) -> String {
        UTCDateTime.internetText(date)
    }

    /// The line after a rebuild: how many rules are in force now, and where.
    static func compiled(_ outcome: RebuildOutcome?) {
        guard let outcome else { return }
        status("Compiled \(count(outcome.totalRules)) rules into \(outcome.outputURL.path)" + (outcome.changed ? "" : " (unchanged)"))
    }

    /// Pads `text` on the right to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Pads `text` on the left to `width` characters.
    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// Writes a JSON value to stdout.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .internetDateTime
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
