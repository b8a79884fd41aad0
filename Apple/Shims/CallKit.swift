#if !canImport(ObjectiveC)
import Foundation

// CallKit's call-directory extension API (iOS), declared with Apple's names and signatures.

/// A phone number as CallKit takes it: the E.164 digits as an integer (`12539501212`).
public typealias CXCallDirectoryPhoneNumber = Int64

/// Told when the system could not load what an extension gave (CallKit's
/// `CXCallDirectoryExtensionContextDelegate`).
public protocol CXCallDirectoryExtensionContextDelegate: NSObjectProtocol {
    /// The load failed; the system keeps the previous entries.
    func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: any Error)
}

/// The request to load blocking and identification entries (CallKit's
/// `CXCallDirectoryExtensionContext`).
open class CXCallDirectoryExtensionContext: NSExtensionContext {
    /// Told about failed loads.
    open weak var delegate: (any CXCallDirectoryExtensionContextDelegate)?

    /// Whether the system kept the last load, so only changes may be given.
    open var isIncremental: Bool { false }

    /// Adds a blocking entry, greater than the previous one.
    open func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {}

    /// Removes a blocking entry (incremental loads only).
    open func removeBlockingEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {}

    /// Removes every blocking entry (incremental loads only).
    open func removeAllBlockingEntries() {}

    /// Adds an identification entry, greater than the previous one.
    open func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber, label: String) {}

    /// Removes an identification entry (incremental loads only).
    open func removeIdentificationEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {}

    /// Removes every identification entry (incremental loads only).
    open func removeAllIdentificationEntries() {}

    /// Ends the request; `completion` learns whether it expired first.
    open func completeRequest(completionHandler completion: (@Sendable (Bool) -> Void)? = nil) {}

    /// The async form Swift imports beside the completion-handler one (present on Apple
    /// platforms too, so a synchronous `completeRequest()` must coexist with it there as here).
    open func completeRequest() async -> Bool {
        await withCheckedContinuation { continuation in
            completeRequest { expired in continuation.resume(returning: expired) }
        }
    }
}

/// The principal class of a call-directory extension (CallKit's `CXCallDirectoryProvider`).
///
/// Apple's declares `beginRequest(with:)` for the context subclass while conforming to
/// `NSExtensionRequestHandling` (Objective-C allows the narrower parameter); Swift does not,
/// so this declaration leaves the conformance out.
open class CXCallDirectoryProvider: NSObject {
    /// A provider (the system makes it).
    public override init() {
        super.init()
    }

    /// The system asks for the entries.
    open func beginRequest(with context: CXCallDirectoryExtensionContext) {}
}
#endif
