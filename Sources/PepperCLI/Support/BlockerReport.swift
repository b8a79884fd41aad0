import ContentBlocker
import Foundation
import ListSync
import PepperActions

/// How compiled output is reported to the user, shared by every command that (re)builds it.
enum BlockerReport {
    /// One stderr line per parsed list.
    static func printParsed(_ lists: [ParsedListSummary]) {
        for list in lists {
            if let error = list.error {
                Terminal.warning(error)
            } else if let reason = list.uselessBecause {
                Terminal.warning("\(list.name): no usable rules (\(reason)); is the format right?")
            } else if list.reused {
                Terminal.status(
                    "Unchanged \(list.name) (\(Terminal.bytes(list.bytes)), \(list.format ?? "?")): "
                        + "\(Terminal.count(list.rules)) rules, \(Terminal.count(list.skipped)) skipped; its compiled rules reused")
            } else {
                Terminal.status(
                    "Parsed \(list.name) (\(Terminal.bytes(list.bytes)), \(list.format ?? "?")): "
                        + "\(Terminal.count(list.rules)) rules, \(Terminal.count(list.skipped)) skipped in \(Terminal.seconds(list.seconds))"
                )
            }
        }
    }

    /// The per-source table and the output line, on stdout.
    static func printSummary(_ manifest: Manifest, outputURL: URL, changed: Bool, elapsed: Double?) {
        let totalRules = manifest.files.reduce(0) { $0 + $1.rules }
        let nameWidth = max(6, manifest.sources.map(\.name.count).max() ?? 0)
        print(Terminal.pad("source", nameWidth) + "   rules in  rules out   skipped")
        for source in manifest.sources {
            let skipped = source.skipped.values.reduce(0, +)
            print(
                Terminal.pad(source.name, nameWidth) + Terminal.padLeft(Terminal.count(source.rulesIn), 11)
                    + Terminal.padLeft(Terminal.count(source.rulesOut), 11) + Terminal.padLeft(Terminal.count(skipped), 10))
            let reasons = source.skipped.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
            for (reason, count) in reasons {
                print(Terminal.pad("", nameWidth) + "     " + Terminal.padLeft(Terminal.count(count), 7) + "  " + reason)
            }
        }
        let files = manifest.files.map { "\($0.path) (\(Terminal.count($0.rules)) rules)" }.joined(separator: ", ")
        print("\(Terminal.count(totalRules)) WebKit rules in \(manifest.files.count) list(s): \(files)")
        let time = elapsed.map { ", \(Terminal.seconds($0))" } ?? ""
        print("Output: \(outputURL.path) \(changed ? "written" : "unchanged"), identifier \(manifest.identifier.prefix(16))…\(time)")
    }
}

/// `--json` output of commands that build the blocker.
struct CompileSummary: Encodable {
    var manifest: Manifest
    var output: String
    var changed: Bool
    var seconds: Double
}
