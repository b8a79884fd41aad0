import ArgumentParser
import CallFilter
import Foundation
import PepperActions
import Picket
import Storage

/// `pepper sms`: message filtering by words and senders.
struct SmsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sms",
        abstract: "Filter text messages by words and senders: allow, junk, promotion or transaction.",
        discussion: """
            Words match whole words, case-insensitively, after Unicode normalisation and folding of \
            look-alike characters (Cyrillic and Greek homoglyphs, fr3e, w0n, full-width and accented \
            letters), so "You have WON a fr3e cruise" matches "won" and "free". A fresh state has the \
            words "free" and "won" (junk). Order of rules: contacts are allowed, blocked senders are junk, \
            then word rules (a rule for the very sender first, else junk over promotion over transaction), \
            then, with contacts-only on, unknown senders are junk. `pepper sms guard off` lets every \
            message through and keeps the rules.
            """,
        subcommands: [Guard.self, Words.self, Senders.self, Check.self, Classify.self, Stats.self]
    )

    enum ActionOption: String, ExpressibleByArgument, CaseIterable {
        case junk, promotion, transaction
        var action: MessageAction { MessageAction(rawValue: rawValue)! }
    }

    struct Words: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "words",
            abstract: "Manage the word rules.", subcommands: [Add.self, Remove.self, List.self], defaultSubcommand: List.self)

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a word or phrase (or change its action).")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var regionOptions: RegionOptions
            @Option(help: "What a match does.") var action: ActionOption = .junk
            @Option(
                help: ArgumentHelp(
                    "A sub-folder, as IdentityLookup names them (promotionalOffers, transactionalFinance, …).", valueName: "sub-action"))
            var subAction: String = "none"
            @Option(
                name: .customLong("from"),
                help: ArgumentHelp("Only for messages from this sender (sender+words rule).", valueName: "sender"))
            var sender: String?
            @Argument(help: "The word or phrase.") var word: String

            func validate() throws {
                guard let sub = MessageSubAction(rawValue: subAction) else {
                    throw ValidationError("--sub-action: one of \(MessageSubAction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard sub == .none || sub.action == action.action else {
                    throw ValidationError("--sub-action \(subAction) does not belong to --action \(action.rawValue)")
                }
            }

            func run() async throws {
                let state = try homeOptions.openState()
                let region = try regionOptions.region(in: state)
                let change = try PhoneCommands.run { () throws(ActionError) in
                    try state.addMessageWord(
                        word, action: action.action, subAction: MessageSubAction(rawValue: subAction) ?? .none, sender: sender,
                        region: region)
                }
                let scope = sender.map { " from \($0)" } ?? ""
                print(
                    change.changed
                        ? "Added \"\(change.subject)\"\(scope): \(action.rawValue)"
                        : "Updated \"\(change.subject)\"\(scope): \(action.rawValue)")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a word rule.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var regionOptions: RegionOptions
            @Option(name: .customLong("from"), help: ArgumentHelp("Remove the rule for this sender.", valueName: "sender")) var sender:
                String?
            @Argument(help: "The word or phrase.") var word: String

            func run() async throws {
                let state = try homeOptions.openState()
                let region = try regionOptions.region(in: state)
                try PhoneCommands.run { () throws(ActionError) in try state.removeMessageWord(word, sender: sender, region: region) }
                print("Removed \"\(word)\"")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the word rules.")
            @OptionGroup var homeOptions: HomeOptions
            @Flag(help: "Print a JSON array of {word, action, subAction, sender?}.") var json = false

            func run() async throws {
                let words = try MessageRuleStore(database: homeOptions.openState().database).words()
                if json { return try Terminal.printJSON(words) }
                for rule in words {
                    var line = "\(rule.word)\t\(rule.action.rawValue)"
                    if rule.subAction != .none { line += "/\(rule.subAction.rawValue)" }
                    if let sender = rule.sender { line += "\tfrom \(sender)" }
                    print(line)
                }
            }
        }
    }

    struct Senders: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "senders",
            abstract: "Manage blocked senders, contacts and the unknown-senders rule.",
            subcommands: [Block.self, Unblock.self, List.self, Contacts.self, ContactsOnly.self], defaultSubcommand: List.self)

        struct Block: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "block", abstract: "Treat messages from a number, short code or sender ID as junk.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var regionOptions: RegionOptions
            @Argument(help: ArgumentHelp("A phone number, short code (72975) or sender ID (PROMO).", valueName: "number")) var number:
                String

            func run() async throws {
                let state = try homeOptions.openState()
                let region = try regionOptions.region(in: state)
                let change = try PhoneCommands.run { () throws(ActionError) in try state.blockSender(number, region: region) }
                print(change.changed ? "Blocked sender \(change.subject)" : "\(change.subject) is already blocked")
            }
        }

        struct Unblock: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Stop treating a sender's messages as junk.")
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var regionOptions: RegionOptions
            @Argument(help: ArgumentHelp("A blocked sender.", valueName: "number")) var number: String

            func run() async throws {
                let state = try homeOptions.openState()
                let region = try regionOptions.region(in: state)
                let change = try PhoneCommands.run { () throws(ActionError) in try state.unblockSender(number, region: region) }
                print("Unblocked sender \(change.subject)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the blocked senders.")
            @OptionGroup var homeOptions: HomeOptions
            @Flag(help: "Print a JSON array.") var json = false

            func run() async throws {
                let senders = try MessageRuleStore(database: homeOptions.openState().database).blockedSenders()
                if json { return try Terminal.printJSON(senders) }
                senders.forEach { print($0) }
            }
        }

        struct Contacts: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "contacts",
                abstract: "Import the contacts' numbers from a vCard file (replacing earlier imports).",
                discussion: """
                    Messages from contacts are always allowed; with contacts-only on, everyone else's are junk. \
                    The same contacts serve calls (`pepper calls contacts` is the same import).
                    """)
            @OptionGroup var homeOptions: HomeOptions
            @OptionGroup var regionOptions: RegionOptions
            @Argument(help: ArgumentHelp("A .vcf file.", valueName: "file")) var file: String

            func run() async throws {
                try PhoneCommands.importContacts(file, homeOptions, regionOptions)
            }
        }

        struct ContactsOnly: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "contacts-only", abstract: "Treat messages from senders who are not contacts as junk (on), or not (off).")
            @OptionGroup var homeOptions: HomeOptions
            @Argument(help: "on or off.") var state: OnOff

            func run() async throws {
                let pepper = try homeOptions.openState()
                try PhoneCommands.run { () throws(ActionError) in try pepper.setContactsOnly(state == .on) }
                print("Contacts only: \(state.rawValue)")
            }
        }
    }

    struct Guard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "guard", abstract: "Switch the SMS guard on or off (off: every message is allowed; the rules are kept).")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "on or off (none: print the current state).") var state: OnOff?

        func run() async throws {
            let pepper = try homeOptions.openState()
            guard let state else {
                let rules = try PhoneCommands.run { () throws(ActionError) in try pepper.messageRules() }
                return print(rules.enabled ? "on" : "off")
            }
            try PhoneCommands.run { () throws(ActionError) in try pepper.setMessageFilter(enabled: state == .on) }
            print("SMS guard: \(state.rawValue)")
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Print allow, junk, promotion or transaction for a message, and why.",
            discussion: "The decision is recorded for `pepper sms stats` unless --no-record is given.")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Option(name: .customLong("from"), help: ArgumentHelp("The sender: a number, short code or sender ID.", valueName: "sender"))
        var sender: String
        @Option(help: ArgumentHelp("Use this vCard file as the contacts for this check.", valueName: "file")) var contacts: String?
        @Flag(inversion: .prefixedNo, help: "Record the decision for stats.") var record = true
        @Flag(help: "Print {action, subAction, rule: {kind, value}, reason} as JSON.") var json = false
        @Argument(help: "The message text.") var text: String

        func run() async throws {
            // Contacts for this check only: the stored rules are untouched.
            let vCard = try contacts.map { String(decoding: try PhoneCommands.contents(of: $0), as: UTF8.self) }
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let verdict = try PhoneCommands.run { () throws(ActionError) in
                try state.checkMessage(from: sender, text: text, region: region, record: record, contacts: vCard)
            }.verdict
            if json {
                try Terminal.printJSON(VerdictJSON(verdict, id: nil))
            } else {
                let action =
                    verdict.subAction == .none ? verdict.action.rawValue : "\(verdict.action.rawValue) (\(verdict.subAction.rawValue))"
                print("\(action)\t\(verdict.rule)")
            }
        }
    }

    struct Classify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "classify",
            abstract: "Classify messages from stdin: one JSON object per line in, one verdict per line out.",
            discussion: """
                Input lines: {"from": SENDER, "text": TEXT} (also "sender"/"body"; optional "id", echoed back, \
                and "receiverISOCountryCode" to read national sender numbers). Output lines: \
                {"id"?, "action", "subAction"?, "rule": {"kind", "value"?}, "reason"}. A line that is not such \
                an object gives {"line": N, "error": …} and the exit status 1 at the end.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var regionOptions: RegionOptions
        @Flag(inversion: .prefixedNo, help: "Record the decisions for stats.") var record = true

        struct Input: Decodable {
            var id: JSONValue?
            var from: String?
            var sender: String?
            var text: String?
            var body: String?
            var receiverISOCountryCode: String?
        }

        func run() async throws {
            let state = try homeOptions.openState()
            let region = try regionOptions.region(in: state)
            let parser = try RegionOptions.parser(region)
            let handler = try state.messageFilterHandler(region: parser.defaultRegion)
            let decoder = JSONDecoder()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var output = OutputBuffer()
            var decisions: [(sender: String, verdict: MessageVerdict)] = []
            var errors = 0
            var number = 0
            while let line = readLine(strippingNewline: true) {
                number += 1
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                let encoded: Data
                do {
                    let input = try decoder.decode(Input.self, from: Data(line.utf8))
                    // An id is echoed back as it came, so it is one JSON value, not a structure.
                    if let id = input.id, !id.isScalar { throw CLIError("\"id\" must be a string, a number, a boolean or null") }
                    let query = MessageFilterQuery(
                        sender: input.from ?? input.sender, messageBody: input.text ?? input.body,
                        receiverISOCountryCode: input.receiverISOCountryCode)
                    let verdict = handler.verdict(for: query)
                    if record { decisions.append((query.sender ?? "", verdict)) }
                    encoded = try encoder.encode(VerdictJSON(verdict, id: input.id))
                } catch {
                    errors += 1
                    encoded = try encoder.encode([
                        "line": JSONValue.number(Double(number)), "error": .string("not a JSON message object: \(error)"),
                    ])
                }
                output.write(String(decoding: encoded, as: UTF8.self))
                output.byte(10)
            }
            output.flush()
            try state.recordMessageDecisions(decisions, region: region)
            if errors > 0 { throw CLIError("\(errors) of \(number) lines were not JSON message objects") }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Print the recorded message decisions: counts per action and rule, and the latest.")
        @OptionGroup var homeOptions: HomeOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let decisions = DecisionStore(database: try homeOptions.openState().database)
            let totals = try decisions.counts(.message)
            let recent = try decisions.recent(.message, limit: 10)
            if json {
                struct Report: Encodable {
                    var total: Int
                    var byAction: [String: Int]
                    var decisions: [DecisionStore.Count]
                    var recent: [DecisionStore.Decision]
                }
                var byAction: [String: Int] = [:]
                for count in totals { byAction[count.action.rawValue, default: 0] += count.count }
                return try Terminal.printJSON(
                    Report(total: totals.map(\.count).reduce(0, +), byAction: byAction, decisions: totals, recent: recent))
            }
            print("messages classified: \(Terminal.count(totals.map(\.count).reduce(0, +)))")
            for action in MessageAction.allCases {
                let count = totals.filter { $0.action == DecisionStore.Action(action) }.map(\.count).reduce(0, +)
                print("  \(Terminal.pad(action.rawValue, 12)) \(Terminal.padLeft(Terminal.count(count), 9))")
            }
            if !totals.isEmpty { print("by rule:") }
            for count in totals.prefix(20) {
                print(
                    "  \(Terminal.padLeft(Terminal.count(count.count), 9))  \(count.action.rawValue)  \(count.ruleKind)\(count.rule.isEmpty ? "" : " \"\(count.rule)\"")"
                )
            }
            if !recent.isEmpty { print("latest:") }
            for decision in recent {
                print(
                    "  \(decision.at)  \(decision.subject)  \(decision.action.rawValue)  \(decision.ruleKind)\(decision.rule.map { " \"\($0)\"" } ?? "")"
                )
            }
        }
    }

}

/// A verdict as printed by `--json` and `pepper sms classify`.
struct VerdictJSON: Encodable {
    struct Rule: Encodable {
        var kind: String
        var value: String?
    }

    var id: JSONValue?
    var action: String
    var subAction: String?
    var rule: Rule
    var reason: String

    init(_ verdict: MessageVerdict, id: JSONValue?) {
        self.id = id
        action = verdict.action.rawValue
        subAction = verdict.subAction == .none ? nil : verdict.subAction.rawValue
        rule = Rule(kind: verdict.rule.kind, value: verdict.rule.value)
        reason = verdict.rule.description
    }
}
