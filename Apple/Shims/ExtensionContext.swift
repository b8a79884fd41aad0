#if !canImport(ObjectiveC)
import Foundation

// Foundation's app-extension types, which Apple platforms have and swift-corelibs-foundation
// does not: declared with Apple's names and signatures so that Apple/Extensions compiles on
// Linux. They do nothing on their own; the strict fakes in AppleTestSupport subclass them.

/// The principal class of an app extension (Foundation's `NSExtensionRequestHandling`).
public protocol NSExtensionRequestHandling: NSObjectProtocol {
    /// The host app's request begins.
    func beginRequest(with context: NSExtensionContext)
}

/// The host's request to an extension (Foundation's `NSExtensionContext`).
open class NSExtensionContext: NSObject {
    /// A context (the system makes them; tests make fakes).
    public override init() {
        super.init()
    }

    /// The items the host sent.
    open var inputItems: [Any] { [] }

    /// Ends the request with `items` (``NSExtensionItem``s).
    open func completeRequest(returningItems items: [Any]?, completionHandler: (@Sendable (Bool) -> Void)? = nil) {}

    /// Ends the request with an error.
    open func cancelRequest(withError error: any Error) {}
}

/// An item handed between an extension and its host (Foundation's `NSExtensionItem`).
open class NSExtensionItem: NSObject {
    /// The item's attachments.
    open var attachments: [NSItemProvider]?

    /// An empty item.
    public override init() {
        super.init()
    }
}

/// Data handed over lazily (Foundation's `NSItemProvider`); here only the file-backed kind.
open class NSItemProvider: NSObject {
    private let fileURL: URL?

    /// An empty provider.
    public override init() {
        fileURL = nil
        super.init()
    }

    /// A provider of a file's contents, typed by the file's extension; `nil` without a file URL.
    public convenience init?(contentsOf fileURL: URL!) {
        guard let fileURL, fileURL.isFileURL else { return nil }
        self.init(file: fileURL)
    }

    private init(file: URL) {
        fileURL = file
        super.init()
    }

    /// The uniform type identifiers of what the provider holds (`public.json` for a `.json` file).
    open var registeredTypeIdentifiers: [String] {
        guard let fileURL else { return [] }
        return [fileURL.pathExtension.lowercased() == "json" ? "public.json" : "public.data"]
    }

    /// Hands over the file of type `typeIdentifier`.
    open func loadFileRepresentation(
        forTypeIdentifier typeIdentifier: String, completionHandler: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) -> Progress {
        let progress = Progress(totalUnitCount: 1)
        if let fileURL, registeredTypeIdentifiers.contains(typeIdentifier) {
            completionHandler(fileURL, nil)
        } else {
            completionHandler(nil, CocoaError(.fileReadNoSuchFile))
        }
        progress.completedUnitCount = 1
        return progress
    }
}
#endif
