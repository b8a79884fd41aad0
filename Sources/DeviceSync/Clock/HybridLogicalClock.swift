import Foundation

/// A device's hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014): stamps
/// that follow the wall clock where it is right and never go behind a stamp the device has seen,
/// so a change made after another was seen always wins over it, whatever the two devices' clocks
/// say.
///
/// Why not the wall clock alone: a phone whose clock is an hour slow would lose every change it
/// makes against an older change from a laptop; with this clock it loses only against changes it
/// had not seen yet.
public struct HybridLogicalClock: Sendable {
    /// The device whose stamps this clock makes.
    public let device: DeviceID
    /// How far ahead of this device's wall clock a stamp from another device may be. A stamp
    /// further ahead is refused: accepting it would drag every later change of this home into
    /// that future, and let one device with a wrong clock (or a hostile one) win every conflict.
    public let maximumDrift: Duration
    /// The newest reading made or observed so far.
    public private(set) var latest: SyncStamp

    /// A clock for `device`, starting at 1970 (the first reading follows the wall clock).
    public init(device: DeviceID, maximumDrift: Duration = .seconds(24 * 3600), latest: SyncStamp? = nil) {
        self.device = device
        self.maximumDrift = maximumDrift
        self.latest = latest ?? SyncStamp(millis: 0, counter: 0, device: device)
    }

    /// A new stamp for a change made now on this device: later than every stamp made or seen.
    public mutating func next(now: Date) -> SyncStamp {
        let wall = Self.millis(now)
        if wall > latest.millis {
            latest = SyncStamp(millis: wall, counter: 0, device: device)
        } else {
            latest = advanced(millis: latest.millis, counter: latest.counter)
        }
        return latest
    }

    /// Takes a stamp from another device into account, so that this device's next change is
    /// later than it.
    ///
    /// - Throws: ``SyncError/stampTooFarAhead(_:limit:)`` when the stamp is more than
    ///   ``maximumDrift`` ahead of this device's clock; the clock is unchanged.
    public mutating func observe(_ stamp: SyncStamp, now: Date) throws(SyncError) {
        let wall = Self.millis(now)
        let limit = wall + Self.millis(maximumDrift)
        guard stamp.millis <= limit else { throw .stampTooFarAhead(stamp, limit: limit) }
        guard stamp > latest else { return }
        latest = SyncStamp(millis: stamp.millis, counter: stamp.counter, device: device)
    }

    /// Whether `stamp` would be accepted by ``observe(_:now:)``.
    public func accepts(_ stamp: SyncStamp, now: Date) -> Bool {
        stamp.millis <= Self.millis(now) + Self.millis(maximumDrift)
    }

    private func advanced(millis: Int64, counter: UInt32) -> SyncStamp {
        // A counter this high means more than four billion changes within one millisecond of a
        // stamp: moving the physical part on by one keeps the order without wrapping.
        counter == .max
            ? SyncStamp(millis: millis + 1, counter: 0, device: device)
            : SyncStamp(millis: millis, counter: counter + 1, device: device)
    }

    /// Milliseconds since 1970 of `date`.
    public static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Whole milliseconds in `duration`.
    public static func millis(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
