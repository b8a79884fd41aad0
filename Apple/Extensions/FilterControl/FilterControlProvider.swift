import AppExtensionSupport
import Foundation
import PepperActions

#if !canImport(ObjectiveC)
import AppleShims
#else
import NetworkExtension
#endif

/// The content filter's control provider, the half of Apple's content-filter design that may
/// reach the network, write to the shared container and notify: it keeps the Picket blocklist
/// the data provider (`FilterDataProvider`) reads up to date and tells it when it changed, and
/// asks the person about the flows the data provider hands over under `ask`, naming the app.
/// `FilterControl` decides all of it; this class only turns flows and verdicts into
/// NetworkExtension's.
public final class FilterControlProvider: NEFilterControlProvider {
    private let makeControl: () throws -> FilterControl
    // NetworkExtension calls start, stop and handleNewFlow on threads of its own: what start sets
    // and stop clears is read and written under a lock.
    private let running = RunningControl()

    /// The provider as the system makes it: its app group comes from its bundle, the app's
    /// bundle identifier is the extension's without its last part, questions become
    /// notifications, and the Picket lists' keys come from the Keychain group it shares with
    /// the app (`KeychainKeyStore`, compiled into this extension from `Apple/Keychain`). It
    /// writes to the shared database only while it refreshes: the rest of the time the database
    /// is suspended (an extension is never in front, hence `inBackground`).
    public override init() {
        makeControl = {
            let own = Bundle.main.bundleIdentifier.map { $0.split(separator: ".").dropLast().joined(separator: ".") } ?? ""
            return FilterControl(
                container: try AppGroupContainer.current(), ownBundleIdentifier: own, notifier: NotificationAsker(),
                picketKeys: FilterControlProvider.keyStore(), suspension: FilterControlProvider.suspension)
        }
        super.init()
    }

    /// The process's one suspension (it is process-wide; a restarted filter keeps it).
    private static let suspension = SharedDatabaseSuspension(inBackground: true)

    #if canImport(ObjectiveC)
    private static func keyStore() -> (any PicketKeyStore)? { KeychainKeyStore() }
    #else
    // Linux compiles this class against the shims, without the Keychain: the shared preferences.
    private static func keyStore() -> (any PicketKeyStore)? { nil }
    #endif

    /// A provider over `control` (tests).
    public init(control: FilterControl) {
        makeControl = { control }
        super.init()
    }

    /// Starts: refreshes the rules now and then every `FilterControl.refreshInterval`, telling
    /// the data provider when they changed. (The completion-handler form: the `async` one would
    /// keep the system waiting for the first refresh.)
    public override func startFilter(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let control: FilterControl
        do {
            control = try makeControl()
        } catch {
            completionHandler(error)
            return
        }
        let provider = RulesChangedNotifier(provider: self)
        running.start(control, refreshing: Task { await control.run { provider.notify() } })
        completionHandler(nil)
    }

    /// Stops refreshing.
    public override func stopFilter(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) {
        running.stop()
        completionHandler()
    }

    /// A flow the data provider asked about (`needRules`: a struck employer's site under `ask`):
    /// the person is asked, naming the app, and the flow is dropped — unless the shared state no
    /// longer blocks it.
    public override func handleNewFlow(_ flow: NEFilterFlow, completionHandler: @escaping @Sendable (NEFilterControlVerdict) -> Void) {
        guard let control = running.control else {
            completionHandler(.allow(withUpdateRules: false))
            return
        }
        let host = (flow as? NEFilterSocketFlow)?.remoteHostname
        switch control.decide(ContentFilterJudge.Flow(host: host, url: flow.url?.absoluteString, sourceApp: flow.sourceAppIdentifier)) {
        case .allow: completionHandler(.allow(withUpdateRules: false))
        case .drop: completionHandler(.drop(withUpdateRules: false))
        }
    }
}

/// Calls `notifyRulesChanged()` from the refresh task.
///
/// `@unchecked Sendable`: the provider is not Sendable to Swift; NetworkExtension documents no
/// thread for `notifyRulesChanged()`, which only signals the data provider. Weak: the task must
/// not keep a stopped provider alive.
private final class RulesChangedNotifier: @unchecked Sendable {
    private weak var provider: NEFilterControlProvider?

    init(provider: NEFilterControlProvider) {
        self.provider = provider
    }

    func notify() {
        provider?.notifyRulesChanged()
    }
}

/// The provider's running control and its refresh task, behind a lock.
private final class RunningControl: @unchecked Sendable {
    private let lock = NSLock()
    private var current: FilterControl?
    private var refreshing: Task<Void, Never>?

    var control: FilterControl? { lock.withLock { current } }

    func start(_ control: FilterControl, refreshing task: Task<Void, Never>) {
        let previous = lock.withLock {
            defer { (current, refreshing) = (control, task) }
            return refreshing
        }
        previous?.cancel()
    }

    func stop() {
        let task = lock.withLock {
            defer { (current, refreshing) = (nil, nil) }
            return refreshing
        }
        task?.cancel()
    }
}
