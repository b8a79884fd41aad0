import Foundation
import ListSync
import PepperActions
import Picket
import Storage

/// What the content filter's control provider (`NEFilterControlProvider`) does: the half of
/// Apple's content-filter design that may reach the network, write to the shared container and
/// notify, feeding the filter-data provider, which may do none of these.
///
/// - **Rule updates.** ``refresh()`` brings the enabled Picket list sources up to date through
///   the same client and updater as the app (`ListUpdater`: the stored hash, so an unchanged
///   list costs a 304, and the server's refresh interval; each list's API key from the key
///   store, `PicketListKeys`), into the list files the data
///   provider's ``PicketGateInputs`` read; when a list changed the provider calls
///   `notifyRulesChanged()` and the data provider reads them again. One update at a time per
///   home: when the app is updating (`update.lock`), the round is skipped.
/// - **Questions.** Under `ask`, the data provider hands the first flow to an employer to the
///   control provider (``ContentFilterJudge/Verdict/ask(employerId:)``); ``decide(_:)`` looks
///   at it again (the person may have proceeded meanwhile), posts the question naming the app
///   the flow came from when iOS gives it (``PicketAskNotification``, ``AppAttribution``), and
///   says to drop it.
/// - **No lock while idle.** The only extension that writes to the shared database: given a
///   ``SharedDatabaseSuspension`` (the provider passes one), the database observes it, stays
///   suspended between refreshes and is kept awake while one runs, so iOS never finds the
///   process holding a lock on the container's database (`0xDEAD10CC`).
public final class FilterControl: Sendable {
    /// What to tell the system about a flow the data provider handed over.
    public enum Verdict: Sendable, Hashable {
        /// Let it through (no longer struck, or allowlisted since).
        case allow
        /// Drop it.
        case drop
    }

    /// What a refresh did.
    public enum Refresh: Sendable, Hashable {
        /// A Picket list changed: the data provider must read the rules again.
        case changed(lists: [String])
        /// Nothing new (304, not due yet, or no Picket list); failures are recorded on the list.
        case unchanged
        /// The app is updating the lists itself: nothing was fetched.
        case skipped
        /// The shared state cannot be opened (the app never ran): the reason.
        case unavailable(String)
    }

    /// The app group's container.
    public let container: AppGroupContainer
    /// How often ``run(every:rulesChanged:)`` looks whether a list is due.
    public let refreshInterval: TimeInterval
    private let ownBundleIdentifier: String
    private let notifier: any PicketAskNotifier
    private let picketKeys: (any PicketKeyStore)?
    private let clock: @Sendable () -> Date
    private let suspension: SharedDatabaseSuspension?
    private let opened: LockedState<(database: PepperDatabase, judge: ContentFilterJudge)?>

    /// The control of the shared state in `container`, for the app whose bundle identifier is
    /// `ownBundleIdentifier`, asking through `notifier`. `picketKeys` holds the Picket lists' API
    /// keys (the Keychain on iOS, as in the app); `nil` reads them from the shared preferences,
    /// as `PepperState` does on Linux. `suspension`, when given, keeps the database from taking
    /// locks outside a refresh (suspension is process-wide: one per process).
    public init(
        container: AppGroupContainer, ownBundleIdentifier: String, notifier: any PicketAskNotifier,
        picketKeys: (any PicketKeyStore)?, refreshInterval: TimeInterval = 900, clock: @escaping @Sendable () -> Date = { Date() },
        suspension: SharedDatabaseSuspension? = nil
    ) {
        self.container = container
        self.suspension = suspension
        self.ownBundleIdentifier = ownBundleIdentifier
        self.notifier = notifier
        self.picketKeys = picketKeys
        self.refreshInterval = refreshInterval
        self.clock = clock
        opened = LockedState(nil)
    }

    /// The database (writable: this provider may write) and a judge over it, opened once.
    private func open() throws -> (database: PepperDatabase, judge: ContentFilterJudge) {
        try opened.withLock { opened in
            if let opened { return opened }
            // Never create a state: only the app does. Without its database there is nothing to filter.
            guard FileManager.default.fileExists(atPath: container.databaseURL.path) else {
                throw FilterControlError.noSharedState
            }
            let database = try PepperDatabase(url: container.databaseURL, observesSuspension: suspension != nil)
            let judge = ContentFilterJudge(
                inputs: PicketGateInputs(container: container, database: database), ownBundleIdentifier: ownBundleIdentifier,
                reloadInterval: 0, askInterval: 0, clock: clock)
            opened = (database, judge)
            return (database, judge)
        }
    }

    /// The verdict on a flow the data provider handed over, posting the question when the
    /// shared state still asks about its host.
    public func decide(_ flow: ContentFilterJudge.Flow) -> Verdict {
        guard let judge = try? open().judge, let decision = judge.decision(for: flow) else { return .allow }
        switch decision {
        case .forward:
            return .allow
        case .block:
            return .drop
        case .ask(let notice):
            let host = ContentFilterJudge.host(of: flow) ?? notice.url
            notifier.ask(PicketAskNotification(host: host, notice: notice, app: AppAttribution(flowSourceApp: flow.sourceApp)))
            return .drop
        }
    }

    /// Brings the enabled Picket lists up to date (see the type's description), with the
    /// database awake meanwhile.
    public func refresh() async -> Refresh {
        guard let suspension else { return await refreshLists() }
        return await suspension.keepingAwake { await refreshLists() }
    }

    private func refreshLists() async -> Refresh {
        let database: PepperDatabase
        do {
            database = try open().database
        } catch {
            return .unavailable("\(error)")
        }
        let home = container.home
        let lock: UpdateLock
        do {
            lock = try UpdateLock(directory: home.url, wait: false)
        } catch {
            return .skipped
        }
        defer { withExtendedLifetime(lock) {} }
        let sources: [ListSource]
        do {
            sources = try ListSourceStore(database: database).enabled().filter { $0.format == PicketListSource.format }
        } catch {
            return .unavailable("cannot read the lists: \(error)")
        }
        let keys = PicketListKeys(keys: picketKeys ?? PreferencePicketKeyStore(database: database), database: database)
        let updater = ListUpdater(home: home, database: database, picketKey: { source in try keys.key(for: source) })
        var changed: [String] = []
        for source in sources {
            guard let report = try? await updater.update(source, force: false) else { continue }
            if case .updated = report.status { changed.append(source.name) }
        }
        return changed.isEmpty ? .unchanged : .changed(lists: changed)
    }

    /// Refreshes now and then every ``refreshInterval`` seconds until the task is cancelled,
    /// calling `rulesChanged` after each refresh that changed a list.
    public func run(rulesChanged: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            if case .changed = await refresh() { rulesChanged() }
            try? await Task.sleep(nanoseconds: UInt64(refreshInterval * 1e9))
        }
    }
}

/// Why the filter control cannot work.
public enum FilterControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The app has not created Pepper's state in the app group yet.
    case noSharedState

    public var description: String {
        switch self {
        case .noSharedState: "Pepper's state is not in the app group yet (open the app once)"
        }
    }
}
