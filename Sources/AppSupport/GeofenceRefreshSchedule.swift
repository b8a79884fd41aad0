import Foundation
import Picket

/// What asks for the strike data to be refreshed.
public enum GeofenceRefreshTrigger: Sendable, Hashable, CustomStringConvertible {
    /// The app started (or was relaunched for a location event): the last known position.
    case launch
    /// A background refresh (`BGAppRefreshTask`) on a phone that may not have moved: the last
    /// known position.
    case background
    /// A fix from Core Location.
    case location(GeoCoordinate)

    public var description: String {
        switch self {
        case .launch: return "launch"
        case .background: return "background refresh"
        case .location(let position): return "location \(position)"
        }
    }
}

/// Whether to fetch the strike data now, and why (or why not).
public enum GeofenceRefreshDecision: Sendable, Hashable, CustomStringConvertible {
    /// Fetch: where, with which hash, why.
    case fetch(GeofenceSession.Refresh)
    /// Not now.
    case skip(Skip)

    /// Why not now.
    public enum Skip: Sendable, Hashable, CustomStringConvertible {
        /// No Picket server is set.
        case noServer
        /// No position is known yet to ask about (the first fix will).
        case noPosition
        /// The data holds until `due` (its hourly hash check).
        case fresh(due: Date)
        /// Low Power Mode: the hourly check waits until the data expires at `expires`.
        case lowPowerMode(expires: Date)
        /// A fetch failed moments ago; the next try is at `at`.
        case retryLater(at: Date)

        public var description: String {
            switch self {
            case .noServer: return "no Picket server"
            case .noPosition: return "no position known yet"
            case .fresh(let due): return "fresh until \(due)"
            case .lowPowerMode(let expires): return "Low Power Mode: waits until the data expires at \(expires)"
            case .retryLater(let at): return "the last fetch failed; next try at \(at)"
            }
        }
    }

    public var description: String {
        switch self {
        case .fetch(let refresh): return "fetch: \(refresh.reason)"
        case .skip(let why): return "skip: \(why)"
        }
    }
}

/// When the app refreshes the strike data (design 003: "when the user moves beyond 80 % of the
/// cached region radius; periodic interval (hourly) with hash-based change detection; app
/// restart or cache clear"), on a still phone as on a moving one:
///
/// - every trigger — a location event, the background refresh, the launch — asks the same
///   question of the same session;
/// - due with no data (first run, or a cleared cache: the saved session gone), with data from
///   another server, past the refresh threshold, past the data's expiry, or hourly;
/// - in Low Power Mode the hourly hash check is skipped until the data expires (a day after it
///   was fetched or confirmed); the other reasons still fetch, because the data held does not
///   cover where the phone is or whom it asks;
/// - after a failed fetch, nothing is tried for ``retryDelay`` (a phone running precise updates
///   would otherwise ask at every fix while the server is down).
public enum GeofenceRefreshSchedule {
    /// Seconds after a failed fetch before the next try.
    public static let retryDelay: TimeInterval = 5 * 60
    /// The soonest the next background refresh is asked for (iOS runs them no more often).
    public static let minimumBackgroundInterval: TimeInterval = 15 * 60

    /// The decision for `trigger` at `now`, with the phone in Low Power Mode or not and the
    /// Picket server set now (`nil`: none).
    public static func decide(
        _ session: GeofenceSession, trigger: GeofenceRefreshTrigger, now: Date, lowPowerMode: Bool, server: String?
    ) -> GeofenceRefreshDecision {
        guard let server else { return .skip(.noServer) }
        let tracker = session.tracker
        let position: GeoCoordinate?
        switch trigger {
        case .location(let fix): position = fix
        case .launch, .background: position = tracker.lastPosition ?? tracker.cache?.center
        }
        guard let position else { return .skip(.noPosition) }
        if let failed = session.lastFailedFetch, now < failed.addingTimeInterval(retryDelay) {
            return .skip(.retryLater(at: failed.addingTimeInterval(retryDelay)))
        }
        let planner = tracker.planner
        guard let reason = tracker.refreshReason(at: position, now: now, server: server) else {
            // No reason means data is held.
            return .skip(.fresh(due: tracker.cache.map(planner.due(of:)) ?? now))
        }
        if lowPowerMode, case .intervalElapsed = reason, let cache = tracker.cache {
            return .skip(.lowPowerMode(expires: planner.expiry(of: cache)))
        }
        // Another server's hash means nothing to this one: ask for its whole payload.
        let hash = reason == .serverChanged ? nil : tracker.cache?.hash
        return .fetch(GeofenceSession.Refresh(position: position, lastHash: hash, reason: reason))
    }

    /// The earliest date for the next background refresh after `now`: when the data held is due
    /// its hash check, at least ``minimumBackgroundInterval`` away.
    public static func nextBackgroundRefresh(_ session: GeofenceSession, after now: Date) -> Date {
        let soonest = now.addingTimeInterval(minimumBackgroundInterval)
        guard let cache = session.tracker.cache else { return soonest }
        return max(soonest, session.tracker.planner.due(of: cache))
    }
}
