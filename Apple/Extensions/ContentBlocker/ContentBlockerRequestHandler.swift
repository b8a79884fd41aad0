import ContentBlockerSlots
import Foundation
import PepperFiles

#if !canImport(ObjectiveC)
import AppleShims
#endif

/// Safari's content-blocker extension (one target per slot, this same file): hands Safari the
/// rule list of its slot from the shared container. Which file that is, is
/// `ContentBlockerAttachment`'s decision; this class only wraps it in an extension item. It
/// imports the two small modules of PepperBlockerKit only (no database, no compiler).
public final class ContentBlockerRequestHandler: NSObject, NSExtensionRequestHandling {
    private let locate: () throws -> (container: AppGroupContainer, slot: ContentBlockerSlot)

    /// The extension as the system makes it: its app group and slot come from its bundle.
    public override init() {
        locate = { (try AppGroupContainer.current(), try ContentBlockerSlot.current()) }
        super.init()
    }

    /// The extension of `slot` over `container` (tests).
    public init(container: AppGroupContainer, slot: ContentBlockerSlot) {
        locate = { (container, slot) }
        super.init()
    }

    /// Safari asks for the rule list.
    public func beginRequest(with context: NSExtensionContext) {
        do {
            let (container, slot) = try locate()
            let file = try ContentBlockerAttachment.file(for: slot, in: container)
            guard let attachment = NSItemProvider(contentsOf: file) else { throw CocoaError(.fileReadNoSuchFile) }
            let item = NSExtensionItem()
            item.attachments = [attachment]
            context.completeRequest(returningItems: [item], completionHandler: nil)
        } catch {
            context.cancelRequest(withError: error)
        }
    }
}
