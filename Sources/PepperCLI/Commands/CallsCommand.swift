import ArgumentParser
import CallFilter
import Foundation
import PepperActions
import Storage

/// `pepper calls`: phone numbers, the block and identification lists, CallKit entries.
struct CallsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calls",
        abstract: "Block and identify phone numbers; export CallKit call-directory entries.",
        discussion: """
            Numbers are stored in E.164 (+12539501212) and exported as CallKit wants them: the digits \
            as a 64-bit integer, strictly ascending, without duplicates. A number may end in # wildcards \
            (+1 253 950 12##) to stand for a range. A fresh state blocks +1 253-950-1212 and identifies \
            +1 425-950-1212 as "Suspicious".
            """,
        subcommands: [
            Normalize.self, Block.self, Unblock.self, Identify.self, Unidentify.self, List.self, Export.self, Import.self, Check.self,
            Stats.self, Region.self, Contacts.self, BlockAllExceptContacts.self,
        ]
    )

    struct Normalize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "normalize",
            abstract: "Print numbers in E.164, or INVALID and the reason.",
            discussion: """
                One line per input: the E.164 form (+12539501212), or INVALID, a tab and the reason. \
                Without NUMBER arguments, numbers are read from stdin, one per line. The exit status is 0 \
                even when some numbers are invalid.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Argument(help: ArgumentHelp("Numbers as people type them: 253-950-1212, +44 20 7946 0000, 011 44 …", valueName: "number"))
        var numbers: [String] = []

        func run() async throws {
            let parser = try regionOptions.parser(in: try homeOptions.openState())
            var output = OutputBuffer()
            func normalize(_ text: String) {
                do {
                    output.write(try parser.parse(text).e164)
                } catch {
                    output.write("INVALID\t\(error)")
                }
                output.byte(10)
            }
            if numbers.isEmpty {
                while let line = readLine(strippingNewline: true) { normalize(line) }
            } else {
                numbers.forEach(normalize)
            }
            output.flush()
        }
    }

    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block",
            abstract: "Block calls from a number or a range (+1 253 950 12##).")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(help: "Most numbers one # range may stand for.") var maxRange = NumberRange.defaultCap
        @Argument(help: ArgumentHelp("A number, or a range ending in # wildcards.", valueName: "number")) var number: String

        func run() async throws {
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let change = try PhoneCommands.run { () throws(ActionError) in try state.blockNumber(number, region: region, cap: maxRange) }
            print(change.count == 0 ? "\(change.display) is already blocked" : "Blocked \(change.display) (list version \(change.version))")
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Stop blocking a number or a range.")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(help: "Most numbers one # range may stand for.") var maxRange = NumberRange.defaultCap
        @Argument(help: ArgumentHelp("A blocked number or range.", valueName: "number")) var number: String

        func run() async throws {
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let change = try PhoneCommands.run(notListed: "is not blocked") { () throws(ActionError) in
                try state.unblockNumber(number, region: region, cap: maxRange)
            }
            print("Unblocked \(change.display) (list version \(change.version))")
        }
    }

    struct Identify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identify", abstract: "Label calls from a number or a range (shown on the incoming call).")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(help: "Most numbers one # range may stand for.") var maxRange = NumberRange.defaultCap
        @Option(help: "The label, e.g. \"Suspicious\" or \"Pizza place\".") var label: String
        @Argument(help: ArgumentHelp("A number, or a range ending in # wildcards.", valueName: "number")) var number: String

        func run() async throws {
            guard !label.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--label must not be empty") }
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let change = try PhoneCommands.run { () throws(ActionError) in
                try state.identifyNumber(number, label: label, region: region, cap: maxRange)
            }
            print(
                change.count == 0
                    ? "\(change.display) is already labelled \"\(label)\""
                    : "Labelled \(change.display) \"\(label)\" (list version \(change.version))")
        }
    }

    struct Unidentify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unidentify", abstract: "Remove the label of a number or a range.")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(help: "Most numbers one # range may stand for.") var maxRange = NumberRange.defaultCap
        @Argument(help: ArgumentHelp("A labelled number or range.", valueName: "number")) var number: String

        func run() async throws {
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let change = try PhoneCommands.run(notListed: "has no label") { () throws(ActionError) in
                try state.unidentifyNumber(number, region: region, cap: maxRange)
            }
            print("Removed the label of \(change.display) (list version \(change.version))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the blocked and identified numbers.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print a JSON array of {kind, number, e164, label?, range?}.") var json = false

        struct Item: Encodable {
            var kind: String
            var number: Int64
            var e164: String
            var label: String?
            var range: String?
        }

        func run() async throws {
            let state = try homeOptions.openState()
            if json {
                // Every number, each with the range it came from.
                let entries = try CallListStore(database: state.database).entries()
                return try Terminal.printJSON(
                    entries.map { entry in
                        Item(
                            kind: entry.kind.rawValue, number: entry.number,
                            e164: PhoneNumber(callDirectoryValue: entry.number)?.e164 ?? "+\(entry.number)", label: entry.label,
                            range: entry.pattern)
                    })
            }
            // A range is one line, grouped as every face groups it.
            var output = OutputBuffer()
            for line in try state.callListLines().lines {
                output.write("\(line.kind.rawValue)\t\(line.pattern.map { "\($0)\t\(line.numbers) numbers" } ?? line.number)")
                if let label = line.label { output.write("\t\(label)") }
                output.byte(10)
            }
            output.flush()
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print the CallKit entries: everything, or the changes since a version.",
            discussion: """
                Full export: `block<TAB>NUMBER` lines, then `identify<TAB>NUMBER<TAB>LABEL` lines, each list \
                strictly ascending (NUMBER is the E.164 digits as an integer, as CallKit takes them). \
                With --incremental-since VERSION: the changes since that version, as a call-directory \
                extension applies them: `unblock` and `unidentify` lines (removals), then `block` and \
                `identify` lines (additions; a new label is a removal and an addition). \
                The lists' version is printed on stderr (and in --json); pass it next time. \
                Errors carry CallKit's names: entriesOutOfOrder, duplicateEntries, maximumEntriesExceeded.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: ArgumentHelp("Only the changes since this list version.", valueName: "version")) var incrementalSince: Int64?
        @Option(help: "Fail with maximumEntriesExceeded when a list has more entries.") var maxEntries: Int?
        @Flag(help: "Print one JSON object: {incremental, entries: [{action, number, label?}], version}.") var json = false

        func validate() throws {
            if let incrementalSince, incrementalSince < 0 { throw ValidationError("--incremental-since must be a version (0 or more)") }
            if let maxEntries, maxEntries < 1 { throw ValidationError("--max-entries must be at least 1") }
        }

        func run() async throws {
            let store = CallListStore(database: try homeOptions.openState().database)
            if let incrementalSince, incrementalSince > (try store.version()) {
                throw CLIError("\(CallDirectoryError.unknownVersion(incrementalSince)) (the lists are at version \(try store.version()))")
            }
            let writer = ExportWriter(json: json, incremental: incrementalSince != nil)
            let outcome: CallDirectoryHandler<CallListStore>.Outcome
            do {
                outcome = try CallDirectoryHandler(source: store, maximumEntries: maxEntries)
                    .beginRequest(with: writer, lastLoadedVersion: incrementalSince)
            } catch let error as CallDirectoryError {
                // What was written before CallKit's error still goes out, as CallKit would have taken it.
                writer.output.flush()
                throw error
            }
            if json {
                writer.output.write("\n],\"version\":\(outcome.version)}\n")
                writer.output.flush()
            }
            let added = outcome.added.values.reduce(0, +)
            let removed = outcome.removed.values.reduce(0, +)
            Terminal.status(
                "version \(outcome.version): "
                    + (outcome.incremental
                        ? "\(removed) removals and \(added) additions since version \(incrementalSince ?? 0)"
                        : (incrementalSince == nil ? "" : "changes are kept since version \(try store.oldestIncrementalVersion()); ")
                            + "full export, \(outcome.added[.blocking] ?? 0) blocking and \(outcome.added[.identification] ?? 0) identification entries")
            )
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add numbers from a file (or - for stdin), or replace the lists with it.",
            discussion: """
                One number or # range per line; `NUMBER<TAB>LABEL` lines go to the identification list, \
                the others to the block list. Blank lines and lines starting with # are skipped. \
                With --replace, both lists become exactly the file's contents, in one transaction: \
                a call-directory extension reading at the same time sees the old lists or the new ones.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(help: "Most numbers one # range may stand for.") var maxRange = NumberRange.defaultCap
        @Flag(help: "Replace both lists instead of adding to them.") var replace = false
        @Argument(help: ArgumentHelp("The file, or - for stdin.", valueName: "file")) var file: String

        func run() async throws {
            let text = String(decoding: try PhoneCommands.contents(of: file, allowStdin: true), as: UTF8.self)
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let imported = try state.importCallList(text, region: region, cap: maxRange, replace: replace)
            for skipped in imported.skipped { Terminal.warning("\(file):\(skipped.line): \(skipped.problem)") }
            print(
                "Imported \(imported.blocking) blocking and \(imported.identification) identification entries: "
                    + "\(imported.added) added, \(imported.removed) removed, list version \(imported.version)"
                    + (imported.skipped.isEmpty ? "" : "; \(imported.skipped.count) invalid lines skipped"))
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Print what happens to a call from a number: block, identify (with the label) or allow, and why.",
            discussion: """
                The block list comes first, then contacts (they ring), then "block all except contacts", \
                then labels. The decision is recorded for `pepper calls stats` unless --no-record is given.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Flag(inversion: .prefixedNo, help: "Record the decision for stats.") var record = true
        @Flag(help: "Print {action, e164, label?, rule: {kind, value?}, reason} as JSON.") var json = false
        @Argument(help: ArgumentHelp("The caller's number.", valueName: "number")) var number: String

        func run() async throws {
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let check = try PhoneCommands.run { () throws(ActionError) in try state.checkCall(number, region: region, record: record) }
            let verdict = check.verdict
            if json {
                struct Rule: Encodable {
                    var kind: String
                    var value: String?
                }
                struct Result: Encodable {
                    var action: String
                    var e164: String
                    var label: String?
                    var rule: Rule
                    var reason: String
                }
                try Terminal.printJSON(
                    Result(
                        action: verdict.action.rawValue, e164: check.e164, label: verdict.label,
                        rule: Rule(kind: verdict.reason.kind, value: verdict.reason.value), reason: verdict.reason.description))
            } else {
                print(
                    verdict.label.map { "\(verdict.action.rawValue)\t\(check.e164)\t\($0)" } ?? "\(verdict.action.rawValue)\t\(check.e164)")
            }
        }
    }

    struct Region: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "region",
            abstract: "Print or set the region numbers without a country code are read in (US until set).",
            discussion: "Every calls and sms command, and the console, use it unless --region says otherwise.")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: ArgumentHelp("An ISO 3166 code: US, GB, DE… (none: print the current one).", valueName: "region"))
        var region: String?

        func run() async throws {
            let state = try homeOptions.openState()
            guard let region else { return print(try PhoneCommands.run { () throws(ActionError) in try state.phoneRegion() }) }
            let set = try PhoneCommands.run { () throws(ActionError) in try state.setPhoneRegion(region) }
            print("Numbers without a country code are now read as \(set) numbers")
        }
    }

    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "contacts",
            abstract: "Import the contacts' numbers from a vCard file (replacing earlier imports).",
            discussion: """
                One contact list serves calls and messages: contacts' calls ring even with \
                "block all except contacts" on, and their messages are always allowed. Only numbers are kept.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Argument(help: ArgumentHelp("A .vcf file.", valueName: "file")) var file: String

        func run() async throws {
            try PhoneCommands.importContacts(file, homeOptions, regionOptions)
        }
    }

    struct BlockAllExceptContacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block-all-except-contacts",
            abstract: "Block every caller who is not a contact (on), or not (off).",
            discussion: """
                `pepper calls check` and the counts follow it. A call-directory extension can only block \
                the numbers it is given, so `pepper calls export` is unchanged by it: on iPhone the same \
                effect is Settings › Phone › Silence Unknown Callers (docs/calls-and-messages.md).
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "on or off.") var state: OnOff

        func run() async throws {
            let pepper = try homeOptions.openState()
            try PhoneCommands.run { () throws(ActionError) in try pepper.setBlockAllExceptContacts(state == .on) }
            print("Block all except contacts: \(state.rawValue)")
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", abstract: "Print list sizes and the recorded call decisions.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let database = try homeOptions.openState().database
            let store = CallListStore(database: database)
            let counts = try store.counts()
            let decisions = DecisionStore(database: database)
            let totals = try decisions.counts(.call)
            let recent = try decisions.recent(.call, limit: 10)
            if json {
                struct Report: Encodable {
                    var version: Int64
                    var blocking: Int
                    var identification: Int
                    var decisions: [DecisionStore.Count]
                    var recent: [DecisionStore.Decision]
                }
                return try Terminal.printJSON(
                    Report(
                        version: try store.version(), blocking: counts[.blocking] ?? 0, identification: counts[.identification] ?? 0,
                        decisions: totals, recent: recent))
            }
            print("list version \(try store.version()): \(counts[.blocking] ?? 0) blocked, \(counts[.identification] ?? 0) identified")
            print("decisions: \(totals.map(\.count).reduce(0, +))")
            for count in totals {
                print(
                    "  \(Terminal.padLeft(Terminal.count(count.count), 9))  \(count.action.rawValue)\(count.rule.isEmpty ? "" : " (\(count.rule))")"
                )
            }
            if !recent.isEmpty { print("recent:") }
            for decision in recent { print("  \(decision.at)  \(decision.subject)  \(decision.action.rawValue)") }
        }
    }
}

