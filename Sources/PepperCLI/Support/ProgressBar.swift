import Foundation

/// A download progress bar on stderr: redrawn in place on a terminal, a start and an end line
/// otherwise (logs, CI).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let lock = NSLock()
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastDraw = Date.distantPast
    private var started = false
    private var received = 0
    private let start = Date()

    init(label: String) {
        self.label = label
    }

    /// Reports progress (called from the download's thread).
    func update(received: Int, expected: Int?) {
        lock.withLock {
            self.received = received
            if !started {
                started = true
                if !isTerminal { Terminal.status("Downloading \(label)…") }
            }
            guard isTerminal, Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            FileHandle.standardError.write(Data(("\r" + line(received: received, expected: expected)).utf8))
        }
    }

    /// Ends the bar.
    func finish() {
        lock.withLock {
            guard started else { return }
            let summary = "\(label): \(Terminal.bytes(received)) in \(Terminal.seconds(Date().timeIntervalSince(start)))"
            if isTerminal {
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + summary + "\n").utf8))
            } else {
                Terminal.status(summary)
            }
        }
    }

    private func line(received: Int, expected: Int?) -> String {
        let width = 24
        guard let expected, expected > 0 else { return "\(label) \(Terminal.bytes(received))\u{1B}[K" }
        let fraction = min(1, Double(received) / Double(expected))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "\(label) [\(bar)] \(Int(fraction * 100))% \(Terminal.bytes(received))/\(Terminal.bytes(expected))\u{1B}[K"
    }
}
