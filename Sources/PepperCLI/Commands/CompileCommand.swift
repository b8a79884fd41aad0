import ArgumentParser
import ContentBlocker
import FilterLists
import Foundation
import ListSync
import PepperActions
import Storage

/// `pepper compile`: filter lists → WebKit content-blocker JSON.
struct CompileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile filter lists into WebKit content-blocker rule lists.",
        discussion: """
            SOURCE is a file path, an http(s) URL, or picket:https://SERVER (the key
            of a Picket list source with that location, or $PEPPER_PICKET_KEY, is
            used; the Picket policy applies). Without SOURCE, the enabled
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

    @Argument(help: ArgumentHelp("Filter lists to compile (paths, URLs, picket:https://SERVER).", valueName: "source"))
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
        let state = try homeOptions.openState()
        // The home's own output from the state's lists: the same rebuild as every change makes.
        if sources.isEmpty && output == nil && allow.isEmpty && maxRules == 150_000 {
            if (try? BlockerBuilder.storedInputs(home: state.home, database: state.database))?.isEmpty != false {
                Terminal.status(
                    "No list sources downloaded yet (see `pepper lists` and `pepper update`): compiling the embedded starter list.")
            }
            let outcome = try await state.rebuild()
            BlockerReport.printParsed(outcome.lists)
            report(outcome.manifest, outputURL: outcome.outputURL, changed: outcome.changed, start: start)
            return
        }
        var allowlist = try AllowlistStore(database: state.database).domains()
        allowlist += try allow.map { try DomainName.normalize($0) }
        let inputs = try await loadInputs(state)
        let parsed = BlockerBuilder.parse(inputs)
        BlockerReport.printParsed(parsed.map(ParsedListSummary.init))
        var result: ContentBlockerOutput
        do {
            result = try BlockerBuilder.compile(parsed, allowlist: allowlist, maximumRules: maxRules)
        } catch {
            throw CLIError("\(error) in \(inputs.map(\.name).joined(separator: ", "))")
        }
        // Freed while the output is written.
        BackgroundRelease.release(consume parsed)
        let outputURL = output.map { URL(fileURLWithPath: $0) } ?? state.home.outputURL
        let changed: Bool
        do {
            // The home's output is written in turn with rebuilds; another folder needs no lock.
            if outputURL.standardizedFileURL == state.home.outputURL.standardizedFileURL {
                let compiled = result
                changed = try await state.withBuildLock {
                    var output = compiled
                    return try output.write(to: outputURL)
                }
            } else {
                changed = try result.write(to: outputURL)
            }
        } catch {
            throw CLIError("cannot write the output to \(outputURL.path): \(error)")
        }
        report(result.manifest, outputURL: outputURL, changed: changed, start: start)
    }

    private func report(_ manifest: Manifest, outputURL: URL, changed: Bool, start: Date) {
        let elapsed = Date().timeIntervalSince(start)
        if json {
            try? Terminal.printJSON(CompileSummary(manifest: manifest, output: outputURL.path, changed: changed, seconds: elapsed))
        } else {
            BlockerReport.printSummary(manifest, outputURL: outputURL, changed: changed, elapsed: elapsed)
        }
    }

    private func loadInputs(_ state: PepperState) async throws -> [ListInput] {
        guard sources.isEmpty else {
            var loaded: [ListInput] = []
            let catalogue = try state.lists()
            let policy = try state.picketPolicy()
            for argument in sources {
                let stored: String?
                do {
                    // The key of a Picket list with this location, from the key store.
                    stored = try catalogue.first { $0.location == argument }.flatMap { try state.picketKey(for: $0) }
                } catch {
                    Terminal.warning("\(argument): cannot read its API key: \(error)")
                    continue
                }
                do {
                    let key = stored ?? ProcessInfo.processInfo.environment["PEPPER_PICKET_KEY"].flatMap { $0.isEmpty ? nil : $0 }
                    let context = ListInputLoader.PicketContext(key: key, policy: policy)
                    let bar = ProgressBar(label: URL(string: argument)?.lastPathComponent ?? argument)
                    let input = try await ListInputLoader.load(argument, format: format.format, picket: context, progress: bar.update)
                    bar.finish()
                    loaded.append(input)
                } catch {
                    Terminal.warning(Self.explain(error, argument))
                }
            }
            guard !loaded.isEmpty else { throw CLIError("none of the sources could be read") }
            return ListInputLoader.uniquelyNamed(loaded)
        }
        return try BlockerBuilder.stateInputs(home: state.home, database: state.database)
    }

    /// A source's failure, with the fix in this command's words.
    static func explain(_ error: ActionError, _ argument: String) -> String {
        if case .picketKeyMissing = error {
            return "\(argument): needs an API key: `pepper lists add \(argument) --key KEY`, or set PEPPER_PICKET_KEY"
        }
        return error.description
    }
}
