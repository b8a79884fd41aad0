import CallFilter
import Foundation
import Storage

/// What the message-filter extension does with each message: read the rules from the shared
/// database without writing anything (iOS does not let a message filter write to shared
/// containers), and answer with the filter's verdict. A database that cannot be read lets the
/// message through: filing a wanted message as junk is worse than missing a junk one.
public struct MessageFilterLoad: Sendable {
    /// The shared container.
    public let container: AppGroupContainer

    /// The filter of `container`.
    public init(container: AppGroupContainer) {
        self.container = container
    }

    /// The answer to `query`, and the verdict with its reason when the rules could be read.
    public func answer(_ query: MessageFilterQuery) -> (response: MessageFilterResponse, verdict: MessageVerdict?) {
        guard let handler = try? handler() else { return (MessageFilterResponse(action: .allow), nil) }
        var answer = MessageFilterResponse(action: .allow)
        var verdict: MessageVerdict?
        handler.handle(query, record: { verdict = $1 }, completion: { answer = $0 })
        return (answer, verdict)
    }

    /// The answer to `query` from the container `locate` finds; without a container, allow.
    public static func answer(_ query: MessageFilterQuery, locating locate: () throws -> AppGroupContainer) -> MessageFilterResponse {
        guard let container = try? locate() else { return MessageFilterResponse(action: .allow) }
        return MessageFilterLoad(container: container).answer(query).response
    }

    /// The handler over the stored rules, read now.
    public func handler() throws -> MessageFilterHandler {
        let database = try PepperDatabase(readingOnly: container.databaseURL)
        let rules = try MessageRuleStore(database: database).rules()
        let region = try PreferenceStore(database: database).value(.phoneRegion) ?? "US"
        return try MessageFilterHandler(rules: rules, defaultRegion: region)
    }

    /// The sub-actions Pepper files messages under (what the extension tells the system it uses).
    public static let transactionalSubActions = MessageSubAction.allCases.filter { $0.action == .transaction }
    /// The promotional sub-actions Pepper files messages under.
    public static let promotionalSubActions = MessageSubAction.allCases.filter { $0.action == .promotion }
}

extension MessageAction {
    /// The raw value of IdentityLookup's `ILMessageFilterAction` for this action.
    public var identityLookupRawValue: Int {
        switch self {
        case .allow: 1
        case .junk: 2
        case .promotion: 3
        case .transaction: 4
        }
    }
}

extension MessageSubAction {
    /// The raw value of IdentityLookup's `ILMessageFilterSubAction` for this sub-action.
    public var identityLookupRawValue: Int {
        switch self {
        case .none: 0
        case .transactionalOthers: 10_000
        case .transactionalFinance: 10_001
        case .transactionalOrders: 10_002
        case .transactionalReminders: 10_003
        case .transactionalHealth: 10_004
        case .transactionalWeather: 10_005
        case .transactionalCarrier: 10_006
        case .transactionalRewards: 10_007
        case .transactionalPublicServices: 10_008
        case .promotionalOthers: 20_000
        case .promotionalOffers: 20_001
        case .promotionalCoupons: 20_002
        }
    }
}
