import FilterLists

/// Maps Adblock Plus request types to WebKit `resource-type` / `load-context` triggers.
enum ResourceTypeMapping {
    /// One trigger's worth of types.
    struct Target: Hashable {
        var types: [WebKitResourceType]
        var loadContext: WebKitRule.LoadContext?
    }

    private static let everyType = [Target(types: [], loadContext: nil)]

    /// The WebKit type sets for a rule's types; more than one when frames are mixed with other
    /// types (`$subdocument` is WebKit's `document` in a child frame, and `load-context` applies
    /// to the whole trigger). An empty `types` array means "every type".
    static func targets(for types: ResourceTypes, explicit: Bool) -> [Target] {
        // Without type options a rule covers all subresources; WebKit's closest cheap form is
        // "every type", which also covers the top-level document (see docs/conversion.md).
        guard explicit else { return everyType }
        var subresources: [WebKitResourceType] = []
        if types.contains(.script) { subresources.append(.script) }
        if types.contains(.image) { subresources.append(.image) }
        if types.contains(.stylesheet) { subresources.append(.styleSheet) }
        if types.contains(.font) { subresources.append(.font) }
        if types.contains(.media) { subresources.append(.media) }
        if types.contains(.xmlHTTPRequest) { subresources.append(.fetch) }
        if types.contains(.websocket) { subresources.append(.websocket) }
        if types.contains(.ping) { subresources.append(.ping) }
        if types.contains(.popup) { subresources.append(.popup) }
        if !types.intersection([.other, .object]).isEmpty { subresources.append(.other) }

        let frames = types.contains(.subdocument)
        let document = types.contains(.document)
        var targets: [Target] = []
        switch (frames, document) {
        case (true, true):
            subresources.append(.document)
        case (false, true):
            // The page itself; `top-frame` would also limit any subresource types to the top
            // frame, so the document gets a trigger of its own.
            targets.append(Target(types: [.document], loadContext: .topFrame))
        case (true, false):
            targets.append(Target(types: [.document], loadContext: .childFrame))
        case (false, false):
            break
        }
        if !subresources.isEmpty { targets.insert(Target(types: subresources.sorted(), loadContext: nil), at: 0) }
        return targets
    }
}
