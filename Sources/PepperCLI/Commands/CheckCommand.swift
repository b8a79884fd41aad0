import ArgumentParser
import FilterEngine
import FilterLists
import Foundation
import ListSync
import PepperActions
import Storage

/// `pepper check`: which rule decides a request, from which list and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Explain the verdict for a request: BLOCKED, ALLOWED or NOMATCH, and the rule that decided.",
        discussion: """
            Uses the enabled lists of the state (the engine saved by the last compile, or
            rebuilt from the stored copies), or the SOURCE lists given (paths or URLs).

            --requests FILE judges many requests: a JSON array or JSON lines of
            {"url", "frameUrl", "cpt"} (cpt: script, image, stylesheet, xhr, fetch,
            subdocument, document, media, font, websocket, ping, other). One line per
            request, in order: BLOCKED, ALLOWED or NOMATCH, a tab, the deciding rule.
            A request that cannot be judged gives INVALID, a tab and the reason. With
            --json, one JSON object per request instead: {"url", "source", "verdict"} or
            {"url", "error"}.
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Argument(help: ArgumentHelp("The URL to judge, then optional filter lists (paths or URLs).", valueName: "url-and-sources"))
    var arguments: [String] = []

    @Option(help: ArgumentHelp("The page making the request.", valueName: "page-url"))
    var source: String?

    @Option(
        help:
            "The request type: script, image, stylesheet, xhr, subdocument, document, media, font, websocket, ping, other (default: from the URL's extension)."
    )
    var type: String?

    @Option(help: ArgumentHelp("Judge the requests in FILE (JSON array or JSON lines).", valueName: "file"))
    var requests: String?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if requests == nil && arguments.isEmpty { throw ValidationError("give a URL to check, or --requests FILE") }
        if let type, ResourceTypes(requestTypeName: type) == nil { throw ValidationError("unknown --type '\(type)'") }
    }

    func run() async throws {
        let sourceArguments = requests == nil ? Array(arguments.dropFirst()) : arguments
        let engine = try await loadEngine(sources: sourceArguments)
        if let requests {
            try judgeBatch(file: requests, engine: engine)
            return
        }
        let url = arguments[0]
        let verdict = try PepperState.check(url, page: source, type: type.flatMap(ResourceTypes.init(requestTypeName:)), in: engine)
        if json {
            try Terminal.printJSON(CheckResult(url: url, source: source, verdict: verdict))
            return
        }
        print(Self.line(verdict, detailed: true))
        if let overridden = verdict.overridden { print("  overrides \(overridden.text)  (\(overridden.list):\(overridden.line))") }
    }

    private func judgeBatch(file: String, engine: FilterEngine) throws {
        let entries: [RequestEntry]
        do {
            entries = try RequestEntry.read(URL(fileURLWithPath: file))
        } catch {
            throw CLIError("\(file): \(error)")
        }
        var output = ""
        output.reserveCapacity(entries.count * 48)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for entry in entries {
            let outcome: Result<Verdict, ActionError>
            if let url = entry.url {
                outcome = Result { () throws(ActionError) in
                    try PepperState.check(
                        url, page: entry.frameUrl, type: entry.cpt.flatMap(ResourceTypes.init(requestTypeName:)), in: engine)
                }
            } else {
                outcome = .failure(.invalidRequest("no url"))
            }
            if json {
                let result = BatchResult(url: entry.url, source: entry.frameUrl, verdict: try? outcome.get(), error: outcome.failureMessage)
                output += String(decoding: try encoder.encode(result), as: UTF8.self) + "\n"
                continue
            }
            switch outcome {
            case .success(let verdict): output += Self.line(verdict, detailed: false) + "\n"
            case .failure(let error): output += "INVALID\t\(error.description)\n"
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    static func line(_ verdict: Verdict, detailed: Bool) -> String {
        guard let rule = verdict.rule else { return verdict.decision.rawValue }
        return verdict.decision.rawValue + "\t" + rule.text + (detailed ? "\t(\(rule.list):\(rule.line))" : "")
    }

    /// The SOURCE lists' engine (no state is opened for it), else the state's.
    private func loadEngine(sources: [String]) async throws(ActionError) -> FilterEngine {
        if !sources.isEmpty {
            var inputs: [ListInput] = []
            for argument in sources { inputs.append(try await ListInputLoader.load(argument, format: nil)) }
            let parsed = BlockerBuilder.parse(ListInputLoader.uniquelyNamed(inputs))
            for item in parsed { if case .failure(let error) = item.result { Terminal.warning("\(error)") } }
            return FilterEngine(lists: parsed.compactMap { try? $0.result.get() })
        }
        return try homeOptions.openState().engine()
    }

    struct CheckResult: Encodable {
        var url: String
        var source: String?
        var verdict: Verdict
    }

    /// One line of `--requests --json`: the verdict, or why the request could not be judged.
    struct BatchResult: Encodable {
        var url: String?
        var source: String?
        var verdict: Verdict?
        var error: String?
    }
}

/// One line of a requests file (`../shared/data/requests/` format).
struct RequestEntry: Decodable {
    var url: String?
    var frameUrl: String?
    var cpt: String?

    /// Reads a JSON array or JSON lines.
    static func read(_ file: URL) throws -> [RequestEntry] {
        let data = try Data(contentsOf: file)
        let trimmed = data.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if trimmed.first == UInt8(ascii: "[") { return try JSONDecoder().decode([RequestEntry].self, from: data) }
        return try data.split(separator: 0x0A).filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x0D } }.map {
            try JSONDecoder().decode(RequestEntry.self, from: Data($0))
        }
    }
}

extension Result where Failure == ActionError {
    fileprivate var failureMessage: String? {
        if case .failure(let error) = self { return error.description }
        return nil
    }
}
