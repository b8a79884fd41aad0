import ArgumentParser
import Foundation
import ListSync
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
        let database = try homeOptions.openDatabase()
        let home = homeOptions.pepperHome
        guard let every else {
            guard try await updateOnce(database: database, home: home) else { throw ExitCode.failure }
            return
        }
        while true {
            _ = try await updateOnce(database: database, home: home)
            let next = Date().addingTimeInterval(every.seconds)
            Terminal.status("Next update at \(ListsCommand.List.format(next)).")
            try await Task.sleep(nanoseconds: UInt64(every.seconds * 1e9))
        }
    }

    /// One update of every enabled list, then the recompilation. Returns whether all lists updated.
    private func updateOnce(database: PepperDatabase, home: PepperHome) async throws -> Bool {
        let lock: UpdateLock
        do {
            lock = try UpdateLock(directory: home.url, wait: !noWait) { pid in
                Terminal.status("Another update is running\(pid.map { " (pid \($0))" } ?? ""); waiting for it to finish…")
            }
        } catch {
            throw CLIError("\(error)")
        }
        defer { withExtendedLifetime(lock) {} }

        let downloader = ListDownloader(
            policy: .init(
                maximumBytes: maxSize * 1_048_576, idleTimeout: timeout, totalTimeout: max(timeout * 10, 60), attempts: attempts,
                initialBackoff: retryDelay))
        let updater = ListUpdater(home: home, database: database, downloader: downloader)
        let sources = try ListSourceStore(database: database).enabled()
        if sources.isEmpty { Terminal.status("No enabled lists (see `pepper lists`).") }
        var allGood = true
        var changed = false
        for source in sources {
            let bar = ProgressBar(label: source.name)
            let report = await updater.update(source, force: force, progress: bar.update)
            bar.finish()
            switch report.status {
            case .updated(let bytes, let viaPatch):
                changed = true
                print(
                    "\(source.name): updated\(viaPatch ? " from a differential patch" : "") (\(Terminal.bytes(bytes)), \(Terminal.count(report.rules ?? 0)) rules)"
                )
            case .notModified:
                print("\(source.name): not modified")
            case .fresh(let until):
                print("\(source.name): up to date until \(ListsCommand.List.format(until))")
            case .failed(let reason):
                allGood = false
                print("\(source.name): FAILED: \(reason); keeping the last good copy")
            }
            if let note = report.note { Terminal.status("\(source.name): \(note)") }
        }
        // A missing output, or one built with an allowlist entry that has since expired, is
        // rebuilt even when no list changed.
        if changed || force || !BlockerBuilder.outputIsCurrent(home: home, database: database) {
            try Recompiler.recompile(home: home, database: database)
        }
        return allGood
    }
}
