import CallFilter
import Foundation
import Storage

/// A change to the call block or identification list.
public struct CallListChange: Sendable, Hashable {
    /// The number or range as shown (E.164, or the range with its size).
    public var display: String
    /// Entries added or removed (0 when nothing changed).
    public var count: Int
    /// The list version after the change.
    public var version: Int64
}

extension PepperState {
    /// The parser for numbers dialled in `region` (ISO 3166: US, GB, DE, …).
    public static func numberParser(region: String) throws(ActionError) -> PhoneNumberParser {
        do {
            return try PhoneNumberParser(defaultRegion: region)
        } catch {
            throw .invalidNumber(input: region, problem: .unknownRegion(region))
        }
    }

    /// Reads a number or a `#` range as a person types it.
    public static func numberInput(
        _ text: String, label: String? = nil, region: String, cap: Int = NumberRange.defaultCap
    )
        throws(ActionError) -> NumberInput
    {
        try FieldLimits.check(text, field: "number", what: "a number or range", limit: FieldLimits.number)
        if let label { try FieldLimits.check(label, field: "label", what: "a label", limit: FieldLimits.label) }
        let parser = try numberParser(region: region)
        do {
            return try NumberInput(text, label: label, parser: parser, cap: cap)
        } catch {
            throw .invalidNumber(input: error.text, problem: .notANumber(error.problem))
        }
    }

    /// Blocks calls from a number or a range (`+1 206 555 01##`).
    public func blockNumber(_ text: String, region: String, cap: Int = NumberRange.defaultCap) throws(ActionError) -> CallListChange {
        let input = try Self.numberInput(text, region: region, cap: cap)
        return try changeCallList(input.display) { try $0.add(.blocking, input.entries, pattern: input.pattern) }
    }

    /// Stops blocking a number or a range.
    ///
    /// - Throws: ``ActionError/numberNotListed(_:)`` when none of it was blocked.
    public func unblockNumber(_ text: String, region: String, cap: Int = NumberRange.defaultCap) throws(ActionError) -> CallListChange {
        let input = try Self.numberInput(text, region: region, cap: cap)
        let change = try changeCallList(input.display) { try $0.remove(.blocking, input.entries.map(\.number)) }
        guard change.count > 0 else { throw .numberNotListed(input.display) }
        return change
    }

    /// Labels calls from a number or a range (shown on the incoming call).
    public func identifyNumber(
        _ text: String, label: String, region: String, cap: Int = NumberRange.defaultCap
    ) throws(ActionError)
        -> CallListChange
    {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidNumber(input: text, problem: .emptyLabel) }
        let input = try Self.numberInput(text, label: trimmed, region: region, cap: cap)
        return try changeCallList(input.display) { try $0.add(.identification, input.entries, pattern: input.pattern) }
    }

    /// Removes the label of a number or a range.
    ///
    /// - Throws: ``ActionError/numberNotListed(_:)`` when none of it was labelled.
    public func unidentifyNumber(_ text: String, region: String, cap: Int = NumberRange.defaultCap) throws(ActionError) -> CallListChange {
        let input = try Self.numberInput(text, region: region, cap: cap)
        let change = try changeCallList(input.display) { try $0.remove(.identification, input.entries.map(\.number)) }
        guard change.count > 0 else { throw .numberNotListed(input.display) }
        return change
    }

    private func changeCallList(
        _ display: String, _ change: (CallListStore) throws -> CallListStore.Change
    ) throws(ActionError)
        -> CallListChange
    {
        do {
            let result = try change(CallListStore(database: database))
            return CallListChange(display: display, count: result.added + result.removed, version: result.version)
        } catch {
            throw .storage("cannot change the call lists: \(error)")
        }
    }
}

/// A call decision, for `pepper calls check` and the console's "Try a number".
public struct CallCheck: Sendable, Hashable {
    /// The caller in E.164.
    public var e164: String
    /// What happens, and why.
    public var verdict: CallScreening.Verdict
}

