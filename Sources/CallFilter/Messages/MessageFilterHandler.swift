/// A message to classify, shaped like IdentityLookup's `ILMessageFilterQueryRequest`.
public struct MessageFilterQuery: Sendable, Hashable, Codable {
    /// The sender's phone number, short code or alphanumeric ID.
    public var sender: String?
    /// The message text.
    public var messageBody: String?
    /// The ISO country code of the receiving device's SIM (`US`), used to read national sender numbers.
    public var receiverISOCountryCode: String?

    /// A query.
    public init(sender: String?, messageBody: String?, receiverISOCountryCode: String? = nil) {
        self.sender = sender
        self.messageBody = messageBody
        self.receiverISOCountryCode = receiverISOCountryCode
    }
}

/// The answer, shaped like `ILMessageFilterQueryResponse`.
public struct MessageFilterResponse: Sendable, Hashable, Codable {
    /// The action (`allow`, `junk`, `promotion`, `transaction`).
    public var action: MessageAction
    /// The sub-action; `none`, or one belonging to ``action``.
    public var subAction: MessageSubAction

    /// A response.
    public init(action: MessageAction, subAction: MessageSubAction = .none) {
        self.action = action
        self.subAction = subAction
    }
}

/// The logic of a message-filter extension: answers each query from the stored rules, calls the
/// completion handler exactly once with an action and a matching sub-action, and reports each
/// decision so the app can count what was filtered.
///
/// The words are compiled once, when the handler is made: a handler is meant to be kept and
/// asked about many messages for as long as its rules are current.
public struct MessageFilterHandler: Sendable {
    private let defaultRegion: String?
    private let fallback: MessageFilter

    /// A handler; `defaultRegion` reads national sender numbers when the query has no receiver
    /// country; senders whose number is on `callBlockList` are junk.
    public init(rules: MessageFilterRules, defaultRegion: String? = "US", callBlockList: CallBlockList = .empty) throws(PhoneNumberError) {
        self.defaultRegion = defaultRegion
        self.fallback = MessageFilter(
            rules: rules, parser: try PhoneNumberParser(defaultRegion: defaultRegion), callBlockList: callBlockList)
    }

    /// The rules the handler answers with.
    public var rules: MessageFilterRules { fallback.rules }

    /// Classifies a query.
    public func verdict(for query: MessageFilterQuery) -> MessageVerdict {
        var filter = fallback
        if let country = query.receiverISOCountryCode, !country.isEmpty, country.uppercased() != defaultRegion,
            let parser = try? PhoneNumberParser(defaultRegion: country)
        {
            // The receiver's country reads national numbers; the compiled words are shared.
            filter = fallback.reading(with: parser)
        }
        return filter.classify(sender: query.sender, body: query.messageBody ?? "")
    }

    /// Answers `query` through `completion` (exactly once), as
    /// `ILMessageFilterQueryHandling.handle(_:context:completion:)` must; `record` sees each verdict.
    public func handle(
        _ query: MessageFilterQuery, record: (MessageFilterQuery, MessageVerdict) -> Void = { _, _ in },
        completion: (MessageFilterResponse) -> Void
    ) {
        let verdict = verdict(for: query)
        record(query, verdict)
        // A sub-action must belong to the action (IdentityLookup rejects a promotional sub-action on junk).
        let subAction = verdict.subAction.action == verdict.action ? verdict.subAction : .none
        completion(MessageFilterResponse(action: verdict.action, subAction: subAction))
    }
}
