import CallFilter

/// Enforces IdentityLookup's rules for `ILMessageFilterQueryHandling.handle(_:context:completion:)`
/// as the system does: the completion handler is called exactly once, and a response's sub-action
/// is `none` or one that belongs to its action (a promotional sub-action only with `promotion`,
/// a transactional one only with `transaction`).
public final class StrictMessageFilterCompletion {
    /// Every response given, in order.
    public private(set) var responses: [MessageFilterResponse] = []
    /// Every rule broken, in order.
    public private(set) var violations: [String] = []

    /// A completion expecting one response.
    public init() {}

    /// The completion handler to pass to the handler.
    public func complete(_ response: MessageFilterResponse) {
        if !responses.isEmpty { violations.append("completion called more than once") }
        if response.subAction != .none, response.subAction.action != response.action {
            violations.append("sub-action \(response.subAction) does not belong to action \(response.action)")
        }
        responses.append(response)
    }

    /// Called when `handle` returns: a query left unanswered is a violation.
    public func finish() {
        if responses.isEmpty { violations.append("completion never called") }
    }
}
