import AppExtensionSupport
import CallFilter
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#elseif os(iOS)
import IdentityLookup
#endif

// ILMessageFilterExtension is iOS-only.
#if os(iOS) || !canImport(ObjectiveC)

/// The message-filter extension ("Unknown & Spam" in Settings › Messages): answers each query
/// with `MessageFilterLoad`'s verdict — the shared rules read without writing to the database,
/// prepared once per rule revision for the whole process — and counts it in the app group's
/// counts file (`MessageFilterCounts`), which the app's Info screen shows.
public final class MessageFilterExtension: ILMessageFilterExtension {
    private let locate: () throws -> AppGroupContainer

    /// The extension as the system makes it: its app group comes from its bundle.
    public override init() {
        locate = { try AppGroupContainer.current() }
        super.init()
    }

    /// The extension over `container` (tests).
    public init(container: AppGroupContainer) {
        locate = { container }
        super.init()
    }
}

extension MessageFilterExtension: ILMessageFilterQueryHandling, ILMessageFilterCapabilitiesQueryHandling {
    /// Classifies one message (offline: no network deferral).
    public func handle(
        _ queryRequest: ILMessageFilterQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterQueryResponse) -> Void
    ) {
        let query = MessageFilterQuery(
            sender: queryRequest.sender, messageBody: queryRequest.messageBody, receiverISOCountryCode: queryRequest.receiverISOCountryCode)
        let answer = MessageFilterLoad.answer(query, locating: locate)
        let response = ILMessageFilterQueryResponse()
        response.action = ILMessageFilterAction(rawValue: answer.action.identityLookupRawValue) ?? .none
        response.subAction = ILMessageFilterSubAction(rawValue: answer.subAction.identityLookupRawValue) ?? .none
        completion(response)
    }

    /// Tells the system which folders Pepper files messages in.
    public func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest, context: ILMessageFilterExtensionContext,
        completion: @escaping @Sendable (ILMessageFilterCapabilitiesQueryResponse) -> Void
    ) {
        let response = ILMessageFilterCapabilitiesQueryResponse()
        response.transactionalSubActions = MessageFilterLoad.transactionalSubActions.compactMap {
            ILMessageFilterSubAction(rawValue: $0.identityLookupRawValue)
        }
        response.promotionalSubActions = MessageFilterLoad.promotionalSubActions.compactMap {
            ILMessageFilterSubAction(rawValue: $0.identityLookupRawValue)
        }
        completion(response)
    }
}

#endif
