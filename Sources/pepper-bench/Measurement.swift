import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Timing and memory helpers for benchmarks.
enum Measurement {
    /// Seconds elapsed while running `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The current resident memory (VmRSS) of a process (this one by default), in bytes.
    static func residentBytes(of pid: pid_t? = nil) -> Int {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.filter(\.isNumber)) ?? 0) * 1_024
        }
        return 0
    }

    /// This process's peak resident memory (VmHWM), in bytes.
    static func peakResidentBytes() -> Int {
        highWaterMark(of: nil)
    }

    /// The peak resident memory (VmHWM) of a process, in bytes; 0 if unknown.
    static func highWaterMark(of pid: pid_t?) -> Int {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1_024
        }
        return 0
    }

    /// The result of running a child process.
    struct ChildRun {
        var seconds: Double
        var peakResidentBytes: Int
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion and measures its wall time and peak memory.
    ///
    /// Peak memory is the child's own `VmHWM`, sampled every 2 ms while it runs: `ru_maxrss` from
    /// `wait4` would include the parent's memory (Linux carries it over a vfork-style spawn).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildRun {
        let directory = FileManager.default.temporaryDirectory
        let outPath = directory.appendingPathComponent("bench-out-\(UUID())").path
        let errPath = directory.appendingPathComponent("bench-err-\(UUID())").path
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, env)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { break }
            peak = max(peak, highWaterMark(of: pid))
            usleep(2_000)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ChildRun(
            seconds: seconds, peakResidentBytes: peak, status: exitStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// `key=value` pairs from a peer's status line.
    static func keyValues(_ text: String) -> [String: String] {
        Dictionary(
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Seconds WebKitGTK takes to compile the rule lists (through the test harness), summed.
    static func webKitCompileSeconds(judge: String, files: [URL]) throws -> Double {
        let run = try run("/usr/bin/python3", [judge, "compile"] + files.map(\.path))
        guard run.status == 0, let data = run.stdout.data(using: .utf8),
            let results = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { throw POSIXError(.EIO) }
        return results.reduce(0.0) { $0 + ($1["seconds"] as? Double ?? 0) }
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
