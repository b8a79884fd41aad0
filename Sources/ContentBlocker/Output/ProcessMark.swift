import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The mark a process puts in the names of the temporary folders and links it writes
/// (`.out.staging-MARK`), so that a later process can tell whether their writer still runs.
///
/// A process ID alone cannot say it: IDs are reused, and a folder left by a killed writer whose
/// ID now belongs to a long-running process would be kept for that process's whole life. On
/// Linux the mark is the ID and the moment the process started (`/proc/PID/stat`'s start time,
/// in clock ticks since boot), which a reused ID does not share; elsewhere it is the ID alone.
enum ProcessMark {
    /// This process's mark: `PID-START` on Linux, `PID` elsewhere.
    static let current: String = mark(of: getpid())

    /// The mark of the running process `pid`, or its ID alone when its start time cannot be read.
    static func mark(of pid: Int32) -> String {
        startTime(of: pid).map { "\(pid)-\($0)" } ?? "\(pid)"
    }

    /// Whether the process that wrote `mark` still runs: its ID is alive and, when the mark has
    /// a start time, the process with that ID started then. A mark that is not one is not running.
    static func isRunning(_ mark: Substring) -> Bool {
        let parts = mark.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let pid = Int32(parts[0]), pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard parts.count == 2 else { return true }
        guard let started = UInt64(parts[1]) else { return false }
        // No start time to compare (not Linux, or /proc is not readable): the ID's word stands.
        return startTime(of: pid).map { $0 == started } ?? true
    }

    /// When `pid` started, in clock ticks since boot (field 22 of `/proc/PID/stat`); `nil`
    /// where there is no such file.
    static func startTime(of pid: Int32) -> UInt64? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name (which may hold spaces and brackets): field 3 onwards.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
        #else
        return nil
        #endif
    }
}
