/// What a following home sends the serving one: its changes since the last it had acknowledged,
/// and where it stands in the serving home's changes.
public struct SyncRequest: Hashable, Sendable, Codable {
    /// The sending device.
    public var device: DeviceID
    /// The sender's records changed since the serving home last acknowledged them.
    public var changes: [SyncRecord]
    /// The sender's own change number that ``changes`` reach.
    public var changesThrough: UInt64
    /// The serving home's change number that the sender has everything up to (0 at first).
    public var cursor: UInt64
    /// The serving home's ``SyncReplica/numbering`` that ``cursor`` counts in (empty at first).
    public var numbering: String
    /// At most how many records the sender wants back.
    public var limit: Int

    /// A request with these parts.
    public init(device: DeviceID, changes: [SyncRecord], changesThrough: UInt64, cursor: UInt64, numbering: String, limit: Int) {
        self.device = device
        self.changes = changes
        self.changesThrough = changesThrough
        self.cursor = cursor
        self.numbering = numbering
        self.limit = limit
    }
}

/// What the serving home answers: the sender's changes acknowledged, and a page of its own.
public struct SyncResponse: Hashable, Sendable, Codable {
    /// The request's ``SyncRequest/cursor`` that this page follows (or 0 when ``restarted``).
    public var after: UInt64
    /// Whether the page starts from the beginning because the request's cursor was too old (a
    /// deletion after it may have been forgotten) or counted in another numbering.
    public var restarted: Bool
    /// The serving home's numbering that ``through`` counts in.
    public var numbering: String
    /// The serving home's records changed after ``after``, oldest change first.
    public var records: [SyncRecord]
    /// The change number the page reaches: the sender's next cursor.
    public var through: UInt64
    /// Whether more changes follow.
    public var more: Bool
    /// The sender's own change number up to which its changes are merged here.
    public var acknowledgedThrough: UInt64
    /// The sender's records (or their oldest changes) refused as older than ``horizon``.
    public var refused: [SyncRecordID]
    /// Changes older than this (milliseconds since 1970) may have been forgotten here.
    public var horizon: Int64

    /// A response with these parts.
    public init(
        after: UInt64, restarted: Bool, numbering: String, records: [SyncRecord], through: UInt64, more: Bool, acknowledgedThrough: UInt64,
        refused: [SyncRecordID], horizon: Int64
    ) {
        self.after = after
        self.restarted = restarted
        self.numbering = numbering
        self.records = records
        self.through = through
        self.more = more
        self.acknowledgedThrough = acknowledgedThrough
        self.refused = refused
        self.horizon = horizon
    }
}

/// How a following home reaches the serving one. The one Pepper builds is Pepper-to-Pepper over
/// HTTPS; another (CloudKit on Apple platforms) would carry the same request and response.
public protocol SyncTransport: Sendable {
    /// Sends `request` to the serving home and returns its answer.
    func exchange(_ request: SyncRequest) async throws -> SyncResponse
}
