import Foundation
import ListSync
import PepperActions
import Screens

/// Runs "Update now" in the background, one at a time, and keeps what it did so that the
/// update page (and its live stream) can show it from the start, whoever opens it.
actor UpdateRunner {
    /// One line of progress, as the page and its script show it.
    struct Line: Sendable, Hashable, Codable {
        /// The list it is about, when one.
        var list: String?
        /// What happened to it.
        var text: String
        /// The overall status line, when it changes.
        var status: String?
        /// Whether the update is over.
        var done: Bool
    }

    private let screen: ListsScreen
    private(set) var running = false
    private(set) var lines: [Line] = []
    private(set) var lastNotice: Notice?
    private var listeners: [UUID: AsyncStream<Line>.Continuation] = [:]

    init(screen: ListsScreen) {
        self.screen = screen
    }

    /// A change to make before an update (the setup's choice of lists): its notice is shown with
    /// the update's.
    typealias Prelude = @Sendable () async -> Notice

    /// Changes waiting for the running update to end; they run, then one more update.
    private var queued: [Prelude] = []

    /// Starts an update unless one runs; returns whether it started. With a `prelude`, the
    /// change runs first, and when an update is running it waits for that one to end (it
    /// is never dropped: the update running now read the lists before the change).
    @discardableResult
    func start(prelude: Prelude? = nil) -> Bool {
        guard !running else {
            if let prelude { queued.append(prelude) }
            return false
        }
        run(preludes: prelude.map { [$0] } ?? [])
        return true
    }

    private func run(preludes: [Prelude]) {
        running = true
        lines = []
        lastNotice = nil
        let screen = self.screen
        // Events arrive on the update's threads; a stream keeps them in order.
        let (events, continuation) = AsyncStream<UpdateEvent>.makeStream()
        let consumer = Task {
            for await event in events { self.record(event) }
        }
        Task {
            var first: [Notice] = []
            for prelude in preludes {
                self.append(Line(text: "", status: "Changing the lists…", done: false))
                let notice = await prelude()
                first.append(notice)
                self.append(Line(text: "", status: notice.text, done: false))
            }
            let (notice, _) = await screen.updateNow { event in continuation.yield(event) }
            continuation.finish()
            await consumer.value
            let worst = (first + [notice]).map(\.kind).max { Self.severity($0) < Self.severity($1) } ?? notice.kind
            self.finish(first.isEmpty ? notice : Notice(worst, (first + [notice]).map(\.text).joined(separator: " ")))
        }
    }

    /// What the page shows now.
    func snapshot() -> (running: Bool, lines: [Line], notice: Notice?) {
        (running, lines, lastNotice)
    }

    /// The lines so far, then each new one until the update ends.
    func follow() -> AsyncStream<Line> {
        let (stream, continuation) = AsyncStream<Line>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        for line in lines { continuation.yield(line) }
        if !running {
            continuation.finish()
            return stream
        }
        let id = UUID()
        listeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.forget(id) } }
        return stream
    }

    private func forget(_ id: UUID) {
        listeners[id] = nil
    }

    private var lastProgress: [String: Date] = [:]

    private func record(_ event: UpdateEvent) {
        guard running else { return }
        let line: Line
        switch event {
        case .waitingForLock(let pid):
            line = Line(text: "", status: "Another update is running\(pid.map { " (pid \($0))" } ?? ""); waiting for it…", done: false)
        case .started(let names):
            line = Line(text: "", status: "Updating \(names.count) list\(names.count == 1 ? "" : "s")…", done: false)
        case .progress(let list, let received, let expected):
            // At most four progress lines a second per list.
            let now = Date()
            if let last = lastProgress[list], now.timeIntervalSince(last) < 0.25 { return }
            lastProgress[list] = now
            let total = expected.map { " of \(Self.bytes($0))" } ?? ""
            line = Line(list: list, text: "downloading… \(Self.bytes(received))\(total)", done: false)
        case .finished(let report):
            var text = ListsScreen.describe(report.status)
            if let rules = report.rules { text += ", \(rules) rules" }
            if let note = report.note { text += " (\(note))" }
            line = Line(list: report.name, text: text, done: false)
        case .compiling:
            line = Line(text: "", status: "Compiling the content blocker…", done: false)
        case .done:
            return
        }
        append(line)
    }

    private func finish(_ notice: Notice) {
        lastNotice = notice
        running = false
        append(Line(text: "", status: notice.text, done: true))
        for continuation in listeners.values { continuation.finish() }
        listeners = [:]
        if !queued.isEmpty {
            let next = queued
            queued = []
            run(preludes: next)
        }
    }

    private func append(_ line: Line) {
        lines.append(line)
        for continuation in listeners.values { continuation.yield(line) }
    }

    /// The worse of two notices decides the kind of their sentence together.
    static func severity(_ kind: Notice.Kind) -> Int {
        switch kind {
        case .info: 0
        case .success: 1
        case .warning: 2
        case .error: 3
        }
    }

    static func bytes(_ value: Int) -> String {
        if value < 1_000 { return "\(value) B" }
        if value < 1_000_000 { return String(format: "%.1f kB", Double(value) / 1_000) }
        return String(format: "%.1f MB", Double(value) / 1_000_000)
    }
}
