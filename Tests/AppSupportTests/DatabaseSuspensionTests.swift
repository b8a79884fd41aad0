import AppExtensionSupport
import AppSupport
import Foundation
import GRDB
import ListSync
import PepperActions
import PepperTestSupport
import Picket
import Storage
import Testing

/// The decision that suspends and resumes the shared database (iOS's `0xDEAD10CC`), and what a
/// suspended database does: GRDB's remedy, on a real database.
///
/// Suspension is process-wide (GRDB's notifications reach every observing database), so the
/// tests that suspend run one at a time, and only their databases observe it.
@Suite("Shared database suspension", .serialized)
struct DatabaseSuspensionTests {
    // MARK: The decision

    @Test func theAppSuspendsInTheBackgroundAndResumesInFront() {
        var policy = SuspensionPolicy(inBackground: false)
        #expect(policy.handle(.enteredBackground) == .suspend)
        #expect(policy.handle(.enteredBackground) == nil, "already suspended")
        #expect(policy.handle(.enteredForeground) == .resume)
        #expect(policy.handle(.timeExpiring) == nil, "in front, iOS does not suspend the app")
        #expect(!policy.isSuspended)
    }

    @Test func backgroundWorkKeepsItAwakeUntilTheLastPieceEnds() {
        var policy = SuspensionPolicy(inBackground: false)
        #expect(policy.handle(.enteredBackground) == .suspend)
        let refresh = UUID()
        let answer = UUID()
        #expect(policy.handle(.workBegan(refresh)) == .resume)
        #expect(policy.handle(.workBegan(answer)) == nil)
        #expect(policy.handle(.workEnded(refresh)) == nil, "the answer still writes")
        #expect(policy.handle(.workEnded(answer)) == .suspend)
        #expect(policy.handle(.workEnded(answer)) == nil, "an end seen twice (cancelled, then returned) changes nothing")
    }

    @Test func workTheAppLeftDuringSuspendsTheDatabaseWhenItEnds() {
        var policy = SuspensionPolicy(inBackground: false)
        let action = UUID()
        #expect(policy.handle(.workBegan(action)) == nil, "in front, nothing to resume")
        #expect(policy.handle(.enteredBackground) == nil, "the person's action still writes")
        #expect(policy.handle(.workEnded(action)) == .suspend)
    }

    @Test func expiringTimeSuspendsWhateverRunsAndNewTimeResumes() {
        var policy = SuspensionPolicy(inBackground: true)
        let update = UUID()
        #expect(policy.handle(.workBegan(update)) == nil, "a relaunch in the background starts resumed")
        #expect(policy.handle(.timeExpiring) == .suspend)
        #expect(policy.handle(.workEnded(update)) == nil, "the expired work's end comes later")
        let next = UUID()
        #expect(policy.handle(.workBegan(next)) == .resume, "iOS gave the next work its own time")
        #expect(policy.handle(.workEnded(next)) == .suspend)
    }

    /// Any order of events: the database is suspended exactly when the process is in the
    /// background with no work that still has time, and each action changes it (never two
    /// suspends in a row). The walk keeps its own account of the process to compare with.
    @Test func anyOrderOfEventsKeepsTheRule() {
        var random = SplitMix64(seed: 7)
        var policy = SuspensionPolicy(inBackground: true)
        var inBackground = true
        var running: [UUID] = []
        var awake: Set<UUID> = []
        var suspended = false
        var actions = 0
        for _ in 0..<20_000 {
            let event: SuspensionPolicy.Event
            switch random.next() % 6 {
            case 0:
                event = .enteredForeground
                inBackground = false
            case 1, 2:
                event = .enteredBackground
                inBackground = true
            case 3:
                let work = UUID()
                running.append(work)
                awake.insert(work)
                event = .workBegan(work)
            case 4 where !running.isEmpty:
                let work = running.remove(at: Int(random.next() % UInt64(running.count)))
                awake.remove(work)
                event = .workEnded(work)
            default:
                event = .timeExpiring
                awake.removeAll()
            }
            let nowSuspended = inBackground && awake.isEmpty
            let expected: SuspensionPolicy.Action? = nowSuspended == suspended ? nil : (nowSuspended ? .suspend : .resume)
            let action = policy.handle(event)
            #expect(action == expected, "after \(event)")
            actions += action == nil ? 0 : 1
            suspended = nowSuspended
            #expect(policy.isSuspended == suspended)
        }
        #expect(actions > 1_000, "the walk went back and forth (\(actions) actions)")
    }

    // MARK: A suspended database

    @Test func aSuspendedDatabaseHoldsNoLockAndRefusesWritesButReads() throws {
        let temporary = TemporaryContainer()
        let url = temporary.container.databaseURL
        let database = try PepperDatabase(url: url, observesSuspension: true)
        try database.write { try $0.execute(sql: "CREATE TABLE probe (n INTEGER)") }
        let suspension = SharedDatabaseSuspension(inBackground: false)
        defer { suspension.enteredForeground() }

        suspension.enteredBackground()
        #expect(suspension.isSuspended)
        #expect(throws: PepperDatabaseError.suspended(path: url.path)) {
            try database.write { try $0.execute(sql: "INSERT INTO probe VALUES (1)") }
        }
        #expect(try database.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM probe") } == 0, "reads still work")
        // Another process (another connection here) can take the write lock at once.
        #expect(try Self.otherConnectionTakesTheWriteLock(url))

