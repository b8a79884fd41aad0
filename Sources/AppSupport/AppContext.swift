import AppExtensionSupport
import Browsing
import Foundation
import ListSync
import PepperActions
import Picket
import Screens
import Storage

/// What the app opens once, at launch, and hands to every part of it: the window's screens,
/// background list updates, geofencing and the answers to notifications all work on this one
/// ``state``.
///
/// GRDB's first rule is one connection pool per database file per process, and the rebuilds of
/// one ``PepperState`` are shared by its callers (ten quick changes, at most two rebuilds); a
/// second state opened beside it would have neither. NetNewsWire's `ArticlesDatabase` is the
/// model: one object for the app's life.
public final class AppContext: Sendable {
    /// The app group's container.
    public let container: AppGroupContainer
    /// Pepper's state in the container.
    public let state: PepperState
    /// When the state's database may take locks, when the context was opened with one (the iOS
    /// app): the app tells it when it enters the foreground or the background, and the
    /// context's work that writes in the background (list updates, answers to notifications)
    /// keeps it awake while it runs. (Geofencing only reads the database and writes the
    /// session's own file, which takes no lock.)
    public let suspension: SharedDatabaseSuspension?
    /// The one owner of the geofence session (strike alerts): positions, region crossings and
    /// refreshes go through it one at a time.
    public let geofencing: GeofenceCoordinator
    /// The home's sync with the person's other devices (run by the app's `SyncRunner`).
    public let sync: HomeSync

    /// Opens the state in `container` once. `picketKeys` keeps the Picket key (the Keychain in
    /// the app); `afterPublish` runs after every rebuild (the app has Safari read the lists again);
    /// `suspension`, when given, decides when the database stops taking locks (the database then
    /// observes it; suspension is process-wide, so only the app's one context is opened with one).
    public init(
        container: AppGroupContainer, picketKeys: (any PicketKeyStore)? = nil,
        afterPublish: [@Sendable (PepperState, RebuildOutcome) -> Void] = [],
        suspension: SharedDatabaseSuspension? = nil
    ) throws(ActionError) {
        self.container = container
        self.suspension = suspension
        let state = try PepperState(
            home: container.home,
            configuration: PepperState.Configuration(
                afterPublish: afterPublish, picketKeys: picketKeys, observesSuspension: suspension != nil))
        self.state = state
        sync = HomeSync(state: state)
        geofencing = GeofenceCoordinator(
            sessionURL: container.extensionsURL.appendingPathComponent("geofence-session.json"),
            connection: { try? state.picketConnection() })
        // An earlier Pepper kept Picket list keys in the shared database: they move to the key
        // store now. Should the Keychain refuse, the next fetch of that list tries again (and
        // records why it failed on the list), as does the next launch.
        _ = try? state.moveListKeysToKeyStore()
    }

    // MARK: At launch

    /// A first launch has no compiled lists: compiles the enabled ones (or the starter list).
    ///
    /// - Returns: `nil` when there was nothing to do or it worked; else the sentence to show.
    public func compileIfNeeded() async -> Notice? {
        guard state.manifest() == nil else { return nil }
        do {
            _ = try await state.rebuild()
            return nil
        } catch {
            return .error("Pepper could not compile its lists: \(error).")
        }
    }

    // MARK: Background list updates

    /// What a background update did, and when to ask for the next one.
    public struct ListUpdate: Sendable {
        /// The update's sentence.
        public var notice: Notice
        /// The earliest date for the next update (``BackgroundRefresh/nextUpdate(after:lists:)``).
        public var next: Date
    }

    /// The `BGAppRefreshTask`'s work: downloads what changed and recompiles (the rebuild hook has
    /// Safari read the lists again), then says when the lists want the next update.
    public func updateLists(now: @Sendable () -> Date = { Date() }) async -> ListUpdate {
        let (notice, _) = await keepingAwake { await ListsScreen(state: state).updateNow() }
        return ListUpdate(notice: notice, next: nextListUpdate(after: now()))
    }

    /// When to ask for the next background update.
    public func nextListUpdate(after now: Date) -> Date {
        BackgroundRefresh.nextUpdate(after: now, lists: (try? state.lists()) ?? [])
    }

    /// Runs `work`, which writes, with the database kept awake by ``suspension`` (when there is one).
    func keepingAwake<T, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard let suspension else { return try await work() }
        return try await suspension.keepingAwake(work)
    }

    // MARK: The tunnel's question

    /// Acts on the person's answer to the packet tunnel's question: "Proceed" goes where the
    /// browsers' "Proceed anyway" goes (``SiteBlocking/proceed(past:now:)``: an expiring allowlist
    /// entry, so the content blocker lets the site through too, then the rebuild); "Block"
    /// changes nothing. The notice is looked up again, because the policy may have changed
    /// since the tunnel asked: under `block` there is no proceeding.
    ///
    /// - Returns: Whether the allowlist changed (then the app tells the tunnel to read it again).
    public func answer(_ response: PicketAskResponse, now: Date = Date()) async throws(BrowsingError) -> Bool {
        guard let page = response.pageAddress else { return false }
        let index: PicketBlocklistIndex
        do {
            index = try PicketBlocklistIndex.load(home: state.home, database: state.database)
        } catch {
            throw .storage("cannot read the struck employers' list: \(error)")
        }
        // No longer struck (the action ended, or the policy is now allow): nothing to let through.
        guard let notice = index.notice(for: page) else { return false }
        try await keepingAwake { () async throws(BrowsingError) in
            try await SiteBlocking(state: state).proceed(past: notice, now: now)
        }
        return true
    }

    // MARK: Geofencing

    /// The labor-action awareness session, saved in the container between location events.
    public var geofenceSessionURL: URL { geofencing.sessionURL }

    /// A new position from Core Location, through ``geofencing``: fetches the Picket data when
    /// ``GeofenceRefreshSchedule`` says it is due (with the hash it holds, so an unchanged payload
    /// costs a 304), moves the session, saves it, and returns what the app applies (regions to
    /// start and stop, precise updates, notifications to show). A failed fetch keeps the data
    /// held. Concurrent calls raise each transition once.
    public func geofenceMove(
        to position: GeoCoordinate, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double,
        lowPowerMode: Bool = false
    ) async -> GeofenceSession.Update {
        await geofencing.move(to: position, at: time, monitoring: current, maximumRadius: maximumRadius, lowPowerMode: lowPowerMode)
    }
}
