import DNSFilter
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Storage

/// Keeps what the server answered in the state's database: every query counted (per day and
/// outcome), and the queries themselves in the bounded log. Queries are gathered in memory and
/// written once a second in one transaction, so answering never waits for SQLite; when more
/// than ``logLimitPerFlush`` arrive in a second, the log keeps the newest (the counters stay
/// exact).
///
/// As a `Service`, it flushes every second and once more at shutdown; in the DNS server's
/// `ServiceGroup` it comes before the server, so it stops after the last answer is counted.
public final class QueryRecorder: Service {
    private struct Pending {
        var counts: [DNSQueryOutcome: Int] = [:]
        var entries: [(event: QueryEvent, at: Date)] = []
    }

    private let pending = NIOLockedValueBox(Pending())
    private let store: DNSQueryLogStore
    private let logger: Logger
    /// Log rows written per flush at most.
    public let logLimitPerFlush: Int

    /// A recorder writing to `store`.
    public init(store: DNSQueryLogStore, logger: Logger, logLimitPerFlush: Int = 5_000) {
        self.store = store
        self.logger = logger
        self.logLimitPerFlush = logLimitPerFlush
    }

    /// Notes one answered query (the server's observer).
    public func record(_ event: QueryEvent) {
        // Strings are made when the batch is written, off the answering path.
        let entry = (event: event, at: Date())
        let limit = logLimitPerFlush
        pending.withLockedValue { pending in
            pending.counts[event.outcome, default: 0] += 1
            if pending.entries.count >= limit { pending.entries.removeFirst(limit / 2) }
            pending.entries.append(entry)
        }
    }

    /// Writes what was gathered since the last flush.
    public func flush(now: Date = Date()) {
        let batch = pending.withLockedValue { pending -> Pending in
            defer { pending = Pending() }
            return pending
        }
        let day = DNSQueryLogStore.day(of: now)
        let counts = batch.counts.map { DNSQueryLogStore.Count(day: day, outcome: $0.key, count: $0.value) }
        do {
            let entries = batch.entries.map { event, at in
                DNSQueryLogStore.Entry(
                    at: at, client: event.client.description, device: event.device?.value, name: event.name, type: event.type.description,
                    outcome: event.outcome, responseCode: event.responseCode.description)
            }
            try store.record(counts: counts, entries: entries, now: now)
        } catch {
            logger.warning("cannot write the query log", metadata: ["error": "\(error)"])
        }
    }

    /// Flushes every second until graceful shutdown (or cancellation), then once more.
    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                self.flush()
            }
        }
        flush()
    }
}
