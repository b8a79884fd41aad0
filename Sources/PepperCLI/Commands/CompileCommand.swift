import ArgumentParser
import ContentBlocker
import FilterLists
import Foundation
import ListSync
import Storage

/// `pepper compile`: filter lists → WebKit content-blocker JSON.
struct CompileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile filter lists into WebKit content-blocker rule lists.",
        discussion: """
            SOURCE is a file path or an http(s) URL. Without SOURCE, the enabled
            list sources are used (their copies from the last `pepper update`),
            or, on a fresh state, the embedded starter list.

            Writes DIR/blocker-1.json … blocker-K.json (WebKit rule arrays of at
            most --max-rules rules, for Safari, WKWebView and WebKitGTK) and
            DIR/manifest.json, then prints per-source counts: rules in, rules out,
            and lines skipped by reason. DIR is switched to the new output
            atomically; unchanged inputs leave it byte-for-byte unchanged.
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

        let inputs = try await loadInputs(database: database, home: home)
        let parsed = BlockerBuilder.parse(inputs)
        BlockerReport.printParsed(parsed)
        var result: ContentBlockerOutput
        do {
            result = try BlockerBuilder.compile(parsed, allowlist: allowlist, maximumRules: maxRules)
        } catch {
            throw CLIError("\(error) in \(inputs.map(\.name).joined(separator: ", "))")
        }
        let outputURL = output.map { URL(fileURLWithPath: $0) } ?? home.outputURL
        let changed: Bool
        do {
            changed = try result.write(to: outputURL)
        } catch {
            throw CLIError("cannot write the output to \(outputURL.path): \(error)")
        }
        if sources.isEmpty && output == nil {
            try BlockerBuilder.recordCounts(result.manifest, database: database)
            // The engine for `pepper check` and the DNS filter follows the home's output.
            if allow.isEmpty { try EngineCache.rebuild(home: home, database: database, parsed: parsed) }
        }
        let elapsed = Date().timeIntervalSince(start)
        if json {
            try Terminal.printJSON(CompileSummary(manifest: result.manifest, output: outputURL.path, changed: changed, seconds: elapsed))
        } else {
            BlockerReport.printSummary(result, outputURL: outputURL, changed: changed, elapsed: elapsed)
        }
    }

    private func loadInputs(database: PepperDatabase, home: PepperHome) async throws -> [ListInput] {
        guard sources.isEmpty else {
            var loaded: [ListInput] = []
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
        let stored = try BlockerBuilder.storedInputs(home: home, database: database)
        if stored.isEmpty {
            Terminal.status("No list sources downloaded yet (see `pepper lists` and `pepper update`): compiling the embedded starter list.")
            return [.starter]
        }
        return stored
    }

    /// Gives sources with the same file name distinct names (`easylist.txt`, `easylist.txt#2`).
    static func uniquelyNamed(_ sources: [ListInput]) -> [ListInput] {
        var seen: [String: Int] = [:]
        return sources.map { source in
            var source = source
            let count = seen[source.name, default: 0] + 1
            seen[source.name] = count
            if count > 1 { source.name += "#\(count)" }
            return source
        }
    }
}
