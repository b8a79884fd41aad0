/// When and where one change to a synced record was made: a hybrid logical clock's reading on
/// the device that made it.
///
/// Stamps are totally ordered: by ``millis`` (physical time in milliseconds since 1970, as the
/// device's clock saw it, never behind any stamp it had seen), then by ``counter`` (changes within
/// one millisecond, or made while the device's clock lagged a stamp it had seen), then by
/// ``device``, so two changes never tie and every home picks the same winner.
public struct SyncStamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00 UTC.
    public var millis: Int64
    /// Orders changes that share ``millis``.
    public var counter: UInt32
    /// The device that made the change.
    public var device: DeviceID

    /// A stamp with these parts.
    public init(millis: Int64, counter: UInt32, device: DeviceID) {
        self.millis = millis
        self.counter = counter
        self.device = device
    }

    public static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        (lhs.millis, lhs.counter, lhs.device.rawValue) < (rhs.millis, rhs.counter, rhs.device.rawValue)
    }

    /// `millis.counter@device`, as logs and errors show it.
    public var description: String { "\(millis).\(counter)@\(device.rawValue)" }
}
