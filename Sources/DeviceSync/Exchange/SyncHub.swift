import Foundation

/// The serving home's side of sync: merges what a device sends, answers with what it lacks.
public struct SyncHub: Sendable {
    /// The serving home's records (its own changes too: the serving home is also a home).
    public var replica: SyncReplica
    /// What one exchange may carry.
    public var limits: SyncLimits

    /// A hub over `replica` (whose role must be ``SyncRole/serving``).
    public init(replica: SyncReplica, limits: SyncLimits = SyncLimits()) {
        precondition(replica.role == .serving, "a hub serves")
        self.replica = replica
        self.limits = limits
    }

    /// How long deletions are remembered: 90 days, long enough for a phone left in a drawer over
    /// a holiday; a device away longer starts again (see ``SyncFollower``).
    public static let retention: Duration = .seconds(90 * 24 * 3600)

    /// Forgets the deletions older than ``retention``.
    public mutating func forgetOldDeletions(now: Date) {
        replica.forget(before: HybridLogicalClock.millis(now) - HybridLogicalClock.millis(Self.retention))
    }

    /// Merges the device's changes and answers with a page of this home's.
    ///
    /// - Returns: the answer, and what merging changed here (to apply to this home's state).
    /// - Throws: a ``SyncError`` when the request breaks a limit or carries a change stamped too
    ///   far ahead; then nothing changed.
    public mutating func exchange(_ request: SyncRequest, now: Date) throws(SyncError) -> (SyncResponse, SyncMergeOutcome) {
        try limits.check(request)
        let outcome = try replica.merge(request.changes, now: now, trustingHorizon: false)
        // A cursor below a forgotten record may have missed its deletion; one in another numbering
        // (this home restored from a backup since) means other changes: both start again from the
        // beginning.
        let restart =
            request.cursor != 0
            && (request.cursor < replica.forgottenThrough || request.numbering != replica.numbering || request.cursor > replica.sequence)
        let after = restart ? 0 : request.cursor
        let page = replica.changes(after: after, limit: min(max(request.limit, 1), limits.recordsPerBatch))
        let response = SyncResponse(
            after: restart ? request.cursor : after, restarted: restart, numbering: replica.numbering, records: page.records,
            through: page.through, more: page.more,
            acknowledgedThrough: request.changesThrough, refused: outcome.refused, horizon: replica.horizon)
        return (response, outcome)
    }
}
