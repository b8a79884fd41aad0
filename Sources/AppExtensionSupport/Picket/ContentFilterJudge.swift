import Foundation
import Picket

/// What the content-filter extension (`NEFilterDataProvider`, for managed and supervised
/// devices) does with each new network flow, decided through the same ``PicketDNSGate`` and
/// policy as the packet tunnel: a flow to a struck employer's site is dropped under `block`
/// and `ask`; everything else is allowed.
///
/// A filter-data provider runs in a sandbox that keeps it from reaching the person (no network,
/// no writes, no notifications), so under `ask` the first flow to an employer within
/// ``askInterval`` is handed to the filter control provider (``Verdict/ask(employerId:)``: the
/// data provider answers `needRules`), which drops it and posts the question naming the app
/// (``FilterControl``); later flows to that employer are dropped without asking again. Flows
/// from Pepper itself (its app and extensions: their signing identifiers end in the app's
/// bundle identifier) are never filtered: the app must reach its Picket server and list
/// downloads.
///
/// Thread-safe: the provider calls it from the system's filter queue.
public final class ContentFilterJudge: Sendable {
    /// One flow as the provider sees it.
    public struct Flow: Sendable, Hashable {
        /// The host the flow goes to (`NEFilterSocketFlow.remoteHostname`), when known.
        public var host: String?
        /// The URL (browser flows: `NEFilterFlow.url`), when known.
        public var url: String?
        /// The app that opened it (`NEFilterFlow.sourceAppIdentifier`: its signing identifier,
        /// `TEAMID.bundle.id`), when known.
        public var sourceApp: String?

        /// A flow to `host` or `url` from `sourceApp`.
        public init(host: String?, url: String?, sourceApp: String?) {
            self.host = host
            self.url = url
            self.sourceApp = sourceApp
        }
    }

    /// What to do with a flow.
    public enum Verdict: Sendable, Hashable {
        /// Let it through.
        case allow
        /// Drop it: a struck employer's site under `block`, or under `ask` when the person was
        /// asked about the employer within ``ContentFilterJudge/askInterval``.
        case drop(employerId: String)
        /// Hand it to the filter control provider, which drops it and asks the person (`ask`).
        case ask(employerId: String)
    }

    private struct State {
        var inputs: PicketGateInputs
        var gate = PicketDNSGate.open
        var loadedAt: Date?
        var dropsByApp: [String: Int] = [:]
        var lastAsked: [String: Date] = [:]
    }

    private let state: LockedState<State>
    private let ownBundleIdentifier: String
    private let reloadInterval: TimeInterval
    private let clock: @Sendable () -> Date
    /// How long after asking about an employer the person is asked again (as the tunnel).
    public let askInterval: TimeInterval

    /// A judge over the shared state of `container`, for the app whose bundle identifier is
    /// `ownBundleIdentifier`; the state is looked at again every `reloadInterval` seconds.
    public convenience init(
        container: AppGroupContainer, ownBundleIdentifier: String, reloadInterval: TimeInterval = 30, askInterval: TimeInterval = 600,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            inputs: PicketGateInputs(container: container), ownBundleIdentifier: ownBundleIdentifier, reloadInterval: reloadInterval,
            askInterval: askInterval, clock: clock)
    }

    /// A judge over `inputs` (the filter control provider's, over the database it writes).
    init(
        inputs: PicketGateInputs, ownBundleIdentifier: String, reloadInterval: TimeInterval, askInterval: TimeInterval,
        clock: @escaping @Sendable () -> Date
    ) {
        state = LockedState(State(inputs: inputs))
        self.ownBundleIdentifier = ownBundleIdentifier
        self.reloadInterval = reloadInterval
        self.askInterval = askInterval
        self.clock = clock
    }

    /// The verdict for `flow`.
    public func verdict(for flow: Flow) -> Verdict {
        guard let host = Self.host(of: flow) else { return .allow }
        if let app = flow.sourceApp, isPepper(app) { return .allow }
        let now = clock()
        return state.withLock { state in
            if state.loadedAt.map({ now.timeIntervalSince($0) >= reloadInterval }) ?? true {
                state.loadedAt = now
                state.gate = state.inputs.gate(clock: clock)
            }
            switch state.gate.decision(forHost: host) {
            case .forward: return .allow
            case .block(let notice):
                state.dropsByApp[flow.sourceApp ?? "unknown", default: 0] += 1
                return .drop(employerId: notice.employerId)
            case .ask(let notice):
                state.dropsByApp[flow.sourceApp ?? "unknown", default: 0] += 1
                let due = state.lastAsked[notice.employerId].map { now.timeIntervalSince($0) >= askInterval } ?? true
                guard due else { return .drop(employerId: notice.employerId) }
                state.lastAsked[notice.employerId] = now
                return .ask(employerId: notice.employerId)
            }
        }
    }

    /// What the shared state decides for `flow`'s host now (the filter control provider's
    /// look at a flow it was handed): `nil` for a flow without a host or from Pepper itself.
    public func decision(for flow: Flow) -> PicketDNSGate.Decision? {
        guard let host = Self.host(of: flow) else { return nil }
        if let app = flow.sourceApp, isPepper(app) { return nil }
        let now = clock()
        return state.withLock { state in
            if state.loadedAt.map({ now.timeIntervalSince($0) >= reloadInterval }) ?? true {
                state.loadedAt = now
                state.gate = state.inputs.gate(clock: clock)
            }
            return state.gate.decision(forHost: host)
        }
    }

    /// Reads the shared state again at the next flow (the app changed the policy or allowlist).
    public func reloadNow() {
        state.withLock { $0.loadedAt = nil }
    }

    /// Flows dropped so far, by the app that opened them.
    public var dropsByApp: [String: Int] { state.withLock { $0.dropsByApp } }

    /// Whether `app` is Pepper or one of its extensions.
    func isPepper(_ app: String) -> Bool {
        // `TEAMID.org.pepper.Pepper` or `TEAMID.org.pepper.Pepper.PacketTunnel`.
        let parts = app.split(separator: ".", maxSplits: 1).map(String.init)
        let bundle = parts.count == 2 ? parts[1] : app
        return [bundle, app].contains { $0 == ownBundleIdentifier || $0.hasPrefix(ownBundleIdentifier + ".") }
    }

    /// The flow's host, lower case without a final dot: the socket's host name, else the URL's.
    static func host(of flow: Flow) -> String? {
        let raw = flow.host ?? flow.url.flatMap { URL(string: $0)?.host }
        guard var host = raw?.lowercased(), !host.isEmpty else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// A value behind a lock, for the few types the system calls synchronously from its own threads
/// (extensions here; the app's database suspension in AppSupport). (`NSLock`: `Mutex` needs iOS 18.)
package final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
