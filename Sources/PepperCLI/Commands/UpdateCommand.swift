import ArgumentParser
import Foundation
import ListSync
import PepperActions
import Storage

/// `pepper update`: refresh the enabled lists, then recompile so the new rules apply at once.
struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Download the lists that changed, then recompile $PEPPER_HOME/out.",
        discussion: """
            A list is fetched when it is due (its `! Expires:` header, else the server's
            Cache-Control or Expires, else one day; --force fetches every list), with a
            conditional request, or as a differential patch when the list has a
            `! Diff-Path:` header. A new copy replaces the stored one only if it arrived
            whole and has usable rules; otherwise the last good copy stays and the
            error is recorded (see `pepper lists`). The output switches to the new
            rules atomically.

            One update runs at a time per Pepper home: a second one waits, or with
            --no-wait says that one is running and exits with status 1.

            --every keeps running and updates on schedule; docs/lists.md shows a
            systemd timer as the alternative.
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Flag(help: "Fetch every enabled list, even if it is not due.")
    var force = false

    @Option(help: ArgumentHelp("Keep running and update this often (e.g. 4h).", valueName: "duration"))
    var every: DurationArgument?

    @Flag(help: "Exit at once if another update is running.")
    var noWait = false

    @Option(help: "Seconds without progress before a download is abandoned.")
    var timeout: Double = 30

    @Option(help: "Attempts per download for transient failures.")
    var attempts: Int = 3

    @Option(help: "Seconds before the first retry (doubling each time).")
    var retryDelay: Double = 2

    @Option(help: "Largest list accepted, in megabytes.")
    var maxSize: Int = 64

    func validate() throws {
        guard timeout > 0, attempts >= 1, retryDelay >= 0, maxSize >= 1 else {
            throw ValidationError("--timeout, --attempts, --retry-delay and --max-size must be positive")
        }
        if let every, every.seconds < 60 { throw ValidationError("--every must be at least 1m") }
    }

    func run() async throws {
        let state = try homeOptions.openState()
        let options = UpdateOptions(
            force: force,
            downloads: .init(
                maximumBytes: maxSize * 1_048_576, idleTimeout: timeout, totalTimeout: max(timeout * 10, 60), attempts: attempts,
                initialBackoff: retryDelay),
            waitForLock: !noWait)
        guard let every else {
            guard try await updateOnce(state, options) else { throw ExitCode.failure }
            return
        }
        // The console shows the schedule while this runs.
        defer { UpdateScheduleStatus.remove(home: state.home) }
        while true {
            // A failed round (a full disk, an unreadable state) is said and tried again at the
            // next one: the schedule keeps running, as a timer's next run would.
            do {
                _ = try await updateOnce(state, options)
            } catch {
                Terminal.warning("this update failed: \(error)")
            }
            let next = Date().addingTimeInterval(every.seconds)
            try? UpdateScheduleStatus(every: every.seconds, nextRun: next).write(home: state.home)
            Terminal.status("Next update at \(Terminal.date(next)).")
            try await Task.sleep(nanoseconds: UInt64(every.seconds * 1e9))
        }
    }

    /// One update of every enabled list, then the recompilation. Returns whether all lists updated.
    private func updateOnce(_ state: PepperState, _ options: UpdateOptions) async throws -> Bool {
        let bars = ProgressBars()
        // "another update is running (pid N)" is the action's own message.
        let summary = try await state.update(options) { event in
            switch event {
            case .waitingForLock(let pid):
                Terminal.status("Another update is running\(pid.map { " (pid \($0))" } ?? ""); waiting for it to finish…")
            case .progress(let list, let received, let expected):
                bars.bar(list).update(received: received, expected: expected)
            case .finished(let report):
                bars.finish(report.name)
                Self.print(report)
            case .started(let lists):
                if lists.isEmpty { Terminal.status("No enabled lists (see `pepper lists`).") }
            case .compiling, .done:
                break
            }
        }
        Terminal.compiled(summary.outcome)
        return summary.allGood
    }

    /// One line per list, on stdout.
    private static func print(_ report: ListUpdater.Report) {
        switch report.status {
        case .updated(let bytes, let viaPatch):
            Terminal.line(
                "\(report.name): updated\(viaPatch ? " from a differential patch" : "") (\(Terminal.bytes(bytes)), \(Terminal.count(report.rules ?? 0)) rules)"
            )
        case .notModified:
            Terminal.line("\(report.name): not modified")
        case .fresh(let until):
            Terminal.line("\(report.name): up to date until \(Terminal.date(until))")
        case .failed(let reason):
            var fix = ""
            if case .missingKey? = report.picketProblem { fix = " (pepper lists add picket:https://SERVER --key KEY)" }
            Terminal.line("\(report.name): FAILED: \(reason)\(fix); keeping the last good copy")
        }
        if let note = report.note { Terminal.status("\(report.name): \(note)") }
    }
}

/// One progress bar per list being downloaded.
private final class ProgressBars: @unchecked Sendable {
    private let lock = NSLock()
    private var bars: [String: ProgressBar] = [:]

    func bar(_ name: String) -> ProgressBar {
        lock.withLock {
            if let bar = bars[name] { return bar }
            let bar = ProgressBar(label: name)
            bars[name] = bar
            return bar
        }
    }

    func finish(_ name: String) {
        let bar = lock.withLock { bars.removeValue(forKey: name) }
        bar?.finish()
    }
}
