import BlockingWork
import Foundation
import ListSync
import Storage

/// How an update runs.
public struct UpdateOptions: Sendable, Hashable {
    /// Fetch every enabled list, even those not due.
    public var force: Bool
    /// Limits of each download.
    public var downloads: ListDownloader.Policy
    /// Wait for a running update to finish (else fail at once with ``ActionError/updateRunning(pid:)``).
    public var waitForLock: Bool

    /// Options with the given settings.
    public init(force: Bool = false, downloads: ListDownloader.Policy = ListDownloader.Policy(), waitForLock: Bool = true) {
        self.force = force
        self.downloads = downloads
        self.waitForLock = waitForLock
    }
}

/// What an update is doing, as it happens (for a progress bar or a live page).
public enum UpdateEvent: Sendable, Hashable {
    /// Another update holds the lock; this one waits for it (its pid when known).
    case waitingForLock(pid: Int32?)
    /// The update starts, with the lists it will look at.
    case started(lists: [String])
    /// Bytes of a list received so far, and how many are expected when known.
    case progress(list: String, received: Int, expected: Int?)
    /// One list is done.
    case finished(ListUpdater.Report)
    /// The content blocker is being compiled.
    case compiling
    /// Everything is done.
    case done(UpdateSummary)
}

/// The outcome of an update.
public struct UpdateSummary: Sendable, Hashable {
    /// What happened to each enabled list, in catalogue order.
    public var reports: [ListUpdater.Report]
    /// The rebuild, when one was needed (a list changed, `force`, or the output was stale).
    public var outcome: RebuildOutcome?
    /// When it finished.
    public var finishedAt: Date

    /// Whether every list updated or was up to date.
    public var allGood: Bool {
        reports.allSatisfy { if case .failed = $0.status { return false } else { return true } }
    }
}

extension PepperState {
    /// Updates every enabled list (downloading what changed, keeping the last good copy of what
    /// fails), then rebuilds when a list changed, when `force`, or when the output is stale.
    /// One update runs at a time per home (`update.lock`, waited for off Swift's cooperative
    /// threads); `events` follows the progress.
    public func update(
        _ options: UpdateOptions = UpdateOptions(), events: @escaping @Sendable (UpdateEvent) -> Void = { _ in }
    ) async throws(ActionError) -> UpdateSummary {
        let directory = home.url
        let wait = options.waitForLock
        let locked = await LongBlockingWork.run { () -> Result<UpdateLock, UpdateLock.Error> in
            Result { () throws(UpdateLock.Error) in
                try UpdateLock(directory: directory, wait: wait) { pid in events(.waitingForLock(pid: pid)) }
            }
        }
        let lock: UpdateLock
        switch locked {
        case .success(let taken): lock = taken
        case .failure(.busy(let pid)): throw .updateRunning(pid: pid)
        case .failure(let error): throw .storage("\(error)")
        }
        defer { withExtendedLifetime(lock) {} }

        let sources = try await onBlockingThreads { [database, home] () throws(ActionError) -> [ListSource] in
            let sources: [ListSource]
            do {
                sources = try ListSourceStore(database: database).enabled()
            } catch {
                throw .storage("cannot read the lists: \(error)")
            }
            // A copy whose record a killed update committed goes in place first.
            ListCopies.settle(sources, home: home)
            return sources
        }
        events(.started(lists: sources.map(\.name)))
        let updater = listUpdater(downloader: ListDownloader(policy: options.downloads))
        var reports: [ListUpdater.Report] = []
        var changed = false
        for source in sources {
            let name = source.name
            let report: ListUpdater.Report
            do {
                report = try await updater.update(source, force: options.force) { received, expected in
                    events(.progress(list: name, received: received, expected: expected))
                }
            } catch {
                // A full disk fails every list after this one too: stop, with the last good
                // copies and output in place.
                throw .storage("\(error)")
            }
            if case .updated = report.status { changed = true }
            reports.append(report)
            events(.finished(report))
        }
        var summary = UpdateSummary(reports: reports, outcome: nil, finishedAt: Date())
        // A missing output, or one built with an allowlist entry that has since lapsed, is
        // rebuilt even when no list changed.
        var rebuildNeeded = changed || options.force
        if !rebuildNeeded {
            rebuildNeeded = await LongBlockingWork.run { [home, database] in
                !BlockerBuilder.outputIsCurrent(home: home, database: database)
            }
        }
        if rebuildNeeded {
            events(.compiling)
            summary.outcome = try await rebuild()
        }
        summary.finishedAt = Date()
        events(.done(summary))
        return summary
    }

    /// When the next update is due: the earliest expiry of the enabled lists that have a copy
    /// (`nil` when a list has never been downloaded: it is due now).
    public func nextUpdateDue() throws(ActionError) -> Date? {
        let sources: [ListSource]
        do {
            sources = try ListSourceStore(database: database).enabled()
        } catch {
            throw .storage("cannot read the lists: \(error)")
        }
        if sources.contains(where: { $0.lastSuccess == nil }) { return nil }
        return sources.compactMap(\.expiresAt).min()
    }
}
