import CallFilter
import Foundation
import Storage

/// What the message-filter extension does with each message: read the rules from the shared
/// database without writing to it (iOS does not let a message filter write to shared
/// containers' databases), answer with the filter's verdict, and count it in a small file of
/// its own (``MessageFilterCounts``). A database that cannot be read lets the message through:
/// filing a wanted message as junk is worse than missing a junk one.
///
/// The rules are prepared (read, and the words compiled) once per rule revision
/// (``MessageRuleStore/revision()``): each message costs one row read to see that they are
/// still current, plus a lookup of the sender in the call block list.
public struct MessageFilterLoad: Sendable {
    /// The shared container.
    public let container: AppGroupContainer
    private let prepared: PreparedRules

    /// The filter of `container`, with rules of its own (prepared on the first message).
    public init(container: AppGroupContainer) {
        self.container = container
        prepared = PreparedRules()
    }

    /// The process's filter of `container`: the one every query of this process uses, so the
    /// rules are prepared once however often the system makes a new extension object.
    public static func shared(_ container: AppGroupContainer) -> MessageFilterLoad {
        registry.withLock { loads in
            if let load = loads[container] { return load }
            let load = MessageFilterLoad(container: container)
            loads[container] = load
            return load
        }
    }

    private static let registry = LockedValue<[AppGroupContainer: MessageFilterLoad]>([:])

    /// The answer to `query`, and the verdict with its reason when the rules could be read.
    public func answer(_ query: MessageFilterQuery) -> (response: MessageFilterResponse, verdict: MessageVerdict?) {
        guard let handler = try? handler() else { return (MessageFilterResponse(action: .allow), nil) }
        var answer = MessageFilterResponse(action: .allow)
        var verdict: MessageVerdict?
        handler.handle(query, record: { verdict = $1 }, completion: { answer = $0 })
        return (answer, verdict)
    }

    /// The answer to `query` from the container `locate` finds, counted in its
    /// ``MessageFilterCounts`` file; without a container, allow (and nothing is counted).
    public static func answer(_ query: MessageFilterQuery, locating locate: () throws -> AppGroupContainer) -> MessageFilterResponse {
        guard let container = try? locate() else { return MessageFilterResponse(action: .allow) }
        let load = shared(container)
        let answer = load.answer(query)
        // Counting never holds up or changes the answer; a refused write leaves the counts as they were.
        try? load.count(answer.verdict)
        return answer.response
    }

    /// Adds `verdict` (nil: the rules could not be read) to the counts file.
    public func count(_ verdict: MessageVerdict?) throws {
        try prepared.lock.withLock { _ in
            try MessageFilterCounts.add(verdict, at: container.messageFilterCountsURL)
        }
    }

    /// The handler over the stored rules: the prepared one while the rules' revision is the
    /// same, else read and prepared now.
    public func handler() throws -> MessageFilterHandler {
        try prepared.lock.withLock { current in
            let database = try current.database ?? PepperDatabase(readingOnly: container.databaseURL)
            do {
                let revision = try MessageRuleStore(database: database).revision()
                if let kept = current.handler, current.revision == revision { return kept }
                let rules = try MessageRuleStore(database: database).rules()
                let region = try PreferenceStore(database: database).value(.phoneRegion) ?? "US"
                let handler = try MessageFilterHandler(
                    rules: rules, defaultRegion: region, callBlockList: CallListStore(database: database).blockList())
                current = PreparedRules.State(
                    database: database, revision: revision, handler: handler, preparations: current.preparations + 1)
                return handler
            } catch {
                // Opened again next time: the database may have been replaced.
                current = PreparedRules.State(preparations: current.preparations)
                throw error
            }
        }
    }

    /// How many times the rules were prepared (tests and `pepper-bench`: once per revision).
    public var preparations: Int { prepared.lock.withLock { $0.preparations } }

    /// The sub-actions Pepper files messages under (what the extension tells the system it uses).
    public static let transactionalSubActions = MessageSubAction.allCases.filter { $0.action == .transaction }
    /// The promotional sub-actions Pepper files messages under.
    public static let promotionalSubActions = MessageSubAction.allCases.filter { $0.action == .promotion }
}

/// The rules a ``MessageFilterLoad`` prepared, with the revision they were read at.
private final class PreparedRules: Sendable {
    struct State: Sendable {
        var database: PepperDatabase?
        var revision: Int64 = 0
        var handler: MessageFilterHandler?
        var preparations = 0
    }

    let lock = LockedValue(State())
}

/// A value behind a lock (Foundation's `NSLock`: `Mutex` needs iOS 18).
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
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
