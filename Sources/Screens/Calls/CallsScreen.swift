import CallFilter
import Foundation
import PepperActions
import Storage

/// The calls screen of the call-blocker design: the block list (numbers and `#` ranges, shown
/// normalised before they are saved), identification labels, "block all except contacts" with
/// the contacts it lets through, what the call-directory export holds, and the counts.
public struct CallsScreen: Sendable {
    /// One line of a list: a number, or a range as it was added.
    public struct Entry: Sendable, Hashable {
        /// Which list.
        public var kind: CallDirectoryEntryKind
        /// How it reads: `+12069550100`, or `+1206555 01##` with its size.
        public var shown: String
        /// What removing it submits: the number in E.164, or the range.
        public var value: String
        /// How many numbers.
        public var numbers: Int
        /// The label, on the identification list.
        public var label: String?
    }

    /// A number or range as it will be saved, shown before saving.
    public struct Preview: Sendable, Hashable {
        /// What the person typed.
        public var typed: String
        /// The normalised form: E.164, or the range with its size.
        public var normalized: String
        /// What saving submits (E.164 or the range), so that the saved entry is exactly the one shown.
        public var value: String
        /// How many numbers.
        public var numbers: Int
        /// For ranges: the first and last numbers in E.164.
        public var first: String
        /// For ranges: the last number in E.164.
        public var last: String
    }

    /// What the call-directory extension would be given (`pepper calls export`).
    public struct Export: Sendable, Hashable {
        /// Blocking entries.
        public var blocking: Int
        /// Identification entries.
        public var identification: Int
        /// The lists' version, which an incremental load starts from.
        public var version: Int64
        /// The oldest version an incremental load can start from.
        public var incrementalSince: Int64
    }

    /// The result of "Try a number".
    public struct Trial: Sendable, Hashable {
        /// The caller in E.164.
        public var e164: String
        /// `block`, `identify` or `allow`.
        public var action: String
        /// The label shown, if any.
        public var label: String?
        /// Why, as a sentence.
        public var explanation: String
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The region numbers without a country code are read in.
        public var region: String
        /// Every region the phone-number metadata knows (ISO 3166 codes).
        public var regions: [String]
        /// The block list, as added (at most ``listLimit`` lines across both lists).
        public var blocked: [Entry]
        /// The identification list, as added.
        public var identified: [Entry]
        /// Lines not shown because of ``listLimit`` (`pepper calls list` shows them all).
        public var notShown: Int
        /// Whether every caller who is not a contact is blocked.
        public var blockAllExceptContacts: Bool
        /// How many contact numbers are kept.
        public var contacts: Int
        /// What the call directory holds.
        public var export: Export
        /// Blocked, identified and allowed calls, today and this week.
        public var counts: [ActivityCount]
    }

    /// Most list lines a screen shows.
    public static let listLimit = 500

