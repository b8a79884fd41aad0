import Foundation

/// The DNS query log as it grows, for every live view open on it at once: one reader asks the
/// log for new rows every ``interval`` while at least one view is open, and hands each view the
/// rows it has not seen. Ten open pages cost one read a second, not ten (the DNS server is
/// another process, so reading the shared SQLite file is how its answers reach us).
///
/// A view that joins with an older row id catches up once on its own (at most
/// ``catchUpLimit`` rows; one further behind skips the rest and joins at the newest row), then
/// shares the reader.
public final class DNSLiveTail: @unchecked Sendable {
    // `@unchecked`: `state` is only touched with `lock` held (`Mutex` needs iOS 18).
    /// How often the log is read while a view is open.
    public let interval: Duration
    /// The most rows a joining view is given from before it joined.
    public let catchUpLimit: Int

    /// Reads the rows logged after an id, oldest first.
    typealias Read = @Sendable (_ after: Int64, _ limit: Int) async throws -> [DNSScreen.Row]

    private struct Viewer {
        var after: Int64
        let continuation: AsyncStream<[DNSScreen.Row]>.Continuation
    }

    private struct State {
        var viewers: [UUID: Viewer] = [:]
        /// Views that closed while catching up, before they joined.
        var closedEarly: Set<UUID> = []
        var reader: Task<Void, Never>?
    }

    /// The most rows one read takes.
    static let batch = 500

    private let read: Read
    private let latest: @Sendable () async -> Int64
    private let lock = NSLock()
    private var state = State()

    init(interval: Duration, catchUpLimit: Int = 100, read: @escaping Read, latest: @escaping @Sendable () async -> Int64) {
        self.interval = interval
        self.catchUpLimit = catchUpLimit
        self.read = read
        self.latest = latest
    }

    /// How many views are open.
    public var viewers: Int { lock.withLock { state.viewers.count } }

    /// The rows logged after `id` (after the newest row when `nil`), in batches as they come,
    /// oldest first, until the stream's consumer stops.
    public func rows(after id: Int64?) -> AsyncStream<[DNSScreen.Row]> {
        let (stream, continuation) = AsyncStream<[DNSScreen.Row]>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let key = UUID()
        let joining = Task { [self] in
            let start = if let id { id } else { await latest() }
            // Caught up on its own before joining, with at most `catchUpLimit` rows: a view that
            // reconnects far behind skips the rest and joins at the newest row, so the one reader
            // never goes back for it.
            var after = start
            if let missed = try? await read(start, catchUpLimit), let last = missed.last {
                continuation.yield(missed)
                after = missed.count < catchUpLimit ? last.id : max(last.id, await latest())
            }
            join(key, Viewer(after: after, continuation: continuation))
        }
        continuation.onTermination = { [weak self] _ in
            joining.cancel()
            self?.leave(key)
        }
        return stream
    }

    private func join(_ key: UUID, _ viewer: Viewer) {
        lock.withLock {
            guard state.closedEarly.remove(key) == nil else { return }
            state.viewers[key] = viewer
            if state.reader == nil {
                state.reader = Task { [self] in await readWhileWatched() }
            }
        }
    }

    private func leave(_ key: UUID) {
        lock.withLock {
            if state.viewers.removeValue(forKey: key) == nil { state.closedEarly.insert(key) }
        }
    }

    /// The one reader: reads from the oldest position any view is at, hands each view what is
    /// new to it, and ends when the last view has gone.
    private func readWhileWatched() async {
        while true {
            let from: Int64? = lock.withLock {
                guard let oldest = state.viewers.values.map(\.after).min() else {
                    state.reader = nil
                    return nil
                }
                return oldest
            }
            guard let from else { return }
            let rows = (try? await read(from, Self.batch)) ?? []
            if !rows.isEmpty {
                lock.withLock {
                    for (key, viewer) in state.viewers {
                        let new = rows.filter { $0.id > viewer.after }
                        guard let last = new.last else { continue }
                        viewer.continuation.yield(new)
                        state.viewers[key]?.after = last.id
                    }
                }
            }
            // A full batch: more are waiting, read on at once.
            if rows.count < Self.batch { try? await Task.sleep(for: interval) }
        }
    }
}
