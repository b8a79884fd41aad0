import ArgumentParser
import CallFilter
import Foundation
import Storage

/// `pepper-bench calls`: call-directory export, message classification and number parsing,
/// beside Python `phonenumbers` (Google libphonenumber's port) for parsing.
struct CallsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calls",
        abstract: "Export 2,000,000 blocked numbers, classify messages against 10,000 words, parse numbers.",
        discussion: """
            Measures:
              - `pepper calls export` of --numbers random blocked numbers, as a child process
                (wall time and peak memory, median of --runs), plus the in-process export;
              - MessageFilter classification with --words word rules, on one core (messages/s);
              - PhoneNumberParser on a mix of national and international formats (numbers/s), and the
                same inputs through Python `phonenumbers` when --python (default: .venv-oracle/bin/python)
                can import it, with the ratio.
            """
    )

    @Option(help: "Blocked numbers to export.") var numbers = 2_000_000
    @Option(help: "Word rules for classification.") var words = 10_000
    @Option(help: "Runs per measurement.") var runs = 3
    @Option(help: ArgumentHelp("The pepper executable (default: beside pepper-bench).", valueName: "path")) var pepper: String?
    @Option(help: ArgumentHelp("A Python with `phonenumbers` for the peer measurement.", valueName: "path")) var python: String?

    func run() async throws {
        var generator = SplitMix(seed: 20_261_122)
        try exportBenchmark(&generator)
        classificationBenchmark(&generator)
        try parsingBenchmark(&generator)
    }

    // MARK: Export

    func exportBenchmark(_ generator: inout SplitMix) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-calls-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: work) }
        let home = PepperHome(url: work)
        try home.prepare()
        let database = try PepperDatabase(home: home)
        let store = CallListStore(database: database)
        // Random NANP-shaped numbers (1 + area code 200–999 + 7 digits), unsorted, with some repeats.
        var entries: [CallDirectoryEntry] = []
        entries.reserveCapacity(numbers)
        var seen = Set<Int64>(minimumCapacity: numbers)
        while seen.count < numbers {
            let number = 10_000_000_000 + Int64(generator.next(below: 800) + 200) * 10_000_000 + Int64(generator.next(below: 10_000_000))
            if seen.insert(number).inserted { entries.append(CallDirectoryEntry(number: number)) }
        }
        seen = []
        let importSeconds = try Measurement.time { _ = try store.replace(.blocking, with: entries) }
        entries = []
        let size = (try? FileManager.default.attributesOfItem(atPath: home.databaseURL.path)[.size] as? Int) ?? 0
        print("Call-directory export: \(numbers) random blocked numbers (+ the default identification entry)")
        print("  setup: import in one transaction \(Measurement.seconds(importSeconds)), database \(Measurement.megabytes(size))")

        // In-process: the handler streaming from SQLite into a counting context.
        var inProcess: [Double] = []
        for _ in 0..<runs {
            let context = CountingContext()
            inProcess.append(
                try Measurement.time {
                    try CallDirectoryHandler(source: store).beginRequest(with: context, lastLoadedVersion: nil)
                })
            guard context.blocking == numbers else { throw ValidationError("exported \(context.blocking) entries, expected \(numbers)") }
        }
        print(
            "  in-process (SQLite cursor → CallDirectoryHandler → context), median of \(runs): \(Measurement.seconds(Measurement.median(inProcess)))"
        )

        let pepperPath =
            pepper ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pepper").path
        guard FileManager.default.isExecutableFile(atPath: pepperPath) else {
            print("  (pepper executable not found at \(pepperPath); build it with `swift build -c release`)")
            return
        }
        var commandRuns: [Measurement.ChildRun] = []
        for _ in 0..<runs {
            let run = try Measurement.run(pepperPath, ["calls", "export", "--home", work.path])
            guard run.status == 0 else { throw ValidationError("pepper calls export failed: \(run.stderr)") }
            let lines = run.stdout.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 }
            guard lines == numbers + 1 else { throw ValidationError("pepper calls export printed \(lines) lines") }
            commandRuns.append(run)
        }
        print(
            "  `pepper calls export` command (\(numbers + 1) lines), median of \(runs): \(Measurement.seconds(Measurement.median(commandRuns.map(\.seconds)))), "
                + "peak memory \(Measurement.megabytes(commandRuns.map(\.peakResidentBytes).max() ?? 0))   [target < 1 s, < 64 MB]")
    }

    // MARK: Classification

    func classificationBenchmark(_ generator: inout SplitMix) {
        let syllables = [
            "ka", "lo", "mi", "re", "su", "to", "ne", "va", "pi", "do", "gu", "fe", "zo", "bra", "chi", "str", "en", "or", "an", "ix",
        ]
        func word() -> String {
            (0..<(2 + generator.next(below: 3))).map { _ in syllables[generator.next(below: syllables.count)] }.joined()
        }
        var rules = MessageFilterRules.defaultWords.map { WordRule(word: $0) }
        while rules.count < words {
            rules.append(WordRule(word: word(), action: [MessageAction.junk, .promotion, .transaction][generator.next(below: 3)]))
        }
        let filter = MessageFilter(
            rules: MessageFilterRules(blockedSenders: ["+12539501212"], wordRules: rules),
            parser: try! PhoneNumberParser(defaultRegion: "US"))
        let templates = [
            "Hi, your table for %d is confirmed for 7pm tonight. Reply STOP to opt out",
            "Your verification code is %d. Do not share it with anyone.",
            "Congratulations! You have W0N a fr3e cruise, call now to claim your %d prize",
            "Hey are we still on for lunch tomorrow? I can be there by 12:%d",
            "FLASH SALE: %d%% off everything this weekend only at our stores",
            "Your package %d is out for delivery and will arrive today between 2 and 6pm",
            "Mum: don't forget to pick up milk on your way home, love you x%d",
            "Alert: a payment of $%d.00 was made with your card ending 4821",
        ]
        var messages: [(sender: String, body: String)] = []
        for index in 0..<10_000 {
            var body = templates[index % templates.count].replacingOccurrences(of: "%d", with: String(generator.next(below: 10_000)))
                .replacingOccurrences(of: "%%", with: "%")
            if index % 5 == 0 { body += " " + word() }
            let sender = index % 4 == 0 ? "72975" : "+1\(200 + generator.next(below: 800))\(1_000_000 + generator.next(below: 9_000_000))"
            messages.append((sender, body))
        }
        let averageBytes = messages.map(\.body.utf8.count).reduce(0, +) / messages.count
        var junk = 0
        var times: [Double] = []
        let passes = 20
        for _ in 0..<runs {
            junk = 0
            times.append(
                Measurement.time {
                    for _ in 0..<passes {
                        for message in messages where filter.classify(sender: message.sender, body: message.body).action == .junk {
                            junk += 1
                        }
                    }
                })
        }
        let total = Double(messages.count * passes)
        let rate = total / Measurement.median(times)
        print("")
        print(
            "Message classification: \(rules.count) word rules, \(messages.count) messages × \(passes) (avg \(averageBytes) bytes), one core; "
                + "\(junk / passes) junk per pass")
        print(String(format: "  %.0f messages/s (median of %d)   [target > 1,000,000/s]", rate, runs))
        var bodyOnly: [Double] = []
        for _ in 0..<runs {
            bodyOnly.append(
                Measurement.time {
                    for _ in 0..<passes {
                        for message in messages where filter.classify(sender: nil, body: message.body).action == .junk { junk += 1 }
                    }
                })
        }
        print(String(format: "  text only (no sender to parse): %.0f messages/s", total / Measurement.median(bodyOnly)))
    }

    // MARK: Parsing

    func parsingBenchmark(_ generator: inout SplitMix) throws {
        var inputs: [String] = []
        for index in 0..<100_000 {
            let area = 200 + generator.next(below: 800)
            let exchange = 200 + generator.next(below: 800)
            let line = generator.next(below: 10_000)
            let lineText = String(repeating: "0", count: 4 - String(line).count) + String(line)
            switch index % 5 {
            case 0: inputs.append("(\(area)) \(exchange)-\(lineText)")
            case 1: inputs.append("+1 \(area) \(exchange) \(lineText)")
            case 2: inputs.append("\(area)-\(exchange)-\(lineText)")
            case 3: inputs.append("+44 20 \(7_000 + generator.next(below: 3_000)) \(lineText)")
            default: inputs.append("011 49 30 \(1_000_000 + generator.next(below: 9_000_000))")
            }
        }
        let parser = try PhoneNumberParser(defaultRegion: "US")
        var valid = 0
        var times: [Double] = []
        for _ in 0..<runs {
            valid = 0
            times.append(Measurement.time { for input in inputs where parser.number(input) != nil { valid += 1 } })
        }
        let rate = Double(inputs.count) / Measurement.median(times)
        print("")
        print("Number parsing: \(inputs.count) numbers (US national, +1, +44, 011 49), \(valid) valid")
        print(String(format: "  Pepper: %.0f numbers/s (median of %d)   [target > 500,000/s]", rate, runs))

        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let pythonPath = python ?? repository.appendingPathComponent(".venv-oracle/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: pythonPath) else {
            print("  (no Python with phonenumbers at \(pythonPath): pass --python, or create .venv-oracle)")
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-numbers-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try inputs.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let script = """
            import sys, time, phonenumbers
            from phonenumbers import PhoneNumberFormat, ValidationResult
            lines = open(sys.argv[1], encoding="utf-8").read().split("\\n")
            best = None
            for _ in range(\(runs)):
                start = time.perf_counter(); valid = 0
                for line in lines:
                    try:
                        n = phonenumbers.parse(line, "US")
                        if phonenumbers.is_possible_number_with_reason(n) == ValidationResult.IS_POSSIBLE:
                            phonenumbers.format_number(n, PhoneNumberFormat.E164); valid += 1
                    except phonenumbers.NumberParseException:
                        pass
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else sorted([best, elapsed])[0]
            print(f"seconds={best} valid={valid} version={phonenumbers.__version__}")
            """
        let run = try Measurement.run(pythonPath, ["-c", script, file.path])
        guard run.status == 0 else {
            print("  (phonenumbers peer failed: \(run.stderr.prefix(200)))")
            return
        }
        let fields = Dictionary(
            run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        let seconds = Double(fields["seconds"] ?? "") ?? .nan
        let peerRate = Double(inputs.count) / seconds
        print(
            String(
                format: "  Python phonenumbers %@ (parse + possible-length check + E.164, best of %d): %.0f numbers/s, %@ valid",
                fields["version"] ?? "?", runs, peerRate, fields["valid"] ?? "?"))
        print(String(format: "  Ratio (Pepper / phonenumbers), numbers per second: %.1f", rate / peerRate))
    }
}

/// Counts what a load would hand CallKit.
final class CountingContext: CallDirectoryContext {
    let isIncremental = false
    var blocking = 0
    var identification = 0
    var last: Int64 = 0
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        blocking += 1
        last = phoneNumber
    }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {}
    func removeAllBlockingEntries() {}
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) { identification += 1 }
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {}
    func removeAllIdentificationEntries() {}
    func completeRequest() {}
    func cancelRequest(withError error: any Error) {}
}

/// A small seeded generator, so every run benchmarks the same data.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
