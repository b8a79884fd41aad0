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
            throw .invalidNumber(input: region, reason: "\(error) (use an ISO 3166 code such as US, GB or DE)")
        }
    }

    /// Reads a number or a `#` range as a person types it.
    public static func numberInput(
        _ text: String, label: String? = nil, region: String, cap: Int = NumberRange.defaultCap
    )
        throws(ActionError) -> NumberInput
    {
        let parser = try numberParser(region: region)
        do {
            return try NumberInput(text, label: label, parser: parser, cap: cap)
        } catch {
            throw .invalidNumber(input: error.text, reason: error.reason)
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
        guard !trimmed.isEmpty else { throw .invalidNumber(input: text, reason: "the label is empty") }
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