/// What importing contacts did.
public struct ContactImport: Sendable, Hashable {
    /// Contacts (vCard entries) read.
    public var contacts: Int
    /// Distinct numbers kept.
    public var numbers: Int
}

extension PepperState {
    /// The region used when a number has no country code: the person's choice, else `US`.
    public func phoneRegion() throws(ActionError) -> String {
        do {
            return try PreferenceStore(database: database).value(.phoneRegion) ?? "US"
        } catch {
            throw .storage("cannot read the phone region: \(error)")
        }
    }

    /// Sets the region numbers are read in (ISO 3166: US, GB, DE, …); returns it upper-cased.
    @discardableResult
    public func setPhoneRegion(_ region: String) throws(ActionError) -> String {
        let code = region.trimmingCharacters(in: .whitespaces).uppercased()
        _ = try Self.numberParser(region: code)
        do {
            try PreferenceStore(database: database).set(.phoneRegion, code)
        } catch {
            throw .storage("cannot save the phone region: \(error)")
        }
        return code
    }

    /// The screening settings: "block all except contacts" and the contacts.
    public func callScreening() throws(ActionError) -> CallScreening {
        do {
            return CallScreening(
                blockAllExceptContacts: try PreferenceStore(database: database).value(.blockAllExceptContacts) == "on",
                contacts: Set(try ContactStore(database: database).numbers()))
        } catch {
            throw .storage("cannot read the call settings: \(error)")
        }
    }

    /// Turns "block all except contacts" on or off.
    public func setBlockAllExceptContacts(_ on: Bool) throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.blockAllExceptContacts, on ? "on" : nil)
        } catch {
            throw .storage("cannot change the call settings: \(error)")
        }
    }

    /// Replaces the contacts with the numbers of a vCard file's text (read in `region`), for calls
    /// and messages alike.
    ///
    /// - Throws: ``ActionError/noContactNumbers(_:)`` when the text holds no contact with a number.
    public func importContacts(vCard text: String, region: String) throws(ActionError) -> ContactImport {
        let parser = try Self.numberParser(region: region)
        let contacts = VCardContacts.parse(text)
        var keys = Set<String>()
        for contact in contacts {
            for number in contact.numbers {
                let key = MessageSender.key(number, parser: parser)
                if !key.isEmpty { keys.insert(key) }
            }
        }
        guard !keys.isEmpty else {
            throw .noContactNumbers(contacts.isEmpty ? .noContact : .noPhoneNumber(contacts: contacts.count))
        }
        do {
            try ContactStore(database: database).replace(keys)
        } catch {
            throw .storage("cannot save the contacts: \(error)")
        }
        return ContactImport(contacts: contacts.count, numbers: keys.count)
    }

    /// What happens to a call from `text` (a number as typed), recorded for the counts unless
    /// `record` is false.
    public func checkCall(_ text: String, region: String, record: Bool = true) throws(ActionError) -> CallCheck {
        let parser = try Self.numberParser(region: region)
        let number: PhoneNumber
        do {
            number = try parser.parse(text)
        } catch {
            throw .invalidNumber(input: text, problem: .notANumber(.number(error)))
        }
        do {
            let listing = try CallListStore(database: database).listing(number.callDirectoryValue ?? 0)
            let verdict = try callScreening().decide(number, listing: listing)
            if record {
                try DecisionStore(database: database).record([
                    .init(
                        domain: .call, subject: number.e164, action: DecisionStore.Action(verdict.action), ruleKind: verdict.reason.kind,
                        rule: verdict.reason.value)
                ])
            }
            return CallCheck(e164: number.e164, verdict: verdict)
        } catch let error as ActionError {
            throw error
        } catch {
            throw .storage("cannot check the call: \(error)")
        }
    }
}

/// One line of the call lists as people added them: a number, or a whole `#` range.
public struct CallListLine: Sendable, Hashable {
    /// Which list.
    public var kind: CallDirectoryEntryKind
    /// The range as stored (`+120655501##`), or `nil` for one number.
    public var pattern: String?
    /// The (first) number, in E.164.
    public var number: String
    /// How many numbers the line stands for.
    public var numbers: Int
    /// The label, on the identification list.
    public var label: String?

