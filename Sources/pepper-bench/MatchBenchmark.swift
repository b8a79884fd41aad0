import ArgumentParser
import FilterEngine
import FilterLists
import Foundation

/// `pepper-bench match`: the filter engine on real requests, beside adblock-rust.
struct MatchBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Time the filter engine on real requests; compare verdicts and speed with adblock-rust.",
        discussion: """
            Lists default to EasyList + EasyPrivacy, requests to the two sets in
            ../shared/data/requests. With --peer-python (a Python with PyPI `adblock`
            installed; scripts/peers/adblock_rust.py drives it), adblock-rust judges the same
            requests in the same run: speed ratio, agreement rate and a classification of
            every disagreement. --domains N times DNS-style domain lookups with N blocked
            domains (the real `||domain^` rules, padded with generated names).
            """
    )

    @Option(parsing: .upToNextOption, help: "Filter lists.") var lists: [String] = []
    @Option(parsing: .upToNextOption, help: "Request files (JSON arrays of {url, frameUrl, cpt}).") var requests: [String] = []
    @Option(help: "Passes over the requests.") var runs = 5
    @Option(help: ArgumentHelp("A Python with PyPI `adblock` for the peer.", valueName: "path")) var peerPython: String?
    @Option(help: "Blocked domains for the domain-lookup measurement (0: skip).") var domains = 1_000_000

    func run() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let data = repository.appendingPathComponent("../shared/data").standardizedFileURL
        let listPaths =
            lists.isEmpty ? ["easylist.txt", "easyprivacy.txt"].map { data.appendingPathComponent("filters/\($0)").path } : lists
        let requestPaths =
            requests.isEmpty
            ? ["ghostery-requests.json", "brave-matching-requests.json"].map { data.appendingPathComponent("requests/\($0)").path }
            : requests

        let rssBefore = Measurement.residentBytes()
        let listData = try listPaths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        var parsed: [ParsedFilterList] = []
        let parse = try Measurement.time {
            parsed = try FilterListParser.parseConcurrently(
                zip(listPaths, listData).map { ($1, URL(fileURLWithPath: $0).lastPathComponent, nil) })
        }
        var engine: FilterEngine?
        let build = Measurement.time { engine = FilterEngine(lists: parsed) }
        parsed = []
        let built = engine!
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-engine-\(UUID().uuidString.prefix(8)).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try built.write(to: file)
        var loadTimes: [Double] = []
        for _ in 0..<5 { loadTimes.append(try Measurement.time { _ = try FilterEngine(contentsOf: file) }) }
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        print(
            "Lists: \(listPaths.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " + ")); \(built.ruleCount) request rules"
        )
        print(
            "Pepper: parse \(Measurement.seconds(parse)), build \(Measurement.seconds(build)), load from file \(Measurement.seconds(Measurement.median(loadTimes))) (\(Measurement.megabytes(fileSize)))"
        )
        print("  index: \(built.indexStatistics)")
        print(
            "  engine memory: \(Measurement.megabytes(built.memoryFootprint)) in its arrays; process RSS grew \(Measurement.megabytes(Measurement.residentBytes() - rssBefore)) (lists included)"
        )

        for path in requestPaths {
            let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            let requests = entries.map {
                FilterRequest(url: $0.url, sourceURL: $0.frameUrl, type: ResourceTypes(requestTypeName: $0.cpt) ?? .other)
            }
            var samples: [Double] = []
            samples.reserveCapacity(requests.count * runs)
            var verdicts: [String] = []
            let total = Measurement.time {
                for run in 0..<runs {
                    for request in requests {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let verdict = try? built.match(request)
                        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
                        if run == 0 { verdicts.append(verdict?.decision.rawValue ?? "INVALID") }
                    }
                }
            }
            samples.sort()
            let median = samples[samples.count / 2]
            let p99 = samples[Int(Double(samples.count) * 0.99)]
            let name = URL(fileURLWithPath: path).lastPathComponent
            print("")
            print("\(name): \(requests.count) requests × \(runs)")
            print(String(format: "  Pepper: median %.2f µs, p99 %.2f µs, %.0f requests/s", median, p99, Double(samples.count) / total))
            let counts = Dictionary(grouping: verdicts, by: { $0 }).mapValues(\.count)
            print("  verdicts: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
            if let peerPython {
                try comparePeer(
                    peerPython, lists: listPaths, requests: path, entries: entries, ours: verdicts, ourMedian: median,
                    repository: repository)
            }
        }
        if domains > 0 { try measureDomains(count: domains, lists: listPaths) }
    }

    struct Entry: Decodable {
        var url: String
        var frameUrl: String?
        var cpt: String
    }

    private func comparePeer(
        _ python: String, lists: [String], requests: String, entries: [Entry], ours: [String], ourMedian: Double, repository: URL
    ) throws {
        let script = repository.appendingPathComponent("scripts/peers/adblock_rust.py").path
        let verdictsFile = FileManager.default.temporaryDirectory.appendingPathComponent("peer-verdicts-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: verdictsFile) }
        let run = try Measurement.run(
            python, [script, "--lists"] + lists + ["--requests", requests, "--verdicts", verdictsFile.path, "--runs", String(runs)])
        guard run.status == 0 else { throw ValidationError("adblock-rust failed: \(run.stderr)") }
        let fields = Measurement.keyValues(run.stderr)
        let peerMedian = Double(fields["median_us"] ?? "") ?? .nan
        print(
            "  adblock-rust: median \(fields["median_us"] ?? "?") µs, p99 \(fields["p99_us"] ?? "?") µs, \(fields["requests_per_second"] ?? "?") requests/s, "
                + "build \(fields["build_seconds"] ?? "?") s, engine +\(Measurement.megabytes((Int(fields["engine_memory_kb"] ?? "") ?? 0) * 1_024))"
        )
        print(
            String(
                format:
                    "  ratio (Pepper / adblock-rust), median: %.2f  [measured through Python: the peer's figures include the call overhead]",
                ourMedian / peerMedian))
        let peerLines = try String(contentsOf: verdictsFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = peerLines.map { String($0.split(separator: "\t").first ?? "") }
        let theirRules = peerLines.map { $0.split(separator: "\t", maxSplits: 1).dropFirst().first.map(String.init) ?? "" }
        var agree = 0
        var classes: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let mine = ours[index]
            let peer = index < theirs.count ? theirs[index] : ""
            if mine == peer || (mine == "INVALID" && peer == "NOMATCH") {
                agree += 1
                if mine == "INVALID" {
                    classes["malformed URL (Pepper: INVALID, adblock-rust: NOMATCH), counted as agreement", default: 0] += 1
                }
                continue
            }
            // Classify: with an unknown page (a bare-scheme frameUrl) adblock-rust still applies
            // some rules limited by `$domain`; Pepper applies none, as WebKit does.
            let unknownPage = (entry.frameUrl ?? "").hasSuffix("://")
            let peerRule = index < theirRules.count ? theirRules[index] : ""
            let decidingRule = peer == "ALLOWED" || peer == "BLOCKED" ? peerRule : ""
            let sites =
                decidingRule.split(separator: "$").last.map { options in
                    options.split(separator: ",").first { $0.hasPrefix("domain=") }.map {
                        $0.dropFirst(7).split(separator: "|").filter { !$0.hasPrefix("~") }.count
                    } ?? 0
                } ?? 0
            let key =
                unknownPage && sites >= 1
                ? "unknown page: adblock-rust applied a rule limited to \(sites >= 2 ? "2+ sites" : "1 site")"
                : "other (adblock-rust: \(peerRule.prefix(60)))"
            classes["\(key): Pepper \(mine), adblock-rust \(peer)", default: 0] += 1
        }
        print(
            String(
                format: "  agreement with adblock-rust: %d / %d = %.3f%%", agree, entries.count, 100 * Double(agree) / Double(entries.count)
            ))
        for (label, count) in classes.sorted(by: { $0.value > $1.value }) { print("    \(count)  \(label)") }
    }

    /// DNS-style lookups: blocked, blocked subdomain and unlisted names, with `count` blocked domains.
    private func measureDomains(count: Int, lists: [String]) throws {
        var domains = Set<String>()
        for path in lists {
            let list = try FilterListParser().parse(Data(contentsOf: URL(fileURLWithPath: path)), name: "l")
            for rule in list.networkRules { if let domain = rule.blockedDomain { domains.insert(domain) } }
        }
        let real = domains.count
        var generator = SystemRandomNumberGenerator()
        while domains.count < count {
            domains.insert("pad\(UInt32.random(in: 0...UInt32.max, using: &generator))-\(domains.count).example")
        }
        let text = domains.map { $0 }.joined(separator: "\n")
        let before = Measurement.residentBytes()
        let list = try FilterListParser().parse(text, name: "domains", format: .domains)
        var engine: FilterEngine?
        let build = Measurement.time { engine = FilterEngine(lists: [list]) }
        let built = engine!
        let grown = Measurement.residentBytes() - before
        let names = Array(domains.prefix(100_000))
        let queries = names.map { "www." + $0 } + names.map { $0 } + (0..<100_000).map { "unlisted\($0).test" }
        // The names back to back in one buffer, as a DNS server has them after decoding a packet.
        var flat: [UInt8] = []
        var bounds: [Range<Int>] = []
        for name in queries {
            let start = flat.count
            flat += Array(name.utf8)
            bounds.append(start..<flat.count)
        }
        var blocked = 0
        let seconds = flat.withUnsafeBufferPointer { buffer in
            Measurement.time {
                for range in bounds where built.domainDecision(lowercasedName: UnsafeBufferPointer(rebasing: buffer[range])) == .blocked {
                    blocked += 1
                }
            }
        }
        print("")
        print("Domain lookups: \(count) blocked domains (\(real) real, the rest generated)")
        print(
            String(
                format: "  build %.2f s, engine %@ in its arrays (RSS +%@ with the parsed list)", build,
                Measurement.megabytes(built.memoryFootprint), Measurement.megabytes(grown)))
        print(
            String(
                format: "  %.2f million lookups/s (%d queries: blocked, blocked subdomain, unlisted; %d blocked)",
                Double(queries.count) / seconds / 1e6, queries.count, blocked))
    }
}