    /// Why "block all except contacts" cannot be a call-directory list, for every face to say.
    public static let blockAllExceptContactsNote =
        "The call directory can only block the numbers it is given, so this switch decides calls checked by Pepper; on iPhone, also turn on Settings › Phone › Silence Unknown Callers, which lets only your contacts ring."

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads everything the screen shows.
    public func load(now: Date = Date()) async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do {
                let store = CallListStore(database: state.database)
                let listed = try state.callListLines(limit: Self.listLimit)
                let entries = listed.lines.map { line in
                    Entry(
                        kind: line.kind, shown: line.pattern.map { "\($0) (\(Text.plural(line.numbers, "number")))" } ?? line.number,
                        value: line.value, numbers: line.numbers, label: line.label)
                }
                let counts = try store.counts()
                let screening = try state.callScreening()
                let database = state.database
                return State(
                    region: try state.phoneRegion(), regions: PhoneMetadata.shared.regionCodes,
                    blocked: entries.filter { $0.kind == .blocking },
                    identified: entries.filter { $0.kind == .identification }, notShown: listed.total - listed.lines.count,
                    blockAllExceptContacts: screening.blockAllExceptContacts, contacts: screening.contacts.count,
                    export: Export(
                        blocking: counts[.blocking] ?? 0, identification: counts[.identification] ?? 0, version: try store.version(),
                        incrementalSince: try store.oldestIncrementalVersion()),
                    counts: [
                        try .decisions("Calls blocked", .call, [.block], database: database, now: now),
                        try .decisions("Calls identified", .call, [.identify], database: database, now: now),
                        try .decisions("Calls allowed", .call, [.allow], database: database, now: now),
                    ])
            } catch let error as ActionError {
                throw ScreenError(error)
            } catch let error as ScreenError {
                throw error
            } catch {
                throw ScreenError("Cannot read the call lists: \(error).")
            }
        }
    }

    /// The normalised form of what was typed, before saving it.
    public func preview(_ text: String) async -> Result<Preview, Notice> {
        await blocking { () -> Result<Preview, Notice> in
            do throws(ActionError) {
                let region = try state.phoneRegion()
                let input = try PepperState.numberInput(text, region: region)
                let first = PhoneNumber(callDirectoryValue: input.entries.first?.number ?? 0)?.e164 ?? ""
                let last = PhoneNumber(callDirectoryValue: input.entries.last?.number ?? 0)?.e164 ?? ""
                return .success(
                    Preview(
                        typed: text, normalized: input.display, value: input.pattern ?? first, numbers: input.entries.count, first: first,
                        last: last))
            } catch {
                return .failure(.failure(error, field: "number"))
            }
        }
    }

    /// Blocks calls from a number or range.
    public func block(_ text: String) async -> Notice {
        await blockingAction(field: "number") { () throws(ActionError) -> Notice in
            let change = try state.blockNumber(text, region: try state.phoneRegion())
            return change.count == 0
                ? Notice(.info, "\(change.display) is already blocked.")
                : .success("Blocked \(change.display); the call directory is at version \(change.version).")
        }
    }

    /// Stops blocking a number or range (as the list shows it).
    public func unblock(_ value: String) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            let change = try state.unblockNumber(value, region: try state.phoneRegion())
            return .success("\(change.display) is no longer blocked.")
        }
    }

    /// Labels calls from a number or range, or changes its label.
    public func identify(_ text: String, label: String) async -> Notice {
        await blocking { () -> Notice in
            let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else {
                return .error("Give the label people see when it rings, such as \"Pizza place\".", field: "label")
            }
            guard trimmed.count <= FieldLimits.label else {
                return .error("A label has at most \(FieldLimits.label) characters.", field: "label")
            }
            do throws(ActionError) {
                let change = try state.identifyNumber(text, label: trimmed, region: try state.phoneRegion())
                return change.count == 0
                    ? Notice(.info, "\(change.display) is already labelled \"\(trimmed)\".")
                    : .success("Calls from \(change.display) now show \"\(trimmed)\".")
            } catch {
                return .failure(error, field: "identify-number")
            }
        }
    }

    /// Removes the label of a number or range.
    public func unidentify(_ value: String) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            let change = try state.unidentifyNumber(value, region: try state.phoneRegion())
            return .success("\(change.display) has no label any more.")
        }
    }

    /// Sets the region numbers without a country code are read in.
    public func setRegion(_ region: String) async -> Notice {
        await blockingAction(field: "region") { () throws(ActionError) -> Notice in
            let code = try state.setPhoneRegion(region)
            return .success("Numbers without a country code are now read as \(code) numbers.")
        }
    }

    /// Turns "block all except contacts" on or off.
    public func setBlockAllExceptContacts(_ on: Bool) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            try state.setBlockAllExceptContacts(on)
            let contacts = try state.callScreening().contacts.count
            if on && contacts == 0 {
                return Notice(.warning, "Every call is blocked now: no contact is imported yet, so nobody gets through.")
            }
            return .success(
                on
                    ? "Only your \(Text.plural(contacts, "contact number")) ring now; every other caller is blocked."
                    : "Callers who are not contacts ring again (unless they are on the block list).")
        }
    }

    /// Replaces the contacts with those of a vCard file (calls and messages share them).
    public func importContacts(vCard text: String) async -> Notice {
        await blockingAction(field: "contacts") { () throws(ActionError) -> Notice in
            let imported = try state.importContacts(vCard: text, region: try state.phoneRegion())
            return .success(
                "Imported \(Text.plural(imported.numbers, "number")) of \(Text.plural(imported.contacts, "contact")); calls and messages use them now."
            )
        }
    }

    /// What would happen to a call from `number` (not counted).
    public func tryCall(_ number: String) async -> Result<Trial, Notice> {
        await blocking { () -> Result<Trial, Notice> in
            do throws(ActionError) {
                let check = try state.checkCall(number, region: try state.phoneRegion(), record: false)
                let verdict = check.verdict
                let verb =
                    switch verdict.action {
                    case .block: "Blocked"
                    case .identify: "Rings, labelled \"\(verdict.label ?? "")\""
                    case .allow: "Rings"
                    }
                return .success(
                    Trial(
                        e164: check.e164, action: verdict.action.rawValue, label: verdict.label,
                        explanation: "\(verb): \(verdict.reason.description)."))
            } catch {
                return .failure(.failure(error, field: "try-number"))
            }
        }
    }
}
