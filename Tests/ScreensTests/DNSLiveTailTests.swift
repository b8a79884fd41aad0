import BlockingWork
import Foundation
import PepperActions
import Storage
import Synchronization
import Testing

@testable import Screens

/// The DNS page's live log: one reader of the query log for all the views open on it.
@Suite("DNS live tail")
struct DNSLiveTailTests {
    /// Reads through the screen, counting the shared reader's reads (a batch's limit) apart
    /// from the joining views' catch-up reads, and the most reader reads at once.
    private final class CountingReads: Sendable {
        struct Counts {
            var readerFrom: [Int64] = []
            var reader = 0
            var catchUp = 0
            var readingNow = 0
            var mostAtOnce = 0
        }
        let counts = Mutex(Counts())

        func read(_ screen: DNSScreen, after: Int64, limit: Int) async throws -> [DNSScreen.Row] {
            let isReader = limit == DNSLiveTail.batch
            counts.withLock {
                if isReader {
                    $0.readerFrom.append(after)
                    $0.reader += 1
                    $0.readingNow += 1
                    $0.mostAtOnce = max($0.mostAtOnce, $0.readingNow)
                } else {
                    $0.catchUp += 1
                }
            }
            defer { if isReader { counts.withLock { $0.readingNow -= 1 } } }
            return try await screen.tail(after: after, limit: limit)
        }
    }

    private static let interval = Duration.milliseconds(50)

    private func liveTail(_ screen: DNSScreen, _ reads: CountingReads, catchUpLimit: Int = 100) -> DNSLiveTail {
        DNSLiveTail(
            interval: Self.interval, catchUpLimit: catchUpLimit, read: { try await reads.read(screen, after: $0, limit: $1) },
            latest: { await screen.latestID() })
    }

    private func log(_ names: [String], in state: PepperState) throws {
        let now = Date()
        let entries = names.map {
            DNSQueryLogStore.Entry(at: now, client: "127.0.0.1", name: $0, type: "A", outcome: .forwarded, responseCode: "NOERROR")
        }
        try DNSQueryLogStore(database: state.database).record(
            counts: [.init(day: DNSQueryLogStore.day(of: now), outcome: .forwarded, count: names.count)], entries: entries, now: now)
    }

    /// The names a view is given until it has `count` of them (or 10 s have passed).
    private func names(_ count: Int, from rows: AsyncStream<[DNSScreen.Row]>) async -> [String] {
        await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var names: [String] = []
                for await batch in rows {
                    names += batch.map(\.name)
                    if names.count >= count { break }
                }
                return names
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    private func waitFor(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func threeOpenViewsShareOneReader() async throws {
        let temporary = TemporaryState()
        try log(["before.example"], in: temporary.state)
        let screen = DNSScreen(state: temporary.state)
        let reads = CountingReads()
        let tail = liveTail(screen, reads)
        let views = (0..<3).map { _ in tail.rows(after: nil) }
        try await waitFor { tail.viewers == 3 }

        let started = ContinuousClock.now
        let readsBefore = reads.counts.withLock { $0.reader }
        try log(["one.example", "two.example", "three.example"], in: temporary.state)
        for view in views {
            #expect(await names(3, from: view) == ["one.example", "two.example", "three.example"])
        }
        try await Task.sleep(for: .milliseconds(500))
        let elapsed = ContinuousClock.now - started
        let counts = reads.counts.withLock { $0 }
        // One read per interval for all three views (each view polling would be three).
        let ticks = Int((elapsed / Self.interval).rounded(.up))
        #expect(counts.reader - readsBefore <= ticks + 2, "\(counts.reader - readsBefore) reads in \(ticks) intervals")
        #expect(counts.mostAtOnce == 1)
        // Each view read once on its own, when it joined (nothing was new then), and never again.
        #expect(counts.catchUp == 3)
    }

    @Test func aViewThatJoinsBehindCatchesUpAloneAndNothingIsGivenTwice() async throws {
        let temporary = TemporaryState()
        let screen = DNSScreen(state: temporary.state)
        let reads = CountingReads()
        let tail = liveTail(screen, reads)
        let first = tail.rows(after: nil)
        try await waitFor { tail.viewers == 1 }
        let before = await screen.latestID()
        try log(["a.example", "b.example"], in: temporary.state)
        #expect(await names(2, from: first) == ["a.example", "b.example"])

        // A second view that saw nothing after `before` (a page reconnecting) is given the two
        // rows at once, then both views share every later row, once each.
        let second = tail.rows(after: before)
        #expect(await names(2, from: second) == ["a.example", "b.example"])
        try await waitFor { tail.viewers == 2 }
        try log(["c.example"], in: temporary.state)
        #expect(await names(1, from: first) == ["c.example"])
        #expect(await names(1, from: second) == ["c.example"])
    }

    /// A view far behind is given at most the catch-up limit and joins at the newest row: the
    /// shared reader never reads from where that view was.
    @Test func aViewFarBehindJoinsAtTheNewestRow() async throws {
        let temporary = TemporaryState()
        let screen = DNSScreen(state: temporary.state)
        let reads = CountingReads()
        let tail = liveTail(screen, reads, catchUpLimit: 2)
        let before = await screen.latestID()
        try log(["a.example", "b.example", "c.example", "d.example", "e.example"], in: temporary.state)
        let newest = await screen.latestID()
        let late = tail.rows(after: before)
        #expect(await names(2, from: late) == ["a.example", "b.example"])
        try await waitFor { tail.viewers == 1 }
        try log(["f.example"], in: temporary.state)
        #expect(await names(1, from: late) == ["f.example"])
        #expect(reads.counts.withLock { $0.readerFrom.allSatisfy { $0 >= newest } })
    }

    @Test func theReaderStopsWhenTheLastViewCloses() async throws {
        let temporary = TemporaryState()
        let screen = DNSScreen(state: temporary.state)
        let reads = CountingReads()
        let tail = liveTail(screen, reads)
        do {
            let view = tail.rows(after: nil)
            try await waitFor { tail.viewers == 1 }
            try log(["x.example"], in: temporary.state)
            #expect(await names(1, from: view) == ["x.example"])
        }
        // The stream is gone: its view leaves, and the reader with it.
        try await waitFor { tail.viewers == 0 }
        try await Task.sleep(for: Self.interval * 2)
        let stopped = reads.counts.withLock { $0.reader }
        try await Task.sleep(for: Self.interval * 6)
        #expect(reads.counts.withLock { $0.reader } == stopped)
    }
}

/// Where the screens' synchronous reads and writes run.
@Suite("Screens' blocking work")
struct ScreenBlockingWorkTests {
    /// What a screen hands to `blocking` (every load and action that touches the state does)
    /// runs on BlockingWork's threads, not on the caller's (a cooperative thread here, the main
    /// actor in the app).
    @Test func whatAScreenHandsToBlockingRunsOnTheBlockingWorkThreads() async throws {
        #expect(!BlockingWorkPool.shared.runsTheCurrentThread)
        #expect(await blocking { BlockingWorkPool.shared.runsTheCurrentThread })
    }
}
