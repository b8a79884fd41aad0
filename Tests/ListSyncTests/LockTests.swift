import Foundation
import ListSync
import Storage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The update lock and the build lock (`FileLock`) close their file once, whatever happens: a
/// refused lock that closed its
/// descriptor twice (once itself, once in `deinit`) closed whatever another thread had opened
/// under that number in between — in a console or a test run, a server's socket (the
/// "Couldn't connect after 0 ms" of an in-process server, seen in full runs).
@Suite("Update and build locks")
struct LockTests {
    @Test(.timeLimit(.minutes(1)))
    func aRefusedUpdateLockClosesOnlyItsOwnFile() throws {
        try Self.refusals { directory in
            let held = try UpdateLock(directory: directory, wait: false)
            return (held, { (try? UpdateLock(directory: directory, wait: false)) == nil })
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRefusedBuildLockClosesOnlyItsOwnFile() throws {
        try Self.refusals { directory in
            let path = directory.appendingPathComponent("build.lock").path
            let held = try FileLock(path: path, wait: false)
            return (held, { (try? FileLock(path: path, wait: false)) == nil })
        }
    }

    /// Takes a lock (`take` returns it and an attempt at a second one, `true` when refused),
    /// then makes 20,000 refused attempts while another thread opens a file again and again and
    /// checks that it is still open before closing it itself: that thread often takes the number
    /// a refused lock has just closed.
    static func refusals(_ take: (URL) throws -> (AnyObject, () -> Bool)) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-locks-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (held, attempt) = try take(directory)
        let sentinel = directory.appendingPathComponent("sentinel").path
        _ = FileManager.default.createFile(atPath: sentinel, contents: nil)
        let stop = Atomic(false)
        let lost = Atomic(0)
        let watcher = Thread {
            while !stop.value {
                let descriptor = open(sentinel, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { continue }
                for _ in 0..<20 where fcntl(descriptor, F_GETFD) == -1 {
                    lost.add(1)
                    break
                }
                if fcntl(descriptor, F_GETFD) != -1 { close(descriptor) }
            }
        }
        watcher.start()
        var refused = 0
        for _ in 0..<20_000 where attempt() { refused += 1 }
        stop.value = true
        withExtendedLifetime(held) {}
        #expect(refused == 20_000, "every second lock is refused while the first is held")
        #expect(lost.value == 0, "another thread's file was closed under it \(lost.value) times")
    }
}

/// A value shared with the watching thread.
private final class Atomic<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension Atomic where Value == Int {
    func add(_ amount: Int) { lock.withLock { stored += amount } }
}
