#if !canImport(ObjectiveC)
@_spi(ShimTesting) import AppleShims
import CallFilter
import CallFilterTestSupport
import Foundation

/// A `CXCallDirectoryExtensionContext` that enforces CallKit's documented rules through
/// ``StrictCallDirectoryContext`` (ascending additions, no duplicates, removals only when
/// incremental, one completion), and behaves as the system does after `completeRequest`: a
/// load that broke a rule is refused through the delegate's `requestFailed(for:withError:)`.
public final class StrictCallDirectoryExtensionContext: CXCallDirectoryExtensionContext, @unchecked Sendable {
    /// The rules and the lists as the system holds them.
    public let rules: StrictCallDirectoryContext
    /// The errors the delegate was told about.
    public private(set) var reportedFailures: [String] = []
    /// Whether the system should refuse the load even if it broke no rule (a system error).
    public var refuseLoad = false

    /// A context; an incremental one starts from `previous`.
    public init(isIncremental: Bool, previous: (blocking: [Int64], identification: [Int64: String]) = ([], [:])) {
        rules = StrictCallDirectoryContext(isIncremental: isIncremental, previous: previous)
        super.init()
    }

    public override var isIncremental: Bool { rules.isIncremental }

    public override func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        rules.addBlockingEntry(withNextSequentialPhoneNumber: phoneNumber)
    }

    public override func removeBlockingEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        rules.removeBlockingEntry(withPhoneNumber: phoneNumber)
    }

    public override func removeAllBlockingEntries() {
        rules.removeAllBlockingEntries()
    }

    public override func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber, label: String) {
        rules.addIdentificationEntry(withNextSequentialPhoneNumber: phoneNumber, label: label)
    }

    public override func removeIdentificationEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        rules.removeIdentificationEntry(withPhoneNumber: phoneNumber)
    }

    public override func removeAllIdentificationEntries() {
        rules.removeAllIdentificationEntries()
    }

    public override func completeRequest(completionHandler completion: (@Sendable (Bool) -> Void)? = nil) {
        rules.completeRequest()
        completion?(false)
        if refuseLoad || !rules.violations.isEmpty {
            let error = RefusedLoad(violations: rules.violations.map { "\($0)" })
            reportedFailures.append(error.description)
            delegate?.requestFailed(for: self, withError: error)
        }
    }

    public override func cancelRequest(withError error: any Error) {
        rules.cancelRequest(withError: error)
    }
}

/// The error the fake system reports when it refuses a load.
public struct RefusedLoad: Error, CustomStringConvertible {
    /// The rules the load broke (none: a system failure).
    public var violations: [String]

    public var description: String { violations.isEmpty ? "the system failed to load the entries" : violations.joined(separator: "; ") }
}
#endif
