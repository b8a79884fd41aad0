import Foundation

/// Whether a home serves sync to the others or follows the one that serves.
public enum SyncRole: String, Hashable, Sendable, Codable {
    /// The home the others exchange changes with: what one device sends, it passes on to all.
    case serving
    /// A home that exchanges changes with the serving one only.
    case following
}

/// What merging a batch of records did.
public struct SyncMergeOutcome: Hashable, Sendable {
    /// The records whose state changed for the person (created, changed, deleted), as they are
    /// now: the ones to apply to the home's own state.
    public var changed: [SyncRecord] = []
    /// Records, or their oldest changes, refused because nobody may still know whether they
    /// were deleted since (older than the retention; see ``SyncReplica/horizon``).
    public var refused: [SyncRecordID] = []

    /// Nothing changed and nothing was refused.
    public init() {}
}

/// One home's synced records: the changes made on it and those merged from others, numbered in
/// the order they reached this home, so a counterpart asks for "everything after number N".
///
/// Deletions are kept as tombstones for the retention, then forgotten (``forget(before:)``); after
/// that, a change older than the ``horizon`` to a record this home does not have is refused
/// rather than trusted, because the record may have been deleted by a forgotten tombstone.
public struct SyncReplica: Sendable {
    /// Whether this home serves or follows.
    public let role: SyncRole
    /// This home's clock.
    public private(set) var clock: HybridLogicalClock
    /// The records by identity, live and deleted.
    public private(set) var records: [SyncRecordID: SyncRecord] = [:]
    /// The number of the latest change that reached this home.
    public private(set) var sequence: UInt64 = 0
    /// Changes older than this (milliseconds since 1970) may have been forgotten.
    public private(set) var horizon: Int64 = 0
    /// The highest change number among forgotten records: a counterpart whose cursor is below it
    /// may have missed a deletion and must start again from the beginning.
    public private(set) var forgottenThrough: UInt64 = 0
    /// The identity of this home's change numbers: a new one when the numbers start again (a
    /// home restored from a backup), so counterparts do not mistake the new numbers for the old.
    public private(set) var numbering: String = UUID().uuidString
    private var numbers: [SyncRecordID: UInt64] = [:]
    /// Every change number given, in rising order, with its record: a page of changes after a
    /// cursor is a binary search and a walk, not a sort of every record. An entry whose record
    /// has a newer number since (or none) is stale and skipped; stale entries are dropped when
    /// they are the majority.
    private var log: [(number: UInt64, id: SyncRecordID)] = []
    /// Records changed since ``takeUnsaved()`` was last called, for the store that keeps them.
    private var unsaved: Set<SyncRecordID> = []

    /// An empty replica for `device`.
    public init(device: DeviceID, role: SyncRole, maximumDrift: Duration = .seconds(24 * 3600)) {
        self.role = role
        clock = HybridLogicalClock(device: device, maximumDrift: maximumDrift)
    }

    /// A replica as a store kept it (see ``ledger`` and ``takeUnsaved()``).
    ///
    /// - Throws: ``SyncError/inconsistentLedger(_:)`` when the records and the ledger do not fit
    ///   together (a number beyond the ledger's sequence, two records with one number).
    public init(ledger: SyncLedger, records saved: [SavedRecord]) throws(SyncError) {
        role = ledger.role
        clock = HybridLogicalClock(device: ledger.latest.device, maximumDrift: .seconds(ledger.maximumDriftSeconds), latest: ledger.latest)
        sequence = ledger.sequence
        horizon = ledger.horizon
        forgottenThrough = ledger.forgottenThrough
        numbering = ledger.numbering
        var seen: Set<UInt64> = []
        for saved in saved {
            if let number = saved.number {
                guard number <= ledger.sequence, seen.insert(number).inserted else {
                    throw .inconsistentLedger("record \(saved.record.id) has change number \(number) (sequence \(ledger.sequence))")
                }
                numbers[saved.record.id] = number
                log.append((number, saved.record.id))
            }
            records[saved.record.id] = saved.record
        }
        log.sort { $0.number < $1.number }
    }

