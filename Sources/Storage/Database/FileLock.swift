import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file, released when the value is released or the process ends,
/// however it ends. Taking it may block: call it off Swift's cooperative threads.
public final class FileLock {
    private let descriptor: Int32

    /// Why the lock was not taken.
    public struct Error: Swift.Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// Why, as the system says it.
        public var reason: String
        public var description: String { "cannot lock \(path): \(reason)" }
    }

    /// Takes the lock on `path`, waiting for the holder when `wait` (else failing at once).
    public init(path: String, wait: Bool) throws(Error) {
        // Stored only once the lock is taken: an initializer that throws after every stored
        // property is set still runs `deinit`, which would close the descriptor a second time
        // (by then perhaps another thread's file or socket).
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Error(path: path, reason: String(cString: strerror(errno))) }
        var result: Int32
        repeat {
            result = flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB))
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Error(path: path, reason: reason)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
