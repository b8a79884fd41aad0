import Foundation

/// A following home's side of sync: what to send next, and what an answer changes.
public struct SyncFollower: Sendable {
    /// This home's records.
    public private(set) var replica: SyncReplica
    /// The serving home's change number this home has everything up to.
    public private(set) var cursor: UInt64 = 0
    /// The serving home's numbering that ``cursor`` counts in.
    public private(set) var numbering = ""
    /// This home's own change number up to which the serving home has merged its changes.
    public private(set) var acknowledgedThrough: UInt64 = 0
    /// The records seen since the serving home started again from the beginning, until the
    /// last page of that restart.
    private var seenSinceRestart: Set<SyncRecordID>?

    /// A follower over `replica` (whose role must be ``SyncRole/following``), at `position`.
    public init(replica: SyncReplica, position: Position = Position()) {
        precondition(replica.role == .following, "a follower follows")
        self.replica = replica
        cursor = position.cursor
        numbering = position.numbering
        acknowledgedThrough = position.acknowledgedThrough
        seenSinceRestart = position.seenSinceRestart.map(Set.init)
    }

    /// Where a follower stands with the serving home, as a store keeps it.
    public struct Position: Hashable, Sendable, Codable {
        /// See ``SyncFollower/cursor``.
        public var cursor: UInt64 = 0
        /// See ``SyncFollower/numbering``.
        public var numbering = ""
        /// See ``SyncFollower/acknowledgedThrough``.
        public var acknowledgedThrough: UInt64 = 0
        /// The records seen since a restart began, while it lasts.
        public var seenSinceRestart: [SyncRecordID]?

        /// The position of a follower that never synced.
        public init() {}
    }

    /// Where this follower stands, for the store.
    public var position: Position {
        var position = Position()
        position.cursor = cursor
        position.numbering = numbering
        position.acknowledgedThrough = acknowledgedThrough
        position.seenSinceRestart = seenSinceRestart.map { $0.sorted() }
        return position
    }

    /// The replica's records changed since the last call (see ``SyncReplica/takeUnsaved()``).
    public mutating func takeUnsaved() -> [(id: SyncRecordID, saved: SavedRecord?)] { replica.takeUnsaved() }

    /// Changes this home's records in place: its own edits, which the caller records (without
    /// copying every record, as taking ``replica`` out and putting it back would).
    public mutating func updateReplica<T>(_ body: (inout SyncReplica) throws -> T) rethrows -> T {
        try body(&replica)
    }

    /// Whether this home has changes the serving home has not acknowledged.
    public var hasUnsentChanges: Bool { replica.hasChanges(after: acknowledgedThrough) }

    /// Writes `values` into the record `id`, as a change made on this home now.
    @discardableResult
    public mutating func write(_ id: SyncRecordID, values: [String: String], now: Date) -> SyncRecord {
        replica.write(id, values: values, now: now)
    }

    /// Deletes the record `id`, as a change made on this home now; `nil` when it is not live.
    @discardableResult
    public mutating func delete(_ id: SyncRecordID, now: Date) -> SyncRecord? {
        replica.delete(id, now: now)
    }

    /// The next request: this home's unacknowledged changes (at most `limit`) and its cursor.
    public func request(limit: Int) -> SyncRequest {
        let changes = replica.changes(after: acknowledgedThrough, limit: limit)
        return SyncRequest(
            device: replica.device, changes: changes.records, changesThrough: changes.through, cursor: cursor, numbering: numbering,
            limit: limit)
    }

    /// Takes the serving home's answer to one of this home's requests. Answers may arrive late,
    /// twice or out of order: records always merge (merging twice changes nothing), while the
    /// refusals and a restart count only from the answer to this home's current cursor.
    ///
    /// - Returns: what changed for the person (to apply to this home's state).
    /// - Throws: ``SyncError/stampTooFarAhead(_:limit:)`` when a record is stamped too far ahead
    ///   of this home's clock; then nothing changed.
    public mutating func receive(_ response: SyncResponse, now: Date) throws(SyncError) -> SyncMergeOutcome {
        var outcome = try replica.merge(response.records, now: now, trustingHorizon: true)
        let current = response.after == cursor
        if current {
            for id in response.refused {
                if let changed = replica.dropChanges(of: id, olderThan: response.horizon) { outcome.changed.append(changed) }
            }
        }
        replica.adopt(horizon: response.horizon)
        acknowledgedThrough = max(acknowledgedThrough, response.acknowledgedThrough)
        if current && response.restarted {
            seenSinceRestart = []
            cursor = response.through
            numbering = response.numbering
            // The serving home may be a past of itself (restored from a backup) that lacks what it
            // had, even what it sent: send everything again (merging it twice changes nothing).
            replica.markAllChanged()
        } else if response.numbering == numbering || cursor == 0 {
            cursor = max(cursor, response.through)
            numbering = response.numbering
        }
        if seenSinceRestart != nil {
            seenSinceRestart!.formUnion(response.records.map(\.id))
            if current && !response.more {
                // The restart is complete: whatever this home holds that the serving home did not
                // send may have been deleted there by a forgotten tombstone, unless it is newer
                // than the horizon (then it is this home's own change, still to be sent).
                for id in Set(replica.records.keys).subtracting(seenSinceRestart!) {
                    if let changed = replica.dropChanges(of: id, olderThan: response.horizon) { outcome.changed.append(changed) }
                }
                seenSinceRestart = nil
            }
        }
        return outcome
    }
}
