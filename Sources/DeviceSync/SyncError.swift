/// Why a sync step was refused. Each refusal changes nothing.
public enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A device name that is empty, longer than 64 characters or has characters other than
    /// `a-z`, `0-9` and `-`.
    case invalidDeviceID(String)
    /// A change stamped further in the future than the receiving home's clock allows.
    case stampTooFarAhead(SyncStamp, limit: Int64)
    /// A batch with more records than the receiving home takes at once.
    case batchTooLarge(records: Int, limit: Int)
    /// A record whose fields or key are larger than the receiving home takes.
    case recordTooLarge(SyncRecordID, bytes: Int, limit: Int)

    /// A stored replica whose parts do not fit together.
    case inconsistentLedger(String)

    public var description: String {
        switch self {
        case .invalidDeviceID(let text):
            "invalid device name \"\(text)\": use 1 to 64 characters from a-z, 0-9 and -"
        case .stampTooFarAhead(let stamp, let limit):
            "a change stamped \(stamp) is more than the allowed drift ahead of this home's clock (\(limit) ms): check the sending device's clock"
        case .batchTooLarge(let records, let limit):
            "a batch of \(records) records is more than the \(limit) taken at once"
        case .inconsistentLedger(let why):
            "the stored sync state is inconsistent: \(why)"
        case .recordTooLarge(let id, let bytes, let limit):
            "record \(id) has \(bytes) bytes, more than the \(limit) taken"
        }
    }
}
