/// How much one exchange may carry, so that a device cannot exhaust the serving home.
public struct SyncLimits: Hashable, Sendable {
    /// Records per request, in either direction.
    public var recordsPerBatch: Int
    /// Bytes of one record's key and values.
    public var bytesPerRecord: Int

    /// Limits with these values.
    public init(recordsPerBatch: Int = 1000, bytesPerRecord: Int = 16 * 1024) {
        self.recordsPerBatch = recordsPerBatch
        self.bytesPerRecord = bytesPerRecord
    }

    /// Throws the first limit `request` exceeds.
    public func check(_ request: SyncRequest) throws(SyncError) {
        guard request.changes.count <= recordsPerBatch else {
            throw .batchTooLarge(records: request.changes.count, limit: recordsPerBatch)
        }
        for record in request.changes {
            let bytes = record.id.key.utf8.count + record.fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.value.utf8.count }
            guard bytes <= bytesPerRecord else { throw .recordTooLarge(record.id, bytes: bytes, limit: bytesPerRecord) }
        }
    }
}
