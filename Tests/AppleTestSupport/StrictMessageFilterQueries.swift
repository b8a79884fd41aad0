#if !canImport(ObjectiveC)
@_spi(ShimTesting) import AppleShims
import CallFilter
import CallFilterTestSupport
import Foundation

/// Sends queries to a message-filter extension as the system does and enforces IdentityLookup's
/// rules through ``StrictMessageFilterCompletion``: every query answered exactly once, a
/// sub-action only with its action; an action outside Pepper's four counts as broken too.
public enum StrictMessageFilterQueries {
    /// One query's outcome.
    public struct Answer {
        /// The response, as Pepper's model.
        public var response: MessageFilterResponse?
        /// Every rule broken.
        public var violations: [String]
    }

    /// Asks `handler` about one message.
    public static func ask(
        _ handler: some ILMessageFilterQueryHandling, sender: String?, body: String?, country: String? = nil
    ) -> Answer {
        let request = ILMessageFilterQueryRequest(sender: sender, messageBody: body, receiverISOCountryCode: country)
        let received = Locked<[ILMessageFilterQueryResponse]>([])
        handler.handle(request, context: ILMessageFilterExtensionContext()) { response in received.withLock { $0.append(response) } }
        let strict = StrictMessageFilterCompletion()
        var violations: [String] = []
        for response in received.current {
            guard let action = MessageAction.allCases.first(where: { $0.identityLookupRawValueForTests == response.action.rawValue }),
                let subAction = MessageSubAction.allCases.first(where: { $0.identityLookupRawValueForTests == response.subAction.rawValue })
            else {
                violations.append("response \(response.action) / \(response.subAction) is not one Pepper gives")
                continue
            }
            strict.complete(MessageFilterResponse(action: action, subAction: subAction))
        }
        strict.finish()
        return Answer(response: strict.responses.first, violations: strict.violations + violations)
    }
}

extension MessageAction {
    /// IdentityLookup's raw values (ILMessageFilterAction.h), written out independently of the
    /// code under test.
    fileprivate var identityLookupRawValueForTests: Int {
        ["allow": 1, "junk": 2, "promotion": 3, "transaction": 4][rawValue]!
    }
}

extension MessageSubAction {
    /// IdentityLookup's raw values (ILMessageFilterAction.h), written out independently.
    fileprivate var identityLookupRawValueForTests: Int {
        let values = [
            "none": 0, "transactionalOthers": 10000, "transactionalFinance": 10001, "transactionalOrders": 10002,
            "transactionalReminders": 10003, "transactionalHealth": 10004, "transactionalWeather": 10005, "transactionalCarrier": 10006,
            "transactionalRewards": 10007, "transactionalPublicServices": 10008, "promotionalOthers": 20000, "promotionalOffers": 20001,
            "promotionalCoupons": 20002,
        ]
        return values[rawValue]!
    }
}
#endif
