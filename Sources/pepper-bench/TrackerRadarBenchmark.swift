import ArgumentParser
import ContentBlocker
import FilterLists
import Foundation

/// `pepper-bench tds`: Tracker Radar dataset → WebKit rules, beside DuckDuckGo's TrackerRadarKit.
struct TrackerRadarBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tds",
        abstract: "Convert a Tracker Radar dataset (TDS) to WebKit rules; compare with TrackerRadarKit.",
        discussion: """
            Measures decoding + conversion + compilation + JSON encoding in-process, median of --runs runs.
            With --peer: a TrackerRadarKit driver built beside the project (it must accept
            `--runs N -o OUT.json TDS.json` and print `convert_seconds_median=` and `rules_out=` on stderr).
            With --webkit: the seconds WebKitGTK takes to compile each output, interleaved.
            """
    )

    @Argument(help: "The TDS file (default: ../shared/data/trackerradar/tds.json).")
    var file: String?

    @Option(help: "Runs per measurement.")
    var runs = 9

    @Option(help: ArgumentHelp("A TrackerRadarKit driver binary to run beside Pepper.", valueName: "path"))
    var peer: String?

    @Flag(help: "Also time WebKitGTK compiling both outputs.")
    var webkit = false

    func run() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let path = file ?? repository.appendingPathComponent("../shared/data/trackerradar/tds.json").standardizedFileURL.path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        print("TDS: \(path) (\(data.count) bytes)")

        var decodeTimes: [Double] = []
        var compileTimes: [Double] = []
        var totals: [Double] = []
        var output: ContentBlockerOutput?
        for _ in 0..<runs {
            var list: ParsedFilterList?
            let decode = try Measurement.time { list = try FilterListParser().parse(data, name: "tds", format: .tds) }
            let compile = try Measurement.time {
                let compiled = ContentRuleCompiler().compile([list!])
                output = try ContentBlockerOutput(
                    compiled: compiled, sources: [.init(name: "tds", url: path, contents: data)], allowlist: [], maximumRules: 150_000)
            }
            decodeTimes.append(decode)
            compileTimes.append(compile)
            totals.append(decode + compile)
        }
        guard let output else { return }
        print(
            "Pepper (median of \(runs)): decode+convert \(Measurement.seconds(Measurement.median(decodeTimes))), "
                + "compile+JSON \(Measurement.seconds(Measurement.median(compileTimes))), total \(Measurement.seconds(Measurement.median(totals)))"
        )
        print("  rules out: \(output.totalRules), JSON bytes: \(output.files.map(\.byteCount).reduce(0, +))")

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-tds-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var ourFiles: [URL] = []
        for (index, file) in output.files.enumerated() {
            let url = work.appendingPathComponent("ours-\(index).json")
            try Data(file.contents).write(to: url)
            ourFiles.append(url)
        }

        var peerOutput: URL?
        if let peer {
            let out = work.appendingPathComponent("peer.json")
            let run = try Measurement.run(peer, ["--runs", String(runs), "-o", out.path, path])
            guard run.status == 0 else { throw ValidationError("peer failed: \(run.stderr)") }
            let fields = Measurement.keyValues(run.stderr)
            let seconds = Double(fields["convert_seconds_median"] ?? "") ?? .nan
            print("TrackerRadarKit (median of \(runs)): total \(Measurement.seconds(seconds)), rules out: \(fields["rules_out"] ?? "?")")
            print(String(format: "Ratio (Pepper / TrackerRadarKit), time: %.2f", Measurement.median(totals) / seconds))
            peerOutput = out
        }
        if webkit {
            let judge = repository.appendingPathComponent("Tests/PepperCLITests/WebKit/webkit_judge.py").path
            var ours: [Double] = []
            var theirs: [Double] = []
            for _ in 0..<3 {
                ours.append(try Measurement.webKitCompileSeconds(judge: judge, files: ourFiles))
                if let peerOutput { theirs.append(try Measurement.webKitCompileSeconds(judge: judge, files: [peerOutput])) }
            }
            print("WebKitGTK compiling Pepper's output (median of 3): \(Measurement.seconds(Measurement.median(ours)))")
            if !theirs.isEmpty {
                print("WebKitGTK compiling TrackerRadarKit's output (median of 3): \(Measurement.seconds(Measurement.median(theirs)))")
            }
        }
    }
}
