import ContentBlocker
import ContentBlockerSlots

extension ContentBlockerSlot {
    /// The list this slot serves, or `nil` when the output has fewer lists.
    public func list(in manifest: Manifest) -> Manifest.File? {
        list(in: manifest.files)
    }

    /// The lists of `manifest` no slot can serve.
    public static func unservedLists(of manifest: Manifest) -> [Manifest.File] {
        unservedLists(of: manifest.files)
    }
}

extension ContentBlockerAttachment {
    /// The rule list of an unused slot (`unusedSlotJSON`) as rules: what the content
    /// blocker's fixed JSON must decode to (AppleExtensionsTests holds the two together).
    public static let unusedSlotRules: [WebKitRule] = [
        WebKitRule(trigger: .init(urlFilter: "^pepper-unused-slot:"), action: .block)
    ]
}
