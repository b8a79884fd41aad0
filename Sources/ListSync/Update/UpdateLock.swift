import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Only one update at a time per Pepper home: an exclusive `flock` on `update.lock`, released
/// when the process ends, however it ends. (`@unchecked Sendable`: its one field never changes.)
public final class UpdateLock: @unchecked Sendable {
    private let descriptor: Int32
    /// The lock file.
    public let path: String

    /// Why the lock was not taken.
    public enum Error: Swift.Error, CustomStringConvertible {
        /// Another process holds it (with its pid, when known).
        case busy(pid: Int32?)
        /// The lock file cannot be opened.
        case unavailable(String)

        public var description: String {
            switch self {
            case .busy(let pid): return "another update is running" + (pid.map { " (pid \($0))" } ?? "")
            case .unavailable(let reason): return "cannot open the update lock: \(reason)"
            }
        }
    }

    /// Takes the lock in `directory`; with `wait`, blocks until the running update finishes,
    /// calling `onWait` first with the holder's pid.
    public init(directory: URL, wait: Bool, onWait: (Int32?) -> Void = { _ in }) throws(Error) {
        path = directory.appendingPathComponent("update.lock").path
        // `O_CLOEXEC`: a program started while the lock is held must not hold it on. Stored
        // only once the lock is taken: an initializer that throws after every stored property
        // is set still runs `deinit`, which would close the descriptor a second time (by then
        // perhaps another thread's file or socket: a console's, a server's in the same process).
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unavailable(String(cString: strerror(errno))) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.readPID(descriptor)
            guard wait else {
                close(descriptor)
                throw .busy(pid: holder)
            }
            onWait(holder)
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }
        // Record who holds it, for the message a second update prints.
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.utf8.count, 0)
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
