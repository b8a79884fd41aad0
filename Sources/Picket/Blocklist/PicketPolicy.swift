/// What Pepper does with a struck employer's domains (`pepper picket policy`), as the app
/// designs ask: the DNS filter and the browser read it; the content blocker follows it.
public enum PicketPolicy: String, Codable, Sendable, CaseIterable {
    /// Show the action and offer "Proceed anyway" (DNS block page, browser page). The content
    /// blocker, which cannot ask, blocks.
    case ask
    /// Block without asking.
    case block
    /// Let everything through; only log.
    case allow

    /// The policy of a fresh state.
    public static let `default` = PicketPolicy.ask

    /// Whether compiled content-blocker rules block the domains.
    public var blocksInContentBlocker: Bool { self != .allow }
}
