import ArgumentParser
import ContentBlocker
import FilterLists
import Foundation

/// `pepper-bench compile`: filter lists → WebKit JSON, beside AdGuard's SafariConverterLib, and
/// the time WebKit itself takes to compile each output.
struct CompileBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Convert filter lists to WebKit rules; compare with SafariConverterLib and time WebKit's own compile.",
        discussion: """
            Measures, for the given lists (default: EasyList + EasyPrivacy from ../shared/data/filters):
              - in-process conversion (parse + compile + JSON), median of --runs runs;
              - the whole `pepper compile` command: wall time and peak memory;
              - with --peer: the same for a SafariConverterLib driver binary built beside the project
                (it must accept `--runs N -o OUT.json FILE...` and print `convert_seconds_median=` and
                `rules_out=` on stderr), and the ratio;
              - with --webkit: the seconds WebKitGTK takes to compile each output (Safari does this on
                the phone every time the blocker reloads).
            """
    )

    @Argument(help: "Filter lists to convert.")
    var lists: [String] = []

    @Option(help: "Runs per in-process measurement.")
    var runs = 7

    @Option(help: ArgumentHelp("A SafariConverterLib driver binary to run beside Pepper.", valueName: "path"))
    var peer: String?

    @Flag(help: "Also time WebKitGTK compiling both outputs (needs python3-gi and WebKitGTK 4.1).")
    var webkit = false

    @Option(help: ArgumentHelp("The pepper executable for the whole-command measurement.", valueName: "path"))
    var pepper: String?

    func run() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let paths =
            lists.isEmpty
            ? ["easylist.txt", "easyprivacy.txt"].map {
                repository.appendingPathComponent("../shared/data/filters/\($0)").standardizedFileURL.path
            }
            : lists
        let datas = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        print(
            "Lists: \(paths.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " + "))  (\(datas.reduce(0) { $0 + $1.count }) bytes)"
        )

        // In-process: parse + compile + JSON, as SafariConverterLib's figure is measured.
        var parseTimes: [Double] = []
        var compileTimes: [Double] = []
        var totalTimes: [Double] = []
        var rulesTimes: [Double] = []
        var output: ContentBlockerOutput?
        for _ in 0..<runs {
            var parsed: [ParsedFilterList] = []
            var compiled = CompiledRules()
            let parse = try Measurement.time {
                parsed = try FilterListParser.parseConcurrently(
                    zip(paths, datas).map { ($1, URL(fileURLWithPath: $0).lastPathComponent, nil) })
            }
            let compileOnly = Measurement.time { compiled = ContentRuleCompiler().compile(parsed) }
            let compile =
                try compileOnly
                + Measurement.time {
                    output = try ContentBlockerOutput(
                        compiled: compiled,
                        sources: zip(paths, datas).map { .init(name: $0, url: $0, contents: $1) },
                        allowlist: [], maximumRules: 150_000)
                }
            parseTimes.append(parse)
            rulesTimes.append(compileOnly)
            compileTimes.append(compile)
            totalTimes.append(parse + compile)
        }
        guard let output else { return }
        let ourRules = output.totalRules
        let ourBytes = output.files.map(\.byteCount)
        print("")
        print(
            "Pepper (in-process, median of \(runs)): parse \(Measurement.seconds(Measurement.median(parseTimes))), "
                + "compile+JSON \(Measurement.seconds(Measurement.median(compileTimes))) (rules \(Measurement.seconds(Measurement.median(rulesTimes)))), total \(Measurement.seconds(Measurement.median(totalTimes)))"
        )
        print(
            "  rules out: \(ourRules) in \(ourBytes.count) list(s), JSON bytes per list: \(ourBytes.map(String.init).joined(separator: ", "))"
        )
        print("  peak memory of this benchmark process: \(Measurement.megabytes(Measurement.peakResidentBytes()))")

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // The whole command, as a user runs it.
        let pepperPath =
            pepper ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pepper").path
        var ourFiles: [URL] = []
        if FileManager.default.isExecutableFile(atPath: pepperPath) {
            var commandRuns: [Measurement.ChildRun] = []
            for index in 0..<max(3, runs / 2) {
                let out = work.appendingPathComponent("pepper-out-\(index)")
                let run = try Measurement.run(
                    pepperPath, ["compile"] + paths + ["--output", out.path, "--home", work.appendingPathComponent("home").path])
                guard run.status == 0 else { throw ValidationError("pepper compile failed: \(run.stderr)") }
                commandRuns.append(run)
                ourFiles = output.files.map { out.appendingPathComponent($0.name) }
            }
            print(
                "  `pepper compile` command: median \(Measurement.seconds(Measurement.median(commandRuns.map(\.seconds)))), "
                    + "peak memory \(Measurement.megabytes(commandRuns.map(\.peakResidentBytes).max() ?? 0))")
        } else {
            print("  (pepper executable not found at \(pepperPath); build it with `swift build -c release`)")
        }

        var peerOutput: URL?
        if let peer {
            let out = work.appendingPathComponent("peer.json")
            let run = try Measurement.run(peer, ["--runs", String(runs), "-o", out.path] + paths)
            guard run.status == 0 else { throw ValidationError("peer failed: \(run.stderr)") }
            let fields = Dictionary(
                run.stderr.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { field -> (String, String)? in
                    let parts = field.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { first, _ in first })
            let peerSeconds = Double(fields["convert_seconds_median"] ?? "") ?? .nan
            let peerRules = Int(fields["rules_out"] ?? "") ?? 0
            print("")
            print("SafariConverterLib (in-process, median of \(runs)): \(Measurement.seconds(peerSeconds)), rules out: \(peerRules)")
            print(
                "  its command (\(runs) conversions + JSON): \(Measurement.seconds(run.seconds)), peak memory \(Measurement.megabytes(run.peakResidentBytes))"
            )
            print(
                String(
                    format: "Ratio (Pepper / SafariConverterLib), in-process time: %.2f; rules: %.3f",
                    Measurement.median(totalTimes) / peerSeconds, Double(ourRules) / Double(peerRules)))
            peerOutput = out
        }

        if webkit {
            let judge = repository.appendingPathComponent("Tests/PepperCLITests/WebKit/webkit_judge.py").path
            func webKitCompile(_ files: [URL]) throws -> (Double, Int, [String]) {
                let run = try Measurement.run("/usr/bin/python3", [judge, "compile"] + files.map(\.path))
                guard run.status == 0, let data = run.stdout.data(using: .utf8),
                    let results = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
                else { throw ValidationError("webkit_judge failed: \(run.stderr)") }
                let seconds = results.reduce(0.0) { $0 + ($1["seconds"] as? Double ?? 0) }
                let errors = results.compactMap { $0["error"] as? String }
                return (seconds, run.peakResidentBytes, errors)
            }
            if ourFiles.isEmpty {
                for (index, file) in output.files.enumerated() {
                    let url = work.appendingPathComponent("ours-\(index).json")
                    try Data(file.contents).write(to: url)
                    ourFiles.append(url)
                }
            }
            // Interleaved, one process per measurement, so both outputs see the same machine state.
            print("")
            var ours: [Double] = []
            var theirs: [Double] = []
            var ourPeak = 0
            var theirPeak = 0
            for _ in 0..<3 {
                let (seconds, peak, errors) = try webKitCompile(ourFiles)
                if !errors.isEmpty { print("  WebKit rejected Pepper's output: \(errors)") }
                ours.append(seconds)
                ourPeak = max(ourPeak, peak)
                if let peerOutput {
                    let (seconds, peak, _) = try webKitCompile([peerOutput])
                    theirs.append(seconds)
                    theirPeak = max(theirPeak, peak)
                }
            }
            print(
                "WebKitGTK compiling Pepper's output (\(ourFiles.count) lists, median of 3): "
                    + "\(Measurement.seconds(Measurement.median(ours))), peak \(Measurement.megabytes(ourPeak))")
            if !theirs.isEmpty {
                print(
                    "WebKitGTK compiling SafariConverterLib's output (median of 3): "
                        + "\(Measurement.seconds(Measurement.median(theirs))), peak \(Measurement.megabytes(theirPeak))")
                print(
                    String(
                        format: "Ratio (Pepper / SafariConverterLib), WebKit compile time: %.2f",
                        Measurement.median(ours) / Measurement.median(theirs)))
            }
        }
    }
}
