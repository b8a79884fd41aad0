import AppExtensionSupport
import CallFilter
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#elseif os(iOS)
import CallKit
#endif

// CXCallDirectoryProvider is iOS-only (macOS has CallKit without it).
#if os(iOS) || !canImport(ObjectiveC)

// CallKit's context is what CallFilter's handler drives: the same calls, plus the bridge below
// for the one CallKit spells with an optional completion handler. (`@retroactive` where CallKit
// is Apple's; here the declarations are in this package, where the attribute is refused.)
#if canImport(ObjectiveC)
extension CXCallDirectoryExtensionContext: @retroactive CallDirectoryContext {}
#else
extension CXCallDirectoryExtensionContext: CallDirectoryContext {}
#endif

extension CXCallDirectoryExtensionContext {
    /// Ends the load (CallKit's `completeRequest(completionHandler:)` without a handler).
    public func completeRequest() { completeRequest(completionHandler: nil) }
}

/// The call-directory extension: when the system asks (the app calls
/// `CXCallDirectoryManager.reloadExtension`), loads the shared block and identification lists.
/// `CallDirectoryLoad` decides everything: full or incremental, ascending and in chunks, and
/// when the checkpoint moves.
public final class CallDirectoryExtensionHandler: CXCallDirectoryProvider, CXCallDirectoryExtensionContextDelegate {
    private let locate: () throws -> AppGroupContainer
    private var load: CallDirectoryLoad?

    /// The extension as the system makes it: its app group comes from its bundle.
    public override init() {
        locate = { try AppGroupContainer.current() }
        super.init()
    }

    /// The extension over `container` (tests).
    public init(container: AppGroupContainer) {
        locate = { container }
        super.init()
    }

    /// The system asks for the entries.
    public override func beginRequest(with context: CXCallDirectoryExtensionContext) {
        context.delegate = self
        do {
            let load = CallDirectoryLoad(container: try locate())
            self.load = load
            load.run(into: context)
        } catch {
            context.cancelRequest(withError: error)
        }
    }

    /// The system refused what it was given: the next load starts over.
    public func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: any Error) {
        load?.systemRejectedLoad()
    }
}

#endif
