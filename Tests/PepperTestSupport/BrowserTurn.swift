/// One real browser at a time (Chromium walking the console, GNOME Web loading a page): on two
/// cores, two browsers starting together slow each other past their tests' waits.
public actor BrowserTurn {
    /// The turn every browser test takes.
    public static let shared = BrowserTurn()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other browser test runs.
    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
