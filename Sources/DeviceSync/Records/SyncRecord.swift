/// One field's value and the change that wrote it.
public struct SyncField: Hashable, Sendable, Codable {
    /// The value, as the kind's owner writes it.
    public var value: String
    /// The change that wrote it.
    public var stamp: SyncStamp

    /// A value written by the change `stamp`.
    public init(value: String, stamp: SyncStamp) {
        self.value = value
        self.stamp = stamp
    }
}

/// The synced state of one decision, as every device keeps it: each field with the change that
/// last wrote it, and the latest deletion.
///
/// Two copies merge field by field, the later change winning (last writer wins per field: a
/// change to an allowlist entry's expiry on one device and to its note on another both survive),
/// and the later deletion winning. A field counts only if written after the latest deletion, so
/// deleting a record removes what was there, and writing it again afterwards brings back only
/// what that write said. Merging is commutative, associative and idempotent, so copies that have
/// seen the same changes are equal in whatever order and however often the changes arrived.
public struct SyncRecord: Hashable, Sendable, Codable {
    /// Which decision this is.
    public var id: SyncRecordID
    /// The fields written after ``deletion``, by name.
    public private(set) var fields: [String: SyncField]
    /// The latest deletion of the record, if any: kept as a tombstone so that devices that were
    /// offline learn it.
    public private(set) var deletion: SyncStamp?

    /// A record with these fields and deletion; fields written before the deletion are dropped.
    public init(id: SyncRecordID, fields: [String: SyncField] = [:], deletion: SyncStamp? = nil) {
        self.id = id
        self.deletion = deletion
        self.fields = fields.filter { deletion == nil || $0.value.stamp > deletion! }
    }

    /// Whether the record exists for the person: some field was written after the latest
    /// deletion (a record never written is not live either).
    public var isLive: Bool { !fields.isEmpty }

    /// The fields' values, by name.
    public var values: [String: String] { fields.mapValues(\.value) }

    /// The newest change in the record.
    public var newestStamp: SyncStamp? {
        ([deletion].compactMap { $0 } + fields.values.map(\.stamp)).max()
    }

    /// The oldest change the record still holds.
    public var oldestStamp: SyncStamp? {
        ([deletion].compactMap { $0 } + fields.values.map(\.stamp)).min()
    }

    /// This record with `values` written by the change `stamp` (other fields untouched).
    public func writing(_ values: [String: String], stamp: SyncStamp) -> SyncRecord {
        merged(with: SyncRecord(id: id, fields: values.mapValues { SyncField(value: $0, stamp: stamp) }))
    }

    /// This record deleted by the change `stamp`.
    public func deleted(stamp: SyncStamp) -> SyncRecord {
        merged(with: SyncRecord(id: id, deletion: stamp))
    }

    /// Both copies' changes: the later deletion, and per field the later write after it.
    ///
    /// - Precondition: both copies have the same ``id``.
    public func merged(with other: SyncRecord) -> SyncRecord {
        precondition(id == other.id, "merging \(id) with \(other.id)")
        let deletion = [deletion, other.deletion].compactMap { $0 }.max()
        let fields = fields.merging(other.fields) { mine, theirs in theirs.stamp > mine.stamp ? theirs : mine }
        return SyncRecord(id: id, fields: fields, deletion: deletion)
    }

    /// The record without the changes older than `horizon`, for a record that nobody may know
    /// the rest of (see ``SyncReplica``'s retention); `nil` when nothing is left.
    func keeping(from horizon: Int64) -> SyncRecord? {
        let kept = SyncRecord(
            id: id, fields: fields.filter { $0.value.stamp.millis >= horizon },
            deletion: deletion.flatMap { $0.millis >= horizon ? $0 : nil })
        return kept.fields.isEmpty && kept.deletion == nil ? nil : kept
    }
}
