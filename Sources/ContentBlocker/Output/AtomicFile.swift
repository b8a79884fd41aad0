import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that readers see either the old or the new contents, never a partial file.
public enum AtomicFile {
    /// Why a file could not be written.
    public struct WriteError: Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What failed.
        public var reason: String
        /// The system's error number, when a system call failed.
        public var code: Int32?

        /// An error for `path`, with the reason in words and the system's error number if any.
        public init(path: String, reason: String, code: Int32? = nil) {
            self.path = path
            self.reason = reason
            self.code = code
        }

        /// The error of the system call that just failed (`errno`) on `path`.
        static func system(_ path: String, code: Int32 = errno) -> WriteError {
            WriteError(path: path, reason: String(cString: strerror(code)), code: code)
        }

        /// Whether the file system is full (or the user's quota is used up): nothing else can
        /// be written there either, so callers stop instead of trying the next file.
        public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }

        public var description: String {
            // Said in words a person recognizes, with the file, so they know which disk to free.
            isOutOfSpace ? "no space left on device while writing \(path)" : "cannot write \(path): \(reason)"
        }
    }

    /// Writes `data` to a temporary file next to `url`, flushes it to disk, then renames it over `url`.
    public static func write(_ data: Data, to url: URL) throws {
        try replace(url) { fd in data.withUnsafeBytes { writeAll($0, to: fd) } }
    }

    /// Writes `pieces`, one after the other, to a temporary file next to `url`, flushes it to
    /// disk, then renames it over `url` (like ``write(_:to:)``, without joining them first).
    public static func write(pieces: [ArraySlice<UInt8>], to url: URL) throws {
        try replace(url) { fd in writeAll(pieces, to: fd) }
    }

    /// Fills a temporary file next to `url` with `write`, flushes it and renames it over `url`.
    /// On any failure the temporary file is removed and `url` keeps its previous contents.
    private static func replace(_ url: URL, _ write: (Int32) -> Int32?) throws(WriteError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try writeDurably(to: temporary, write)
        } catch {
            unlink(temporary.path)
            throw WriteError(path: url.path, reason: error.reason, code: error.code)
        }
        guard Foundation.rename(temporary.path, url.path) == 0 else {
            let error = WriteError.system(url.path)
            unlink(temporary.path)
            throw error
        }
        // Make the rename itself durable.
        syncDirectory(directory)
    }

    /// Writes `data` to a new file at `url` and flushes it to disk (no rename: for files in a
    /// folder that is published as a whole).
    public static func writeDurably(_ data: some ContiguousBytes, to url: URL) throws {
        try writeDurably(to: url) { fd in data.withUnsafeBytes { writeAll($0, to: fd) } }
    }

    /// Writes `pieces`, one after the other, to `url` and flushes the file to disk (like
    /// ``writeDurably(_:to:)``, without joining them into one buffer first).
    public static func writeDurably(pieces: [ArraySlice<UInt8>], to url: URL) throws {
        try writeDurably(to: url) { fd in writeAll(pieces, to: fd) }
    }

    /// Creates `url`, lets `write` fill it (returning the error number if it failed) and
    /// flushes it.
    private static func writeDurably(to url: URL, _ write: (Int32) -> Int32?) throws(WriteError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError.system(url.path) }
        defer { close(fd) }
        var failure = write(fd)
        // A full disk can show only here, when the file system allocates the written pages.
        if failure == nil && fsync(fd) != 0 { failure = errno }
        if let failure { throw WriteError.system(url.path, code: failure) }
    }

    /// Writes every piece to `fd`, in order; the error number if that failed.
    private static func writeAll(_ pieces: [ArraySlice<UInt8>], to fd: Int32) -> Int32? {
        for piece in pieces {
            if let failure = piece.withUnsafeBytes({ writeAll($0, to: fd) }) { return failure }
        }
        return nil
    }

    /// Writes all of `bytes` to `fd` (retrying interrupted and partial writes); the error
    /// number if that failed.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// Flushes a folder's entries (new names, renames) to disk.
    public static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// Renames `source` to `destination` (same file system), durably.
    public static func rename(_ source: URL, to destination: URL) throws {
        guard Foundation.rename(source.path, destination.path) == 0 else { throw WriteError.system(destination.path) }
        syncDirectory(destination.deletingLastPathComponent())
    }

    /// Points the symbolic link at `url` to `destination` (relative), replacing any previous link
    /// in one `rename`.
    public static func replaceSymbolicLink(at url: URL, destination: String) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).link-\(ProcessMark.current)")
        unlink(temporary.path)
        guard symlink(destination, temporary.path) == 0 else { throw WriteError.system(temporary.path) }
        try rename(temporary, to: url)
    }
}
