import CallFilter
import Foundation
import Testing

/// Compares the parser with Google libphonenumber (PyPI `phonenumbers`) on the generated set of
/// `scripts/phone-oracle.py`. Runs when a Python with `phonenumbers` is found: `$PEPPER_PHONENUMBERS_PYTHON`,
/// the repository's `.venv-oracle` (scripts/test.sh creates it), or `python3`.
@Suite("Phone numbers against libphonenumber")
struct PhoneNumberOracleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// A Python that can `import phonenumbers`, or nil.
    static let python: String? = {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["PEPPER_PHONENUMBERS_PYTHON"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        candidates.append(repository.appendingPathComponent(".venv-oracle/bin/python").path)
        candidates += ["/usr/bin/python3", "/usr/local/bin/python3"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            if let outcome = try? run(candidate, ["-c", "import phonenumbers"]), outcome.status == 0 { return candidate }
        }
        return nil
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID())")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let errors = Pipe()
        process.standardOutput = handle
        process.standardError = errors
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try Data(contentsOf: output), String(decoding: stderr, as: UTF8.self))
    }

    @Test(
        "At least 99 % agreement on the generated set",
        .enabled(if: python != nil, "no Python with `phonenumbers`: run scripts/test.sh, or pip install phonenumbers into .venv-oracle")
    )
    func agreement() throws {
        let python = try #require(Self.python)
        let script = Self.repository.appendingPathComponent("scripts/phone-oracle.py").path
        // PEPPER_ORACLE_ARGS (e.g. "--seed 3 --count-per-region 1000") explores beyond the default set.
        let extra = ProcessInfo.processInfo.environment["PEPPER_ORACLE_ARGS"]?.split(separator: " ").map(String.init) ?? []
        let outcome = try Self.run(python, [script] + extra)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count >= 5_000)
        var parsers: [String: PhoneNumberParser] = [:]
        var regions = Set<String>()
        var agreed = 0
        var failures: [String] = []
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            let (region, input, expected) = (fields[0], fields[1], fields[2])
            regions.insert(region)
            let parser = try parsers[region] ?? PhoneNumberParser(defaultRegion: region.isEmpty ? nil : region)
            parsers[region] = parser
            let ours: String
            do {
                ours = try parser.parse(input).e164
            } catch {
                ours = "INVALID:\(error.code)"
            }
            if ours == expected || (ours.hasPrefix("INVALID") && expected.hasPrefix("INVALID")) {
                agreed += 1
            } else {
                failures.append("\(region)\t\(input)\tlibphonenumber \(expected)\tpepper \(ours)")
            }
        }
        let rate = Double(agreed) / Double(lines.count)
        let report =
            String(format: "agreement %.2f %% (%d of %d, %d regions)\n", rate * 100, agreed, lines.count, regions.count)
            + failures.joined(separator: "\n")
        let artifacts = Self.repository.appendingPathComponent("artifacts")
        try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try? report.write(to: artifacts.appendingPathComponent("phone-oracle-failures.txt"), atomically: true, encoding: .utf8)
        #expect(regions.count >= 30)
        #expect(rate >= 0.99, "\(report.prefix(4_000))")
    }
}