    /// What names the line to remove it: the range, or the number.
    public var value: String { pattern ?? number }
}

/// The call lists as lines, and how many lines there are in all.
public struct CallListLines: Sendable, Hashable {
    /// The block list's lines first, then the identification list's, each by (first) number.
    public var lines: [CallListLine]
    /// Lines in all (more than `lines` when a limit cut them).
    public var total: Int
}

/// What importing a file of numbers did.
public struct CallListImport: Sendable, Hashable {
    /// A line that is not a number or range; the others were imported.
    public struct SkippedLine: Sendable, Hashable {
        /// Its number in the text, from 1.
        public var line: Int
        /// Why.
        public var problem: ActionError
    }

    /// Entries read for the block list.
    public var blocking: Int
    /// Entries read for the identification list.
    public var identification: Int
    /// Entries added (or relabelled).
    public var added: Int
    /// Entries removed (with `replace`).
    public var removed: Int
    /// The lists' version afterwards.
    public var version: Int64
    /// The lines skipped, in order.
    public var skipped: [SkippedLine]
}

extension PepperState {
    /// The call lists grouped as people added them: a range is one line however many numbers it
    /// holds, any other number a line of its own; at most `limit` lines. The one grouping every
    /// face shows (`pepper calls list`, the Calls screen, the app).
    public func callListLines(limit: Int = .max) throws(ActionError) -> CallListLines {
        do {
            let (groups, total) = try CallListStore(database: database).groups(limit: limit)
            return CallListLines(
                lines: groups.map { group in
                    CallListLine(
                        kind: group.kind, pattern: group.pattern,
                        number: PhoneNumber(callDirectoryValue: group.first)?.e164 ?? "+\(group.first)", numbers: group.count,
                        label: group.label)
                }, total: total)
        } catch {
            throw .storage("cannot read the call lists: \(error)")
        }
    }

    /// Imports numbers from a file's text: one number or `#` range per line, `NUMBER<TAB>LABEL`
    /// lines to the identification list and the others to the block list; blank lines and lines
    /// starting with `#` are skipped, and so are lines that are not numbers (reported). With
    /// `replace`, both lists become exactly the file's contents, in one transaction: a
    /// call-directory extension reading at the same time sees the old lists or the new ones.
    public func importCallList(
        _ text: String, region: String, cap: Int = NumberRange.defaultCap, replace: Bool = false
    ) throws(ActionError) -> CallListImport {
        let parser = try Self.numberParser(region: region)
        var blocking: [CallDirectoryEntry] = []
        var identification: [CallDirectoryEntry] = []
        var skipped: [CallListImport.SkippedLine] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: "\t", maxSplits: 1).map(String.init)
            let label = fields.count > 1 ? fields[1].trimmingCharacters(in: .whitespaces) : nil
            do {
                let input = try NumberInput(fields[0], label: label, parser: parser, cap: cap)
                if label != nil { identification += input.entries } else { blocking += input.entries }
            } catch {
                skipped.append(.init(line: index + 1, problem: .invalidNumber(input: error.text, problem: .notANumber(error.problem))))
            }
        }
        let store = CallListStore(database: database)
        let changes: [CallListStore.Change]
        do {
            if replace {
                blocking.sort { $0.number < $1.number }
                identification.sort { $0.number < $1.number }
                // Both lists in one transaction: a reader never sees new blocks with old labels.
                changes = [try store.replace([.blocking: blocking, .identification: identification])]
            } else {
                changes = [try store.add(.blocking, blocking), try store.add(.identification, identification)]
            }
        } catch {
            throw .storage("cannot change the call lists: \(error)")
        }
        return CallListImport(
            blocking: blocking.count, identification: identification.count, added: changes.map(\.added).reduce(0, +),
            removed: changes.map(\.removed).reduce(0, +), version: changes.map(\.version).max() ?? 0, skipped: skipped)
    }
}