/// A ``CallDirectoryContext`` that prints what CallKit would be told.
final class ExportWriter: CallDirectoryContext {
    let isIncremental: Bool
    private let json: Bool
    var output = OutputBuffer()
    private var first = true

    init(json: Bool, incremental: Bool) {
        self.json = json
        self.isIncremental = incremental
        if json { output.write("{\"incremental\":\(incremental),\"entries\":[") }
    }

    private func line(_ action: String, _ number: Int64, _ label: String? = nil) {
        if json {
            output.write(first ? "\n" : ",\n")
            first = false
            output.write("{\"action\":\"\(action)\",\"number\":")
            output.write(number)
            if let label { output.write(",\"label\":\(Self.jsonString(label))") }
            output.byte(UInt8(ascii: "}"))
        } else {
            output.write(action)
            output.byte(9)
            output.write(number)
            if let label {
                output.byte(9)
                output.write(label)
            }
            output.byte(10)
        }
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) { line("block", phoneNumber) }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) { line("unblock", phoneNumber) }
    func removeAllBlockingEntries() { line("unblock-all", 0) }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) { line("identify", phoneNumber, label) }
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) { line("unidentify", phoneNumber) }
    func removeAllIdentificationEntries() { line("unidentify-all", 0) }

    func completeRequest() {
        output.flush()
    }

    func cancelRequest(withError error: any Error) {
        output.flush()
    }
}
