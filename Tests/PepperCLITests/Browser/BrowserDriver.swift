import Browsing
import Foundation
import PepperTestSupport
import Testing

/// An X server of its own for a test (Xvfb), so GTK windows need no desktop.
final class VirtualDisplay {
    let name: String
    private let process: Process

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") }

    /// Starts `Xvfb -displayfd`, which picks a free display number and writes it to the pipe.
    init(width: Int = 1280, height: Int = 1024) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        let pipe = Pipe()
        // Xvfb writes the number to file descriptor 1 of its own: its standard output, here the pipe.
        process.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let number = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !number.isEmpty, number.allSatisfy(\.isNumber) else {
            process.terminate()
            throw DriverError(message: "Xvfb did not report a display number")
        }
        name = ":" + number
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

struct DriverError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `pepper browse --automation` as a test drives it: one command line in, one JSON line out.
final class BrowserDriver {
    /// The window's state and the channel's answers: the very types the window encodes.
    typealias State = BrowserAutomationState
    typealias Answer = BrowserAutomationAnswer

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorURL: URL
    private let lines = LineBuffer()
    /// Every command and answer, for the test's artefacts.
    private(set) var transcript: [String] = []

    /// An Xvfb for a browser test, or `nil` when the test cannot run here (no WebKitGTK or no
    /// Xvfb; missing either is an issue when `PEPPER_REQUIRE_WEBKIT=1`).
    /// Runs a browser test when WebKitGTK and Xvfb are installed, or when WebKit is required
    /// (then a missing one fails the test); otherwise the test is reported as skipped.
    static var trait: ConditionTrait {
        .enabled(
            if: (WebKitJudge.isAvailable && VirtualDisplay.isAvailable) || WebKitJudge.isRequired, "WebKitGTK or Xvfb is not installed")
    }

    static func virtualDisplay() throws -> VirtualDisplay? {
        guard WebKitJudge.ready() else { return nil }
        guard VirtualDisplay.isAvailable else {
            if WebKitJudge.isRequired { Issue.record("PEPPER_REQUIRE_WEBKIT=1 but Xvfb is not installed") }
            return nil
        }
        return try VirtualDisplay()
    }

    /// `pepper browse` on `display` with all its traffic through the logging `proxy`, in a
    /// 1024 × 640 window.
    convenience init(home: URL, display: VirtualDisplay, proxy: ListServer) throws {
        try self.init(
            home: home, display: display.name, arguments: ["--proxy", "http://127.0.0.1:\(proxy.port)", "--window-size", "1024x640"])
    }

    init(home: URL, display: String, arguments: [String]) throws {
        process.executableURL = PepperProcess.executable
        process.arguments = ["browse", "--automation", "--home", home.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        process.environment = environment
        errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-browse-err-\(UUID())")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        let reader = output.fileHandleForReading
        let lines = self.lines
        Thread.detachNewThread {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                lines.append(chunk)
            }
            lines.close()
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: errorURL)
    }

    /// What the browser wrote on stderr.
    var standardError: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// Sends a command and waits for its answer; throws when it fails or takes too long.
    @discardableResult
    func send(_ command: String, timeout: TimeInterval = 60) async throws -> Answer {
        transcript.append("> " + command)
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        // The wait for the answer (a page load can take seconds) blocks a thread of its own.
        let lines = self.lines
        guard let line = try await onOwnThread({ lines.next(timeout: timeout) }) else {
            throw DriverError(message: "no answer to '\(command)' within \(Int(timeout)) s; stderr: \(standardError)")
        }
        transcript.append(line)
        let answer = try JSONDecoder().decode(Answer.self, from: Data(line.utf8))
        guard answer.ok else { throw DriverError(message: "'\(command)' failed: \(answer.error ?? "?")") }
        return answer
    }

    /// `wait`, returning the state once nothing is loading.
    func waitForPage() async throws -> State {
        guard let state = try await send("wait").state else { throw DriverError(message: "wait answered without a state") }
        return state
    }

    /// `state`.
    func state() async throws -> State {
        guard let state = try await send("state").state else { throw DriverError(message: "state answered without a state") }
        return state
    }

    /// Quits and returns the exit status.
    func quit() async throws -> Int32 {
        try await send("quit")
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        guard !process.isRunning else { throw DriverError(message: "pepper browse did not exit after quit") }
        return process.terminationStatus
    }
}

/// Lines read on one thread, taken on another.
private final class LineBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = Data()
    private var closed = false

    func append(_ data: Data) {
        condition.withLock {
            pending.append(data)
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func next(timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                return line
            }
            if closed || !condition.wait(until: deadline) { return nil }
        }
    }
}
