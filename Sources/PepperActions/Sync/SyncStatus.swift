import DeviceSync
import Foundation
import Storage

/// Where a home stands in sync: what `pepper sync status`, the console's Sync page and the
/// app's sync screen show.
public struct SyncStatus: Sendable, Hashable {
    /// Whether the home syncs, and how.
    public enum Role: String, Sendable, Hashable {
        /// It never paired and never served.
        case none
        /// Other devices pair with it and sync through it.
        case serving
        /// It follows a serving home.
        case following
    }

    /// The role.
    public var role: Role
    /// This home's device name in sync.
    public var device: String?
    /// The serving home this one follows.
    public var server: URL?
    /// How the serving home's certificate is checked.
    public var trust: SyncServerTrust?
    /// When this home last pushed and pulled everything.
    public var lastSync: Date?
    /// Why the last attempt failed, if it did.
    public var lastError: String?
    /// Changes made here that the serving home has not taken yet (a following home), or that
    /// sync has not looked at yet (any home).
    public var pendingChanges: Int
    /// Synced decisions this home holds.
    public var records: Int
    /// The devices paired with this home (a serving home).
    public var devices: [SyncPairingStore.Device]
}
