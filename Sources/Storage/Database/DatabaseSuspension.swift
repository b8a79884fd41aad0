import Foundation
import GRDB

/// Stops this process's databases from taking locks, and lets them again: the remedy GRDB
/// documents for iOS's `0xDEAD10CC` ("the operating system terminated the app because it held on
/// to a file lock or SQLite database lock during suspension").
///
/// Only databases opened with `observesSuspension` (``PepperDatabase/init(url:observesSuspension:)``)
/// take part; read-only ones never take a lock that matters. While suspended, a write in progress
/// is interrupted and rolled back, and new writes fail at once
/// (``PepperDatabaseError/suspended(path:)`` through ``PepperDatabase/write(_:)``); reads still
/// work, because reading a database in WAL mode takes no lock that iOS counts.
///
/// When to suspend is the app's decision (`AppSupport`'s `SuspensionPolicy`); this type only
/// carries it out, for every database of the process at once.
public enum DatabaseSuspension {
    /// Suspends every observing database of this process.
    public static func suspend() {
        state.withLock { $0 = true }
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
    }

    /// Resumes every observing database of this process.
    public static func resume() {
        state.withLock { $0 = false }
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
    }

    /// Whether the process's databases are suspended now.
    public static var isSuspended: Bool { state.withLock { $0 } }

    /// Whether `error` is what a suspended database answers: SQLite's `SQLITE_ABORT` or
    /// `SQLITE_INTERRUPT` while suspended.
    public static func explains(_ error: DatabaseError) -> Bool {
        isSuspended && (error.resultCode == .SQLITE_ABORT || error.resultCode == .SQLITE_INTERRUPT)
    }

    private static let state = SuspensionFlag()
}

/// The process's suspension flag. NSLock, not Mutex: Mutex needs iOS 18 and macOS 15.
private final class SuspensionFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var suspended = false

    func withLock<T>(_ body: (inout Bool) -> T) -> T {
        lock.withLock { body(&suspended) }
    }
}
