import CallFilter

/// A `CallDirectoryContext` that enforces CallKit's documented rules the way the system does when
/// it loads an extension: additions strictly ascending per list with no duplicates, removals only
/// in incremental loads, at most `maximumEntries` per list, exactly one completion, nothing after it.
///
/// Shared by the CallFilter tests (which drive the handler directly) and the Apple extension
/// tests (whose fake `CXCallDirectoryExtensionContext` forwards every call here).
public final class StrictCallDirectoryContext: CallDirectoryContext {
    /// A rule the load broke.
    public enum Violation: Error, Equatable {
        /// One of CallKit's entry rules (order, duplicates, removals, maximum).
        case callDirectory(CallDirectoryError)
        /// A call made after the request was completed or cancelled.
        case callAfterCompletion(String)
        /// A second completion or cancellation.
        case completedTwice
    }

    /// Whether the system kept the previous load.
    public let isIncremental: Bool
    /// The most entries per list the system accepts.
    public let maximumEntries: Int
    /// The blocking list as the system would hold it after the load.
    public private(set) var blocking: [Int64]
    /// The identification list as the system would hold it after the load.
    public private(set) var identification: [Int64: String]
    /// Every rule broken, in order.
    public private(set) var violations: [Violation] = []
    /// Whether `completeRequest` was called.
    public private(set) var completed = false
    /// The error of `cancelRequest`, if it was called.
    public private(set) var cancelledWith: (any Error)?
    private var lastBlockingAddition: Int64?
    private var lastIdentificationAddition: Int64?
    private var blockingAdditions = 0
    private var identificationAdditions = 0

    /// A context; an incremental one starts from `previous` (what the last load left).
    public init(
        isIncremental: Bool, previous: (blocking: [Int64], identification: [Int64: String]) = ([], [:]), maximumEntries: Int = 2_000_000
    ) {
        self.isIncremental = isIncremental
        self.maximumEntries = maximumEntries
        // A full load starts from nothing; an incremental one from what was loaded before.
        blocking = isIncremental ? previous.blocking : []
        identification = isIncremental ? previous.identification : [:]
    }

    private func check(_ name: String) -> Bool {
        if completed || cancelledWith != nil {
            violations.append(.callAfterCompletion(name))
            return false
        }
        return true
    }

    /// Records the call, checking CallKit's rules.
    public func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        guard check("addBlockingEntry") else { return }
        if let last = lastBlockingAddition {
            if phoneNumber == last { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
            if phoneNumber < last { violations.append(.callDirectory(.entriesOutOfOrder(previous: last, next: phoneNumber))) }
        }
        lastBlockingAddition = phoneNumber
        blockingAdditions += 1
        if blockingAdditions > maximumEntries { violations.append(.callDirectory(.maximumEntriesExceeded(maximum: maximumEntries))) }
        if blocking.contains(phoneNumber) && isIncremental {
            violations.append(.callDirectory(.duplicateEntries(phoneNumber)))
        }
        blocking.append(phoneNumber)
    }

    /// Records the call, checking CallKit's rules.
    public func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {
        guard check("removeBlockingEntry") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        blocking.removeAll { $0 == phoneNumber }
    }

    /// Records the call, checking CallKit's rules.
    public func removeAllBlockingEntries() {
        guard check("removeAllBlockingEntries") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        blocking.removeAll()
    }

    /// Records the call, checking CallKit's rules.
    public func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        guard check("addIdentificationEntry") else { return }
        if let last = lastIdentificationAddition {
            if phoneNumber == last { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
            if phoneNumber < last { violations.append(.callDirectory(.entriesOutOfOrder(previous: last, next: phoneNumber))) }
        }
        lastIdentificationAddition = phoneNumber
        identificationAdditions += 1
        if identificationAdditions > maximumEntries { violations.append(.callDirectory(.maximumEntriesExceeded(maximum: maximumEntries))) }
        if identification[phoneNumber] != nil && isIncremental { violations.append(.callDirectory(.duplicateEntries(phoneNumber))) }
        identification[phoneNumber] = label
    }

    /// Records the call, checking CallKit's rules.
    public func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {
        guard check("removeIdentificationEntry") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        identification[phoneNumber] = nil
    }

    /// Records the call, checking CallKit's rules.
    public func removeAllIdentificationEntries() {
        guard check("removeAllIdentificationEntries") else { return }
        guard isIncremental else { return violations.append(.callDirectory(.unexpectedIncrementalRemoval)) }
        identification.removeAll()
    }

    /// Records the call, checking CallKit's rules.
    public func completeRequest() {
        if completed || cancelledWith != nil { violations.append(.completedTwice) }
        completed = true
    }

    /// Records the call, checking CallKit's rules.
    public func cancelRequest(withError error: any Error) {
        if completed || cancelledWith != nil { violations.append(.completedTwice) }
        cancelledWith = error
    }

    /// The loaded blocking list, sorted (the order the system keeps).
    public var sortedBlocking: [Int64] { blocking.sorted() }
}
