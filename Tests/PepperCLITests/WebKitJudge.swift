import Foundation
import PepperTestSupport
import Testing

/// Drives `WebKit/webkit_judge.py`: real WebKitGTK compiling rule lists and loading pages.
enum WebKitJudge {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")
    static let script = Bundle.module.url(forResource: "webkit_judge", withExtension: "py", subdirectory: "WebKit")!

    /// Whether WebKitGTK and its Python bindings are installed.
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return false }
        let probe = try? Subprocess.runBlocking(
            python, ["-c", "import gi; gi.require_version('WebKit2', '4.1'); from gi.repository import WebKit2"])
        return probe?.status == 0
    }()

    /// Whether the tests must fail (rather than skip) without WebKit: the README's test command sets it.
    static let isRequired = ProcessInfo.processInfo.environment["PEPPER_REQUIRE_WEBKIT"] == "1"

    /// Records a failure when WebKit is required but missing; returns whether tests can run.
    static func ready() -> Bool {
        if isAvailable { return true }
        if isRequired { Issue.record("PEPPER_REQUIRE_WEBKIT=1 but WebKitGTK 4.1 with python3-gi is not installed") }
        return false
    }

    static var enabled: Bool { isAvailable || isRequired }

    struct CompileResult: Decodable {
        var file: String
        var ok: Bool
        var error: String?
        var seconds: Double
    }

    /// Compiles each file with WebKit's content-rule compiler.
    static func compile(_ files: [URL]) async throws -> [CompileResult] {
        let outcome = try await Subprocess.run(python, [script.path, "compile"] + files.map(\.path))
        guard outcome.status == 0 else { throw JudgeError(message: outcome.stderr) }
        return try JSONDecoder().decode([CompileResult].self, from: Data(outcome.stdout.utf8))
    }

    struct SelectorCheck: Decodable {
        var checked: Int
        var rejected: [String]
    }

    /// Runs every hiding selector of the lists through WebKit's CSS parser.
    static func checkSelectors(_ files: [URL]) async throws -> SelectorCheck {
        let outcome = try await Subprocess.run(python, [script.path, "selectors"] + files.map(\.path))
        guard outcome.status == 0 else { throw JudgeError(message: outcome.stderr) }
        return try JSONDecoder().decode(SelectorCheck.self, from: Data(outcome.stdout.utf8))
    }

    struct Site: Encodable {
        var body: String
        var type: String = "text/html; charset=utf-8"
    }

    struct Visit: Encodable {
        var url: String
        var checks: [String] = []
    }

    struct Scenario: Encodable {
        var rules: [String]
        var sites: [String: Site]
        var visits: [Visit]
        var settleMilliseconds = 700

        enum CodingKeys: String, CodingKey {
            case rules, sites, visits
            case settleMilliseconds = "settle_ms"
        }
    }

    struct ElementState: Decodable, Equatable {
        var found: Int
        var visible: Int
    }

    struct BrowseResult: Decodable {
        struct VisitResult: Decodable {
            var url: String
            var elements: [String: ElementState]
            var error: String?
            var finished: Bool
        }
        var requests: [String]
        var visits: [VisitResult]
    }

    /// Serves `scenario.sites` through the logging proxy and visits its pages in a WebView.
    static func browse(_ scenario: Scenario, artifactName: String) async throws -> BrowseResult {
        let directory = TestPaths.temporaryDirectory("scenario")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("scenario.json")
        try JSONEncoder().encode(scenario).write(to: file)
        let outcome = try await Subprocess.run(python, [script.path, "browse", file.path])
        try? FileManager.default.createDirectory(
            at: TestPaths.artifacts.appendingPathComponent("webkit"), withIntermediateDirectories: true)
        try? Data(outcome.stdout.utf8).write(to: TestPaths.artifacts.appendingPathComponent("webkit/\(artifactName).json"))
        guard outcome.status == 0 else { throw JudgeError(message: outcome.stderr) }
        return try JSONDecoder().decode(BrowseResult.self, from: Data(outcome.stdout.utf8))
    }

    struct JudgeError: Error, CustomStringConvertible {
        var message: String
        var description: String { "webkit_judge.py failed: \(message)" }
    }
}