    /// What a store keeps of this replica besides its records.
    public var ledger: SyncLedger {
        SyncLedger(
            role: role, latest: clock.latest, maximumDriftSeconds: clock.maximumDrift.components.seconds, sequence: sequence,
            horizon: horizon, forgottenThrough: forgottenThrough, numbering: numbering)
    }

    /// The records changed since the last call, as they are now (`nil` for one that is gone),
    /// for the store that keeps the replica.
    public mutating func takeUnsaved() -> [(id: SyncRecordID, saved: SavedRecord?)] {
        defer { unsaved = [] }
        return unsaved.sorted().map { id in (id, records[id].map { SavedRecord(record: $0, number: numbers[id]) }) }
    }

    /// This home's device.
    public var device: DeviceID { clock.device }

    /// The live records' values: what the person sees.
    public var visibleState: [SyncRecordID: [String: String]] {
        records.compactMapValues { $0.isLive ? $0.values : nil }
    }

    /// Writes `values` into the record `id`, as a change made on this home now.
    @discardableResult
    public mutating func write(_ id: SyncRecordID, values: [String: String], now: Date) -> SyncRecord {
        let record = (records[id] ?? SyncRecord(id: id)).writing(values, stamp: clock.next(now: now))
        store(record)
        return record
    }

    /// Deletes the record `id`, as a change made on this home now; `nil` when it is not live.
    @discardableResult
    public mutating func delete(_ id: SyncRecordID, now: Date) -> SyncRecord? {
        guard let existing = records[id], existing.isLive else { return nil }
        let record = existing.deleted(stamp: clock.next(now: now))
        store(record)
        return record
    }

    /// Merges records from a counterpart.
    ///
    /// - Parameters:
    ///   - incoming: the counterpart's copies of the records.
    ///   - now: this home's time, for the clock.
    ///   - trustingHorizon: whether changes older than ``horizon`` to records this home does not
    ///     have are taken (a following home takes what the serving one sends) or refused (the
    ///     serving home, from a device that may have been away longer than the retention).
    /// - Throws: ``SyncError/stampTooFarAhead(_:limit:)`` when any change is stamped too far in
    ///   the future; then nothing is merged.
    public mutating func merge(_ incoming: [SyncRecord], now: Date, trustingHorizon: Bool) throws(SyncError) -> SyncMergeOutcome {
        for record in incoming {
            for stamp in [record.deletion].compactMap({ $0 }) + record.fields.values.map(\.stamp)
            where !clock.accepts(stamp, now: now) {
                throw .stampTooFarAhead(stamp, limit: HybridLogicalClock.millis(now) + HybridLogicalClock.millis(clock.maximumDrift))
            }
        }
        var outcome = SyncMergeOutcome()
        for var record in incoming {
            if records[record.id] == nil, !trustingHorizon {
                guard let recent = record.keeping(from: horizon) else {
                    outcome.refused.append(record.id)
                    continue
                }
                if recent != record { outcome.refused.append(record.id) }
                record = recent
            }
            if let newest = record.newestStamp { try clock.observe(newest, now: now) }
            let existing = records[record.id]
            let merged = existing?.merged(with: record) ?? record
            guard merged != existing else { continue }
            if role == .serving || merged != record {
                store(merged)
            } else {
                // The counterpart has this very copy: no need to send it back.
                records[merged.id] = merged
                unsaved.insert(merged.id)
            }
            if (existing?.isLive ?? false) != merged.isLive || (merged.isLive && existing?.values != merged.values) {
                outcome.changed.append(merged)
            }
        }
        return outcome
    }

    /// Drops the changes older than `horizon` from the record `id`: what the serving home refused
    /// because it did not have the record (see ``merge(_:now:trustingHorizon:)``), so that both
    /// homes hold the same.
    ///
    /// - Returns: the record as it is now when that changed it for the person (not live when
    ///   nothing is left), else `nil`.
    public mutating func dropChanges(of id: SyncRecordID, olderThan horizon: Int64) -> SyncRecord? {
        guard let record = records[id] else { return nil }
        let kept = record.keeping(from: horizon)
        records[id] = kept
        unsaved.insert(id)
        if kept == nil { numbers[id] = nil }
        let now = kept ?? SyncRecord(id: id)
        return now.isLive != record.isLive || now.values != record.values ? now : nil
    }

