import AppSupport
import Foundation
import Picket
import Testing

/// When the strike data is refreshed on a phone that may not move: the decision, with times.
@Suite("Geofence refresh schedule")
struct GeofenceRefreshScheduleTests {
    static let server = "https://opl.example"
    static let start = GeofenceSessionTests.start
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A session that fetched at `t0` from ``server`` and last had a fix at ``start``.
    static func session(fetchedAt: Date = t0) -> GeofenceSession {
        var session = GeofenceSession()
        session.received(.updated(GeofenceSessionTests.data([]), hash: "h1", body: Data()), at: start, now: fetchedAt, server: server)
        _ = session.move(to: start, at: fetchedAt, monitoring: [], maximumRadius: 1_000)
        return session
    }

    static func decide(
        _ session: GeofenceSession, _ trigger: GeofenceRefreshTrigger, after seconds: TimeInterval, lowPower: Bool = false,
        server: String? = server
    ) -> GeofenceRefreshDecision {
        GeofenceRefreshSchedule.decide(
            session, trigger: trigger, now: t0.addingTimeInterval(seconds), lowPowerMode: lowPower, server: server)
    }

    @Test func aStillPhoneIsCheckedHourlyFromTheBackgroundRefresh() throws {
        var session = Self.session()
        #expect(Self.decide(session, .background, after: 1_800) == .skip(.fresh(due: Self.t0.addingTimeInterval(3_600))))
        let due = Self.decide(session, .background, after: 3_600)
        guard case .fetch(let refresh) = due else {
            Issue.record("expected a fetch an hour later, got \(due)")
            return
        }
        #expect(refresh.reason == .intervalElapsed(seconds: 3_600))
        #expect(refresh.position == Self.start, "asked where the phone last was")
        #expect(refresh.lastHash == "h1", "with the hash: unchanged data costs a 304")
        // The server says 304: the next check is an hour after that.
        session.received(.notModified(hash: "h1"), at: refresh.position, now: Self.t0.addingTimeInterval(3_600), server: Self.server)
        #expect(Self.decide(session, .background, after: 3_660) == .skip(.fresh(due: Self.t0.addingTimeInterval(7_200))))
        #expect(
            GeofenceRefreshSchedule.nextBackgroundRefresh(session, after: Self.t0.addingTimeInterval(3_660))
                == Self.t0.addingTimeInterval(7_200))
        // Asked again just before it is due: not sooner than iOS's 15 minutes.
        #expect(
            GeofenceRefreshSchedule.nextBackgroundRefresh(session, after: Self.t0.addingTimeInterval(7_000))
                == Self.t0.addingTimeInterval(7_000 + 900))
        #expect(
            GeofenceRefreshSchedule.nextBackgroundRefresh(GeofenceSession(), after: Self.t0) == Self.t0.addingTimeInterval(900),
            "no data yet: soon")
        // A location event asks the same question of the same session.
        #expect(Self.decide(session, .location(Self.start), after: 7_200) == Self.decide(session, .background, after: 7_200))
    }

    @Test func lowPowerModeSkipsTheHourlyCheckUntilTheDataExpires() {
        let session = Self.session()
        #expect(
            Self.decide(session, .background, after: 7_200, lowPower: true)
                == .skip(.lowPowerMode(expires: Self.t0.addingTimeInterval(86_400))))
        #expect(
            Self.decide(session, .launch, after: 7_200, lowPower: true) == .skip(.lowPowerMode(expires: Self.t0.addingTimeInterval(86_400)))
        )
        guard case .fetch(let expired) = Self.decide(session, .background, after: 86_400, lowPower: true) else {
            Issue.record("expired data is refreshed in Low Power Mode")
            return
        }
        #expect(expired.reason == .expired(seconds: 86_400))
        #expect(expired.lastHash == "h1")
        // What the data held does not cover is fetched in Low Power Mode too.
        let far = GreatCircle.destination(from: Self.start, bearing: 0, distance: 130_000)
        guard case .fetch(let moved) = Self.decide(session, .location(far), after: 600, lowPower: true) else {
            Issue.record("moving past the threshold fetches")
            return
        }
        guard case .movedBeyondThreshold = moved.reason else {
            Issue.record("expected moved beyond the threshold, got \(moved.reason)")
            return
        }
        guard case .fetch(let other) = Self.decide(session, .background, after: 600, lowPower: true, server: "https://other.example") else {
            Issue.record("another server's data is replaced")
            return
        }
        #expect(other.reason == .serverChanged)
        #expect(other.lastHash == nil, "another server's hash means nothing here")
    }

    @Test func atLaunchWhenDueAndAfterACacheClear() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-geofence-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.session().save(to: file)
        // Relaunched two hours later: the saved session is due, at the last known position.
        let relaunched = GeofenceSession.load(from: file)
        guard case .fetch(let refresh) = Self.decide(relaunched, .launch, after: 7_200) else {
            Issue.record("a relaunch when due fetches")
            return
        }
        #expect(refresh.reason == .intervalElapsed(seconds: 3_600) && refresh.position == Self.start)
        #expect(Self.decide(relaunched, .launch, after: 600) == .skip(.fresh(due: Self.t0.addingTimeInterval(3_600))))
        // The cache cleared: no data and no position until the first fix, which fetches at once,
        // Low Power Mode or not.
        try FileManager.default.removeItem(at: file)
        let cleared = GeofenceSession.load(from: file)
        #expect(Self.decide(cleared, .launch, after: 600) == .skip(.noPosition))
        #expect(Self.decide(cleared, .background, after: 600) == .skip(.noPosition))
        guard case .fetch(let first) = Self.decide(cleared, .location(Self.start), after: 600, lowPower: true) else {
            Issue.record("the first fix after a clear fetches")
            return
        }
        #expect(first.reason == .noData && first.lastHash == nil)
        #expect(Self.decide(cleared, .location(Self.start), after: 600, server: nil) == .skip(.noServer))
    }

    @Test func aFailedFetchIsTriedAgainFiveMinutesLater() {
        var session = Self.session()
        session.fetchFailed(at: Self.t0.addingTimeInterval(3_600))
        #expect(Self.decide(session, .location(Self.start), after: 3_660) == .skip(.retryLater(at: Self.t0.addingTimeInterval(3_900))))
        guard case .fetch = Self.decide(session, .location(Self.start), after: 3_900) else {
            Issue.record("tried again after five minutes")
            return
        }
        session.received(.notModified(hash: "h1"), at: Self.start, now: Self.t0.addingTimeInterval(3_900), server: Self.server)
        #expect(session.lastFailedFetch == nil)
    }

    @Test func theInfoPlistPermitsBothBackgroundTasks() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let project = try String(contentsOf: root.appendingPathComponent("Apple/project.yml"), encoding: .utf8)
        let line = try #require(project.split(separator: "\n").first { $0.contains("BGTaskSchedulerPermittedIdentifiers:") })
        // iOS refuses to schedule a task whose identifier the Info.plist does not list.
        #expect(line.contains(BackgroundRefresh.listUpdateTask))
        #expect(line.contains(BackgroundRefresh.strikeDataTask))
    }
}
