#if !canImport(ObjectiveC)
@_spi(ShimTesting) import AppleShims
import Foundation

/// An `NSExtensionContext` that enforces the app-extension rules as the system does: a request
/// ends exactly once, by `completeRequest(returningItems:completionHandler:)` or
/// `cancelRequest(withError:)`, and returns `NSExtensionItem`s.
public final class StrictExtensionContext: NSExtensionContext, @unchecked Sendable {
    /// The items returned, when the request completed.
    public private(set) var returnedItems: [NSExtensionItem]?
    /// The error, when the request was cancelled.
    public private(set) var cancelledWith: (any Error)?
    /// Every rule broken, in order.
    public private(set) var violations: [String] = []
    private var ends = 0

    /// A context for one request.
    public override init() {
        super.init()
    }

    public override func completeRequest(returningItems items: [Any]?, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        end("completeRequest")
        let extensionItems = (items ?? []).compactMap { $0 as? NSExtensionItem }
        if extensionItems.count != (items ?? []).count { violations.append("returned items that are not NSExtensionItems") }
        returnedItems = extensionItems
        completionHandler?(false)
    }

    public override func cancelRequest(withError error: any Error) {
        end("cancelRequest")
        cancelledWith = error
    }

    private func end(_ name: String) {
        ends += 1
        if ends > 1 { violations.append("\(name) after the request had ended") }
    }

    /// Whether the request ended exactly once.
    public var endedOnce: Bool { ends == 1 }

    /// The single attachment's file and type, when exactly one item with exactly one attachment
    /// was returned (what Safari takes from a content blocker); else `nil`, with a violation.
    public func singleAttachment() -> (url: URL, typeIdentifier: String)? {
        guard let items = returnedItems, items.count == 1, let attachments = items[0].attachments, attachments.count == 1 else {
            violations.append("expected one item with one attachment")
            return nil
        }
        let provider = attachments[0]
        guard let type = provider.registeredTypeIdentifiers.first else {
            violations.append("the attachment has no type")
            return nil
        }
        let url = Locked<URL?>(nil)
        _ = provider.loadFileRepresentation(forTypeIdentifier: type) { file, _ in url.withLock { $0 = file } }
        guard let file = url.current else {
            violations.append("the attachment's file cannot be loaded")
            return nil
        }
        return (file, type)
    }
}
#endif
