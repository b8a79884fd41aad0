import Foundation

/// Runs the built `pepper` executable, as a user would.
public struct PepperProcess {
    /// How a run ended and what it printed.
    public struct Outcome: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
    }

    /// The `pepper` binary next to the test bundle (SwiftPM builds it because the tests depend on
    /// it), or the one `PEPPER_EXECUTABLE` names (to time a release build through the same tests).
    public static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["PEPPER_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("pepper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/pepper").standardizedFileURL
        return fallback
    }()

    /// Runs `pepper` with `arguments` and `PEPPER_HOME=home`.
    public static func run(
        _ arguments: [String], home: URL, stdin: Data? = nil, environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await Subprocess.run(executable, arguments, environment: ["PEPPER_HOME": home.path].merging(environment) { $1 }, stdin: stdin)
    }
}

/// Runs a program and collects its output.
public enum Subprocess {
    /// Runs `executable` to the end. The wait blocks a thread of its own, never one of the
    /// threads Swift concurrency shares among all the tests (and their in-process servers).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) async throws
        -> PepperProcess.Outcome
    {
        try await onOwnThread { try runBlocking(executable, arguments, environment: environment, stdin: stdin) }
    }

    /// Runs `executable` to the end, blocking the calling thread: only for synchronous contexts
    /// such as a test trait's condition, evaluated before any test runs.
    public static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) throws -> PepperProcess.Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Output goes to files, so a chatty child never blocks on a full pipe.
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("pepper-out-\(UUID())")
        let errURL = directory.appendingPathComponent("pepper-err-\(UUID())")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdoutData = try Data(contentsOf: outURL)
        let stderrData = try Data(contentsOf: errURL)
        return .init(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

/// Shared test locations.
public enum TestPaths {
    /// The repository (the folder with Package.swift).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardizedFileURL
    /// The real filter lists (TestData).
    public static let filters = TestData.filters
    /// Where tests save screenshots and transcripts.
    public static let artifacts = repository.appendingPathComponent("artifacts")

    /// A new temporary folder named after `label`.
    public static func temporaryDirectory(_ label: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
