#if !canImport(ObjectiveC)
import Foundation

// IdentityLookup's message-filter extension API (iOS), declared with Apple's names, signatures
// and raw values (ILMessageFilterAction.h).

/// What the system does with a message.
public enum ILMessageFilterAction: Int, Sendable {
    /// Not enough information: shown normally.
    case none = 0
    /// Shown normally.
    case allow = 1
    /// Filed as junk.
    case junk = 2
    /// Filed under promotions.
    case promotion = 3
    /// Filed under transactions.
    case transaction = 4
}

/// The folder within promotions or transactions (iOS 16).
public enum ILMessageFilterSubAction: Int, Sendable {
    /// No folder.
    case none = 0
    /// Transactions: other.
    case transactionalOthers = 10000
    /// Transactions: finance.
    case transactionalFinance = 10001
    /// Transactions: orders.
    case transactionalOrders = 10002
    /// Transactions: reminders.
    case transactionalReminders = 10003
    /// Transactions: health.
    case transactionalHealth = 10004
    /// Transactions: weather.
    case transactionalWeather = 10005
    /// Transactions: carrier.
    case transactionalCarrier = 10006
    /// Transactions: rewards.
    case transactionalRewards = 10007
    /// Transactions: public services.
    case transactionalPublicServices = 10008
    /// Promotions: other.
    case promotionalOthers = 20000
    /// Promotions: offers.
    case promotionalOffers = 20001
    /// Promotions: coupons.
    case promotionalCoupons = 20002
}

/// A message from an unknown sender to classify.
open class ILMessageFilterQueryRequest: NSObject {
    /// The sender.
    open private(set) var sender: String?
    /// The text.
    open private(set) var messageBody: String?
    /// The receiving phone number's ISO country code (iOS 16).
    open private(set) var receiverISOCountryCode: String?

    /// A request as the system would send it (tests only: on iOS only the system makes them).
    @_spi(ShimTesting) public init(sender: String?, messageBody: String?, receiverISOCountryCode: String?) {
        self.sender = sender
        self.messageBody = messageBody
        self.receiverISOCountryCode = receiverISOCountryCode
        super.init()
    }
}

/// The answer to a query.
open class ILMessageFilterQueryResponse: NSObject {
    /// What to do with the message.
    open var action: ILMessageFilterAction = .none
    /// Where to file it (iOS 16).
    open var subAction: ILMessageFilterSubAction = .none

    /// A response that does nothing yet.
    public override init() {
        super.init()
    }
}

/// The system's question of which sub-actions the extension uses (iOS 16).
open class ILMessageFilterCapabilitiesQueryRequest: NSObject {
    /// A request (tests only: on iOS only the system makes them).
    @_spi(ShimTesting) public override init() {
        super.init()
    }
}

/// Which sub-actions the extension uses (iOS 16).
open class ILMessageFilterCapabilitiesQueryResponse: NSObject {
    /// The transactional folders.
    public final var transactionalSubActions: [ILMessageFilterSubAction] = []
    /// The promotional folders.
    public final var promotionalSubActions: [ILMessageFilterSubAction] = []

    /// An empty response.
    public override init() {
        super.init()
    }
}

/// The request context of a message-filter extension.
open class ILMessageFilterExtensionContext: NSExtensionContext {}

/// The principal class of a message-filter extension.
open class ILMessageFilterExtension: NSObject {
    /// An extension (the system makes it).
    public override init() {
        super.init()
    }
}

// Each requirement comes in the completion-handler and the `async` form, as Swift imports the
// Objective-C protocol; a conforming class implements either. Here each form's default calls
// the other, and the system (a test) calls the completion-handler form.

/// A message-filter extension that answers queries offline.
public protocol ILMessageFilterQueryHandling: NSObjectProtocol {
    /// Classifies a message; `completion` must be called exactly once.
    func handle(
        _ queryRequest: ILMessageFilterQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterQueryResponse) -> Void)

    /// Classifies a message.
    func handle(_ queryRequest: ILMessageFilterQueryRequest, context: ILMessageFilterExtensionContext) async -> ILMessageFilterQueryResponse
}

extension ILMessageFilterQueryHandling {
    public func handle(
        _ queryRequest: ILMessageFilterQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterQueryResponse) -> Void
    ) {
        let call = ShimTransfer(value: (self as any ILMessageFilterQueryHandling, queryRequest, context))
        Task { completion(await call.value.0.handle(call.value.1, context: call.value.2)) }
    }

    public func handle(
        _ queryRequest: ILMessageFilterQueryRequest, context: ILMessageFilterExtensionContext
    ) async -> ILMessageFilterQueryResponse {
        let answer = await withCheckedContinuation {
            (continuation: CheckedContinuation<ShimTransfer<ILMessageFilterQueryResponse>, Never>) in
            handle(queryRequest, context: context) { continuation.resume(returning: ShimTransfer(value: $0)) }
        }
        return answer.value
    }
}

/// A message-filter extension that files messages in sub-folders (iOS 16).
public protocol ILMessageFilterCapabilitiesQueryHandling: NSObjectProtocol {
    /// Says which sub-actions the extension uses.
    func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterCapabilitiesQueryResponse) -> Void)

    /// Says which sub-actions the extension uses.
    func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest, context: ILMessageFilterExtensionContext
    ) async -> ILMessageFilterCapabilitiesQueryResponse
}

extension ILMessageFilterCapabilitiesQueryHandling {
    public func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterCapabilitiesQueryResponse) -> Void
    ) {
        let call = ShimTransfer(value: (self as any ILMessageFilterCapabilitiesQueryHandling, capabilitiesQueryRequest, context))
        Task { completion(await call.value.0.handle(call.value.1, context: call.value.2)) }
    }

    public func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest, context: ILMessageFilterExtensionContext
    ) async -> ILMessageFilterCapabilitiesQueryResponse {
        let answer = await withCheckedContinuation {
            (continuation: CheckedContinuation<ShimTransfer<ILMessageFilterCapabilitiesQueryResponse>, Never>) in
            handle(capabilitiesQueryRequest, context: context) { continuation.resume(returning: ShimTransfer(value: $0)) }
        }
        return answer.value
    }
}

#endif
