import ArgumentParser
import ContentBlocker
import FilterLists
import Foundation
import Storage

/// `pepper compile`: filter lists → WebKit content-blocker JSON.
struct CompileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile filter lists into WebKit content-blocker rule lists.",
        discussion: """
            SOURCE is a file path or an http(s) URL. Without SOURCE, the enabled list sources in the
            state are used, or, on a fresh state, the embedded starter list.

            Writes DIR/blocker-1.json … blocker-K.json (each a WebKit rule array of at most
            --max-rules rules; Safari, WKWebView and WebKitGTK load them) and DIR/manifest.json,
            then prints per-source counts: rules in, rules out, and lines skipped by reason.
            Unchanged inputs leave the output byte-for-byte unchanged.
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Argument(help: ArgumentHelp("Filter lists to compile (paths or URLs).", valueName: "source"))
    var sources: [String] = []

    @Option(help: "The syntax of the sources: auto, abp, hosts, domains, tds (DuckDuckGo Tracker Radar) or disconnect.")
    var format: FormatOption = .auto

    @Option(name: .customLong("allow"), help: ArgumentHelp("Also allowlist this domain for this run (repeatable).", valueName: "domain"))
    var allow: [String] = []

    @Option(help: ArgumentHelp("Output folder (default: $PEPPER_HOME/out).", valueName: "dir"))
    var output: String?

    @Option(help: "Most rules per output list; WebKit refuses lists over 150,000.")
    var maxRules: Int = 150_000

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    enum FormatOption: String, ExpressibleByArgument, CaseIterable {
        case auto, abp, hosts, domains, tds, disconnect
        var format: FilterListFormat? { FilterListFormat(rawValue: rawValue) }
    }

    func validate() throws {
        guard maxRules >= 1 else { throw ValidationError("--max-rules must be at least 1") }
        for domain in allow {
            do {
                _ = try DomainName.normalize(domain)
            } catch {
                throw ValidationError("--allow \(domain): \(error)")
            }
        }
    }

    func run() async throws {
        let start = Date()
        let database = try homeOptions.openDatabase()
        let home = homeOptions.pepperHome
        var allowlist = try AllowlistStore(database: database).domains()
        allowlist += try allow.map { try DomainName.normalize($0) }

        let loaded = try await loadSources(database: database, home: home)
        let parsed = try await parse(loaded)
        let usable = parsed.filter { $0.list.ruleCount > 0 }
        guard !usable.isEmpty else {
            throw CLIError(
                "no usable rules in \(parsed.map(\.list.name).joined(separator: ", ")): \(Self.describeSkips(parsed.map(\.list)))")
        }
        for (source, list) in parsed where list.ruleCount == 0 {
            Terminal.warning("\(source.name): no usable rules (\(Self.describeSkips([list]))); is the format right?")
        }

        let compiled = ContentRuleCompiler().compile(usable.map(\.list), allowlist: allowlist)
        let identities = usable.map { source, _ in
            ContentBlockerOutput.SourceIdentity(name: source.name, url: source.location, etag: source.etag, contents: source.data)
        }
        var result = try ContentBlockerOutput(compiled: compiled, sources: identities, allowlist: allowlist, maximumRules: maxRules)
        let outputURL = output.map { URL(fileURLWithPath: $0) } ?? home.outputURL
        let changed: Bool
        do {
            changed = try result.write(to: outputURL)
        } catch {
            throw CLIError("cannot write the output to \(outputURL.path): \(error)")
        }
        let elapsed = Date().timeIntervalSince(start)
        if json {
            try Terminal.printJSON(CompileSummary(manifest: result.manifest, output: outputURL.path, changed: changed, seconds: elapsed))
        } else {
            printSummary(result, outputURL: outputURL, changed: changed, elapsed: elapsed)
        }
    }

    private func loadSources(database: PepperDatabase, home: PepperHome) async throws -> [LoadedSource] {
        var loaded: [LoadedSource] = []
        if !sources.isEmpty {
            for argument in sources {
                do {
                    loaded.append(try await SourceLoader.load(argument, format: format.format))
                } catch {
                    Terminal.warning("\(error)")
                }
            }
            guard !loaded.isEmpty else { throw CLIError("none of the sources could be read") }
            return Self.uniquelyNamed(loaded)
        }
        for source in try ListSourceStore(database: database).enabled() {
            let copy = home.listsURL.appendingPathComponent(source.name)
            guard let data = try? Data(contentsOf: copy) else { continue }
            let format = FilterListFormat(rawValue: source.format)
            loaded.append(LoadedSource(name: source.name, location: source.location, etag: source.etag, data: data, format: format))
        }
        if loaded.isEmpty {
            Terminal.status("No list sources downloaded yet: compiling the embedded starter list.")
            loaded.append(
                LoadedSource(name: StarterList.name, location: StarterList.url, data: Data(StarterList.text.utf8), format: .abp))
        }
        return loaded
    }

    /// Gives sources with the same file name distinct names (`easylist.txt`, `easylist.txt#2`).
    static func uniquelyNamed(_ sources: [LoadedSource]) -> [LoadedSource] {
        var seen: [String: Int] = [:]
        return sources.map { source in
            var source = source
            let count = seen[source.name, default: 0] + 1
            seen[source.name] = count
            if count > 1 { source.name += "#\(count)" }
            return source
        }
    }

    private func parse(_ loaded: [LoadedSource]) async throws -> [(source: LoadedSource, list: ParsedFilterList)] {
        try await withThrowingTaskGroup(of: (Int, ParsedFilterList?).self) { group in
            for (index, source) in loaded.enumerated() {
                group.addTask {
                    let started = Date()
                    do {
                        let list = try FilterListParser().parse(source.data, name: source.name, format: source.format)
                        Terminal.status(
                            "Parsed \(source.name) (\(Terminal.bytes(source.data.count)), \(list.format.rawValue)): "
                                + "\(Terminal.count(list.ruleCount)) rules, \(Terminal.count(list.skippedCount)) skipped "
                                + "in \(Terminal.seconds(Date().timeIntervalSince(started)))")
                        return (index, list)
                    } catch {
                        Terminal.warning("\(error)")
                        return (index, nil)
                    }
                }
            }
            var results = [ParsedFilterList?](repeating: nil, count: loaded.count)
            for try await (index, list) in group { results[index] = list }
            let parsed = zip(loaded, results).compactMap { source, list in list.map { (source, $0) } }
            guard !parsed.isEmpty else { throw CLIError("none of the sources is a filter list") }
            return parsed
        }
    }

    static func describeSkips(_ lists: [ParsedFilterList]) -> String {
        var reasons: [SkipReason: Int] = [:]
        var lines = 0
        for list in lists {
            lines += list.lineCount
            reasons.merge(list.skipped, uniquingKeysWith: +)
        }
        if reasons.isEmpty { return "\(Terminal.count(lines)) lines, all blank or comments" }
        let top = reasons.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(4)
        return "\(Terminal.count(reasons.values.reduce(0, +))) lines skipped: "
            + top.map { "\($0.key) \(Terminal.count($0.value))" }.joined(separator: ", ")
    }

    private func printSummary(_ result: ContentBlockerOutput, outputURL: URL, changed: Bool, elapsed: Double) {
        let manifest = result.manifest
        let nameWidth = max(6, manifest.sources.map(\.name.count).max() ?? 0)
        print(Terminal.pad("source", nameWidth) + "   rules in  rules out   skipped")
        for source in manifest.sources {
            let skipped = source.skipped.values.reduce(0, +)
            print(
                Terminal.pad(source.name, nameWidth) + Terminal.padLeft(Terminal.count(source.rulesIn), 11)
                    + Terminal.padLeft(Terminal.count(source.rulesOut), 11) + Terminal.padLeft(Terminal.count(skipped), 10))
            let reasons = source.skipped.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
            for (reason, count) in reasons {
                print(Terminal.pad("", nameWidth) + "     " + Terminal.padLeft(Terminal.count(count), 7) + "  " + reason)
            }
        }
        let files = manifest.files.map { "\($0.path) (\(Terminal.count($0.rules)) rules)" }.joined(separator: ", ")
        print("\(Terminal.count(result.totalRules)) WebKit rules in \(manifest.files.count) list(s): \(files)")
        print(
            "Output: \(outputURL.path) \(changed ? "written" : "unchanged"), identifier \(manifest.identifier.prefix(16))…, \(Terminal.seconds(elapsed))"
        )
    }
}

/// `pepper compile --json` output.
struct CompileSummary: Encodable {
    var manifest: Manifest
    var output: String
    var changed: Bool
    var seconds: Double
}
