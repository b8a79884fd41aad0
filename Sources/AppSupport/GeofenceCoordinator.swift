import Foundation
import PepperActions
import Picket

/// The one owner of the app's geofence session: every position, region crossing and refresh
/// goes through it, one at a time, so each transition is raised — and its notification posted —
/// exactly once, however many location events and background tasks arrive together.
///
/// The session is read from its file once, kept in memory and saved after every change. A
/// move's refresh is the only wait: a second caller that finds a fetch running waits for it and
/// decides again (one fetch, not two); then the move, its events and the save run with no
/// suspension in between, so no other call sees the session half-changed. A fix older than the
/// last one changes nothing (``GeofenceTracker``), so the order in which waiting moves resume
/// does not matter.
public actor GeofenceCoordinator {
    /// Where the session is saved between launches (the app group's container).
    public nonisolated let sessionURL: URL
    private let connection: @Sendable () -> PicketConnection?
    private var loaded: GeofenceSession?
    private var fetching: Task<RefreshOutcome, Never>?

    /// A coordinator for the session saved at `sessionURL`, fetching from the server
    /// `connection` returns (read at each refresh: the person may change it).
    public init(sessionURL: URL, connection: @escaping @Sendable () -> PicketConnection?) {
        self.sessionURL = sessionURL
        self.connection = connection
    }

    /// The session as it is now.
    public func session() -> GeofenceSession {
        if let loaded { return loaded }
        let session = GeofenceSession.load(from: sessionURL)
        loaded = session
        return session
    }

    private func keep(_ session: GeofenceSession) {
        loaded = session
        // A session that cannot be saved still holds in memory; the next change saves it again.
        try? session.save(to: sessionURL)
    }

    /// What a refresh did.
    public enum RefreshOutcome: Sendable, Hashable, CustomStringConvertible {
        /// Nothing fetched, and why.
        case skipped(GeofenceRefreshDecision.Skip)
        /// New data (200).
        case updated(RefreshReason)
        /// The data held is current (304).
        case notModified(RefreshReason)
        /// The fetch failed; the data held stays in use.
        case failed(RefreshReason, PicketClientError)

        /// Whether the data changed, so the regions should be planned again.
        public var changedData: Bool {
            if case .updated = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .skipped(let why): return "skipped: \(why)"
            case .updated(let reason): return "updated (\(reason))"
            case .notModified(let reason): return "not modified (\(reason))"
            case .failed(let reason, let error): return "failed (\(reason)): \(error)"
            }
        }
    }

    /// Refreshes the strike data when ``GeofenceRefreshSchedule`` says it is due for `trigger`
    /// at `now` (a location event, the background refresh, the launch).
    public func refresh(_ trigger: GeofenceRefreshTrigger, now: Date, lowPowerMode: Bool) async -> RefreshOutcome {
        // One fetch at a time: wait for a running one, then decide again on what it brought.
        while let running = fetching { _ = await running.value }
        let connection = self.connection()
        let server = connection?.server.absoluteString
        let decision = GeofenceRefreshSchedule.decide(session(), trigger: trigger, now: now, lowPowerMode: lowPowerMode, server: server)
        guard case .fetch(let refresh) = decision, let connection else {
            if case .skip(let why) = decision { return .skipped(why) }
            return .skipped(.noServer)
        }
        // The fetch applies its own answer and clears `fetching` before its task ends, so a
        // waiter never finds a finished fetch still marked as running.
        let task = Task { await self.fetch(refresh, from: connection, server: server, now: now) }
        fetching = task
        return await task.value
    }

    private func fetch(
        _ refresh: GeofenceSession.Refresh, from connection: PicketConnection, server: String?, now: Date
    ) async -> RefreshOutcome {
        let result: Result<PicketClient.DataResult, PicketClientError>
        do throws(PicketClientError) {
            result = .success(try await connection.client().mobileData(at: refresh.position, lastHash: refresh.lastHash))
        } catch {
            result = .failure(error)
        }
        // Read again after the wait: a region crossing may have changed the session meanwhile.
        var session = self.session()
        let outcome: RefreshOutcome
        switch result {
        case .success(let answer):
            session.received(answer, at: refresh.position, now: now, server: server)
            if case .updated = answer { outcome = .updated(refresh.reason) } else { outcome = .notModified(refresh.reason) }
        case .failure(let error):
            session.fetchFailed(at: now)
            outcome = .failed(refresh.reason, error)
        }
        keep(session)
        fetching = nil
        return outcome
    }

    /// A fix from Core Location: refreshes the data when due, then moves the session and saves
    /// it. Returns what the app applies: regions to stop and start, precise updates on or off,
    /// notifications to post.
    public func move(
        to position: GeoCoordinate, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double,
        lowPowerMode: Bool = false
    ) async -> GeofenceSession.Update {
        _ = await refresh(.location(position), now: time, lowPowerMode: lowPowerMode)
        // From here to the return nothing waits: the move is one step.
        var session = self.session()
        let update = session.move(to: position, at: time, monitoring: current, maximumRadius: maximumRadius)
        keep(session)
        return update
    }

    /// Core Location reported a region crossing: applied at once (no fetch), saved.
    public func crossed(
        region identifier: String, entering: Bool, at time: Date, monitoring current: [GeofenceRegion], maximumRadius: Double
    ) -> GeofenceSession.Update {
        var session = self.session()
        let update = session.crossed(region: identifier, entering: entering, at: time, monitoring: current, maximumRadius: maximumRadius)
        keep(session)
        return update
    }

    /// The earliest date for the next background refresh (``GeofenceRefreshSchedule``).
    public func nextBackgroundRefresh(after now: Date) -> Date {
        GeofenceRefreshSchedule.nextBackgroundRefresh(session(), after: now)
    }
}