        suspension.enteredForeground()
        try database.write { try $0.execute(sql: "INSERT INTO probe VALUES (1)") }
        #expect(try database.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM probe") } == 1)
    }

    /// A write that holds the lock when the app goes to the background is interrupted and rolled
    /// back, and the lock is free: what stops iOS killing the app (`0xDEAD10CC`).
    @Test func suspendingInterruptsAWriteInProgressAndFreesTheLock() async throws {
        let temporary = TemporaryContainer()
        let url = temporary.container.databaseURL
        let database = try PepperDatabase(url: url, observesSuspension: true)
        try database.write { try $0.execute(sql: "CREATE TABLE probe (n INTEGER)") }
        let suspension = SharedDatabaseSuspension(inBackground: false)
        defer { suspension.enteredForeground() }
        let holding = Flag()

        let started = Date()
        let writer = Task.detached {
            try database.write { db in
                try db.execute(sql: "INSERT INTO probe VALUES (1)")
                holding.set()
                // A long write: ten seconds of small inserts, unless interrupted.
                for n in 2...1_000 {
                    Thread.sleep(forTimeInterval: 0.01)
                    try db.execute(sql: "INSERT INTO probe VALUES (?)", arguments: [n])
                }
            }
        }
        while !holding.isSet { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try !Self.otherConnectionTakesTheWriteLock(url), "the write holds the lock: what iOS would kill the app for")

        suspension.enteredBackground()
        let outcome = await writer.result
        #expect(throws: PepperDatabaseError.suspended(path: url.path)) { try outcome.get() }
        #expect(Date().timeIntervalSince(started) < 5, "interrupted, not finished")
        #expect(try Self.otherConnectionTakesTheWriteLock(url))
        #expect(try await database.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM probe") } == 0, "rolled back")
    }

    /// The app's context: what it does in the background keeps the database awake while it runs,
    /// and suspends it again after; anything else is refused while suspended.
    @Test func theContextsBackgroundWorkWritesWhileSuspended() async throws {
        let temporary = try DNSTunnelTests.container(policy: .ask)
        let suspension = SharedDatabaseSuspension(inBackground: false)
        defer { suspension.enteredForeground() }
        let context = try AppContext(container: temporary.container, suspension: suspension)
        suspension.enteredBackground()

        // Not background work: refused, and nothing is stored.
        await #expect(throws: ActionError.self) { _ = try await context.state.addAllowlist("example.org", rebuild: false) }
        #expect(try context.state.allowlistEntries().isEmpty)
        // The answer to a notification is: it writes, then the database is suspended again.
        #expect(try await context.answer(.proceed(site: "www.acme.example", for: 86_400)))
        #expect(try context.state.allowlistEntries().map(\.domain) == ["acme.example"])
        #expect(suspension.isSuspended)
        #expect(try Self.otherConnectionTakesTheWriteLock(temporary.container.databaseURL))
    }

    /// The filter control provider, the one extension that writes: suspended between refreshes
    /// (here from the start, as iOS would find it idle), awake while a refresh stores the
    /// Picket list, suspended again after.
    @Test func theFilterControlProviderWritesOnlyWhileItRefreshes() async throws {
        let server = try await PicketKeyScanTests.Server.start()
        let temporary = TemporaryContainer()
        let source = ListSource(name: "picket-live", location: "picket:\(server.url.absoluteString)", format: "picket")
        _ = try ListSourceStore(database: temporary.state.database).insert(source)
        let keys = PicketKeyScanTests.MemoryKeychain()
        try keys.setKey(try await server.key(), for: .listSource("picket-live"))
        let suspension = SharedDatabaseSuspension(inBackground: true)
        defer { suspension.enteredForeground() }
        let control = FilterControl(
            container: temporary.container, ownBundleIdentifier: "org.example.pepper", notifier: SilentAsker(), picketKeys: keys,
            suspension: suspension)
        suspension.timeExpiring()
        #expect(suspension.isSuspended)

        #expect(await control.refresh() == .changed(lists: ["picket-live"]))
        let stored = try #require(try ListSourceStore(database: temporary.state.database).source(named: "picket-live"))
        #expect(stored.etag != nil && stored.lastError == nil, "the refresh stored the list while suspended around it")
        #expect(suspension.isSuspended)
        #expect(try Self.otherConnectionTakesTheWriteLock(temporary.container.databaseURL))
        await server.stop()
    }

    @Test func aContextWithoutSuspensionIsNotSuspended() async throws {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        let suspension = SharedDatabaseSuspension(inBackground: false)
        defer { suspension.enteredForeground() }
        suspension.enteredBackground()
        // Suspension is process-wide; a database that does not observe it (every face but the
        // iOS app, and the tests beside this one) writes on.
        _ = try await context.state.addAllowlist("example.org", rebuild: false)
        #expect(try context.state.allowlistEntries().map(\.domain) == ["example.org"])
    }

    // MARK: Helpers

    /// Whether a second connection to `url` gets the write lock without waiting.
    static func otherConnectionTakesTheWriteLock(_ url: URL) throws -> Bool {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        let other = try DatabaseQueue(path: url.path, configuration: configuration)
        return try other.inDatabase { db in
            do {
                try db.execute(sql: "BEGIN IMMEDIATE")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return false
            }
            try db.execute(sql: "ROLLBACK")
            return true
        }
    }
}

/// Asks nobody (the refresh asks no question).
private struct SilentAsker: PicketAskNotifier {
    func ask(_ notification: PicketAskNotification) {}
}

/// A flag one thread sets and another reads.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