    /// Takes the serving home's horizon: changes older than it may have been forgotten there.
    public mutating func adopt(horizon: Int64) {
        if horizon > self.horizon { forget(before: horizon) }
    }

    /// Forgets the tombstones of records deleted before `horizon` (milliseconds since 1970):
    /// after the retention, every device that was online has learned them.
    public mutating func forget(before horizon: Int64) {
        guard horizon > self.horizon else { return }
        self.horizon = horizon
        for (id, record) in records where !record.isLive && (record.deletion?.millis ?? .min) < horizon {
            records[id] = nil
            unsaved.insert(id)
            forgottenThrough = max(forgottenThrough, numbers.removeValue(forKey: id) ?? 0)
        }
    }

    /// Whether a record changed after change number `cursor` (without sorting them, as
    /// ``changes(after:limit:)`` does).
    public func hasChanges(after cursor: UInt64) -> Bool {
        guard let last = log.last(where: { numbers[$0.id] == $0.number }) else { return false }
        return last.number > cursor
    }

    /// The records changed after change number `cursor`, oldest first, at most `limit`.
    public func changes(after cursor: UInt64, limit: Int) -> SyncChanges {
        // The first entry after the cursor, by binary search (numbers rise along the log).
        var low = 0
        var high = log.count
        while low < high {
            let middle = (low + high) / 2
            if log[middle].number <= cursor { low = middle + 1 } else { high = middle }
        }
        var page: [(number: UInt64, id: SyncRecordID)] = []
        var index = low
        while index < log.count && page.count < max(limit, 0) {
            let entry = log[index]
            if numbers[entry.id] == entry.number { page.append(entry) }
            index += 1
        }
        let more = log[index...].contains { numbers[$0.id] == $0.number }
        return SyncChanges(
            records: page.compactMap { records[$0.id] },
            through: page.last?.number ?? max(cursor, sequence),
            more: more)
    }

    /// Starts a new ``numbering``: for a home restored from a backup, whose numbers after the
    /// backup's would otherwise mean other changes than counterparts took them for.
    public mutating func renumber() {
        numbering = UUID().uuidString
    }

    /// Gives every record a new change number, so that all are sent again: for a follower whose
    /// serving home started again (it may have lost what it had).
    public mutating func markAllChanged() {
        for record in records.values.sorted(by: { $0.id < $1.id }) { store(record) }
    }

    /// The change number of the record `id`'s latest change here.
    public func number(of id: SyncRecordID) -> UInt64? { numbers[id] }

    private mutating func store(_ record: SyncRecord) {
        sequence += 1
        records[record.id] = record
        numbers[record.id] = sequence
        log.append((sequence, record.id))
        if log.count > 1024 && log.count > 2 * numbers.count {
            log.removeAll { numbers[$0.id] != $0.number }
        }
        unsaved.insert(record.id)
    }
}

/// What a home keeps of its replica besides the records.
public struct SyncLedger: Hashable, Sendable, Codable {
    /// Whether the home serves or follows.
    public var role: SyncRole
    /// The clock's latest reading (its device is the home's).
    public var latest: SyncStamp
    /// The clock's allowed drift, in seconds.
    public var maximumDriftSeconds: Int64
    /// The latest change number.
    public var sequence: UInt64
    /// Changes older than this may have been forgotten.
    public var horizon: Int64
    /// The highest change number among forgotten records.
    public var forgottenThrough: UInt64
    /// The identity of the change numbers.
    public var numbering: String
}

/// One record as a store keeps it: the record and its change number here (none for a record
/// received as the counterpart had it, which needs no sending back).
public struct SavedRecord: Hashable, Sendable, Codable {
    /// The record.
    public var record: SyncRecord
    /// Its change number on this home.
    public var number: UInt64?

    /// A record and its number.
    public init(record: SyncRecord, number: UInt64?) {
        self.record = record
        self.number = number
    }
}

/// A page of changed records.
public struct SyncChanges: Hashable, Sendable {
    /// The records, as they are now.
    public var records: [SyncRecord]
    /// The change number the page reaches: ask for the next page after it.
    public var through: UInt64
    /// Whether more changes follow.
    public var more: Bool
}
