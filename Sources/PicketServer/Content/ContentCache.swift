import Foundation
import Logging
import Picket

/// The server's view of the store: the published content and the key table, refreshed when
/// the store's revision counters move (checked at most every `checkInterval` seconds, so
/// changes made elsewhere — another server, `pepper picket moderate` — arrive within that
/// time) and when an action starts or ends. Requests never wait for the store unless nothing is
/// loaded yet; while one request refreshes, the others use what is loaded.
final class ContentCache: @unchecked Sendable {
    private let store: any PicketStore
    private let checkInterval: Double
    private let radii: PublishedContent.Radii
    private let logger: Logger
    private let metrics: PicketServerMetrics
    private let lock = NSLock()
    private var content: PublishedContent?
    private var keys: KeyTable?
    private var lastCheck: Double = -.infinity
    private var refreshing = false
    /// Whether the store answered lately (shared with the handlers' writes).
    let health = StoreHealth()

    init(
        store: any PicketStore, checkInterval: Double, radii: PublishedContent.Radii, logger: Logger,
        metrics: PicketServerMetrics = PicketServerMetrics()
    ) {
        self.metrics = metrics
        self.store = store
        self.checkInterval = checkInterval
        self.radii = radii
        self.logger = logger
    }

    /// The current content and keys, refreshed first if due.
    func current() async throws -> (PublishedContent, KeyTable) {
        let uptime = ProcessInfo.processInfo.systemUptime
        let now = Date()
        let loaded: (PublishedContent, KeyTable)? = lock.withLock { () -> (PublishedContent, KeyTable)? in
            guard let content, let keys else { return nil }
            let fresh = uptime - lastCheck < checkInterval && (content.validUntil.map { now < $0 } ?? true)
            if fresh || refreshing { return (content, keys) }
            refreshing = true
            return nil
        }
        if let loaded { return loaded }
        let previous: (PublishedContent, KeyTable)? = lock.withLock { () -> (PublishedContent, KeyTable)? in
            guard let content, let keys else { return nil }
            return (content, keys)
        }
        // A local store (SQLite) answers or fails at once: wait for it, so that a change is seen
        // by the very next request after the check interval, however loaded the machine.
        guard let previous, store.kind != "sqlite" else { return try await refresh(now: now, uptime: uptime) }
        // A store over the network with something loaded: wait for it at most `health.wait`,
        // then answer from what is loaded while the refresh goes on (PostgreSQL's client waits
        // for a connection as long as the server is down, and would hold the request as long).
        let refreshTask = Task { try await self.refresh(now: now, uptime: uptime) }
        guard case .success(let refreshed) = await Deadline.value(of: refreshTask, within: health.wait) else {
            health.failed()
            return previous
        }
        return refreshed
    }

    /// Forces the next request to check the store (after this server changed it).
    func invalidate() {
        lock.withLock { lastCheck = -.infinity }
    }

    private func refresh(now: Date, uptime: Double) async throws -> (PublishedContent, KeyTable) {
        let (oldContent, oldKeys) = lock.withLock { (content, keys) }
        do {
            var revision = try await store.revision()
            let timeChanged = oldContent?.validUntil.map { now >= $0 } ?? false
            var newContent = oldContent
            if oldContent == nil || oldContent!.revision != revision.content || timeChanged {
                if try await store.completeEndedActions(now: now) > 0 { revision = try await store.revision() }
                let records = try await store.publishedRecords(now: now)
                // Labelled with the revision read with the records (one transaction), so a change
                // committed between the two reads is not published under the older revision.
                newContent = PublishedContent(
                    records: records, revision: records.revision?.content ?? revision.content, now: now, radii: radii)
            }
            var newKeys = oldKeys
            if oldKeys == nil || oldKeys!.revision != revision.keys {
                newKeys = KeyTable(records: try await store.apiKeys(), revision: revision.keys)
            }
            let result = (newContent!, newKeys!)
            lock.withLock {
                content = result.0
                keys = result.1
                lastCheck = uptime
                refreshing = false
            }
            metrics.contentRevision(result.0.revision)
            health.succeeded()
            return result
        } catch {
            let fallback: (PublishedContent, KeyTable)? = lock.withLock {
                refreshing = false
                guard let content, let keys else { return nil }
                // Keep serving what is loaded; try the store again at the next interval.
                lastCheck = uptime
                return (content, keys)
            }
            logger.error("cannot refresh from the \(store.kind) store: \(error)")
            metrics.storeError(refreshing: true)
            health.failed()
            if let fallback { return fallback }
            throw error
        }
    }
}
