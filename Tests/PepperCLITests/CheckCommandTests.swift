import FilterEngine
import FilterLists
import Foundation
import PepperTestSupport
import Testing

@Suite("pepper check")
struct CheckCommandTests {
    static let easyPrivacy = TestPaths.filters.appendingPathComponent("easyprivacy.txt")

    @Test
    func namesTheBlockingRuleItsListAndLine() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(
            [
                "check", "https://www.google-analytics.com/analytics.js", "--source", "https://example.com", "--type", "script",
                Self.easyPrivacy.path,
            ],
            home: home)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let fields = outcome.stdout.trimmingCharacters(in: .newlines).split(separator: "\t").map(String.init)
        try #require(fields.count == 3, "\(outcome.stdout)")
        #expect(fields[0] == "BLOCKED")
        #expect(fields[1].contains("google-analytics.com"))
        // The line named is the rule's line in the list.
        let location = fields[2].trimmingCharacters(in: CharacterSet(charactersIn: "()"))
        #expect(location.hasPrefix("easyprivacy.txt:"))
        let line = try #require(Int(location.split(separator: ":").last ?? ""))
        let lines = try String(contentsOf: Self.easyPrivacy, encoding: .utf8).components(separatedBy: "\n")
        #expect(lines[line - 1] == fields[1])

        let json = try await PepperProcess.run(
            [
                "check", "https://www.google-analytics.com/analytics.js", "--source", "https://example.com", "--type", "script", "--json",
                Self.easyPrivacy.path,
            ],
            home: home)
        struct Result: Decodable {
            var url: String
            var verdict: Verdict
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(json.stdout.utf8))
        #expect(result.verdict.decision == .blocked)
        #expect(result.verdict.rule == MatchedRule(text: fields[1], list: "easyprivacy.txt", line: line))

        // The same script requested by Google's own site is first party: the rule does not apply.
        let own = try await PepperProcess.run(
            [
                "check", "https://www.google-analytics.com/analytics.js", "--source", "https://analytics.google-analytics.com", "--type",
                "script", Self.easyPrivacy.path,
            ],
            home: home)
        #expect(!own.stdout.hasPrefix("BLOCKED\t\(fields[1])"), "\(own.stdout)")
    }

    @Test
    func batchVerdictsFollowTheRequestsInOrderAndMatchTheEngine() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        struct Entry: Codable {
            var url: String?
            var frameUrl: String?
            var cpt: String?
        }
        let all = try JSONDecoder().decode(
            [Entry].self, from: Data(contentsOf: TestData.ghosteryRequests))
        var entries = Array(all.prefix(400))
        entries.append(Entry(url: "no scheme here", frameUrl: nil, cpt: "script"))
        entries.append(Entry(url: nil, frameUrl: nil, cpt: nil))

        // JSON lines and a JSON array give the same answers.
        let linesFile = home.appendingPathComponent("requests.jsonl")
        let arrayFile = home.appendingPathComponent("requests.json")
        let encoder = JSONEncoder()
        try Data(try entries.map { String(decoding: try encoder.encode($0), as: UTF8.self) }.joined(separator: "\n").utf8).write(
            to: linesFile)
        try encoder.encode(entries).write(to: arrayFile)
        let lists = ["easylist.txt", "easyprivacy.txt"].map { TestPaths.filters.appendingPathComponent($0) }
        let fromLines = try await PepperProcess.run(["check", "--requests", linesFile.path] + lists.map(\.path), home: home)
        let fromArray = try await PepperProcess.run(["check", "--requests", arrayFile.path] + lists.map(\.path), home: home)
        #expect(fromLines.status == 0, "\(fromLines.stderr)")
        #expect(fromLines.stdout == fromArray.stdout)

        let output = fromLines.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        try #require(output.count == entries.count)
        #expect(output[entries.count - 2].hasPrefix("INVALID\t"))
        #expect(output[entries.count - 1] == "INVALID\tno url")

        // Each line is what the engine says for that request.
        let parser = FilterListParser()
        let engine = FilterEngine(lists: try lists.map { try parser.parse(Data(contentsOf: $0), name: $0.lastPathComponent) })
        var blocked = 0
        for (entry, line) in zip(entries.prefix(400), output) {
            let verdict = try engine.match(
                FilterRequest(url: entry.url!, sourceURL: entry.frameUrl, type: ResourceTypes(requestTypeName: entry.cpt ?? "") ?? .other))
            let expected = verdict.decision.rawValue + (verdict.rule.map { "\t" + $0.text } ?? "")
            #expect(line == expected, "\(entry.url!)")
            if verdict.decision == .blocked { blocked += 1 }
        }
        #expect(blocked > 50)

        // --json: one object per request, in the same order, with the same verdicts.
        struct BatchLine: Decodable {
            var url: String?
            var verdict: Verdict?
            var error: String?
        }
        let json = try await PepperProcess.run(["check", "--requests", linesFile.path, "--json"] + lists.map(\.path), home: home)
        let objects = try json.stdout.split(separator: "\n").map { try JSONDecoder().decode(BatchLine.self, from: Data($0.utf8)) }
        try #require(objects.count == entries.count)
        for (object, line) in zip(objects, output) {
            if let verdict = object.verdict {
                #expect(line == verdict.decision.rawValue + (verdict.rule.map { "\t" + $0.text } ?? ""))
            } else {
                #expect(line == "INVALID\t" + (object.error ?? "?"))
            }
        }
    }

    @Test func usesTheStateListsAndAllowlistByDefault() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n@@||tracker.test/ok.js\n".write(to: list, atomically: true, encoding: .utf8)
        #expect(try await PepperProcess.run(["lists", "add", list.path, "--name", "mine"], home: home).status == 0)

        let blocked = try await PepperProcess.run(["check", "https://cdn.tracker.test/t.js", "--source", "https://news.test/"], home: home)
        #expect(blocked.stdout == "BLOCKED\t||tracker.test^\t(mine:1)\n", "\(blocked.stdout)\(blocked.stderr)")
        let excepted = try await PepperProcess.run(["check", "https://tracker.test/ok.js", "--source", "https://news.test/"], home: home)
        #expect(excepted.stdout == "ALLOWED\t@@||tracker.test/ok.js\t(mine:2)\n  overrides ||tracker.test^  (mine:1)\n")

        #expect(try await PepperProcess.run(["allowlist", "add", "news.test"], home: home).status == 0)
        let allowlisted = try await PepperProcess.run(
            ["check", "https://cdn.tracker.test/t.js", "--source", "https://www.news.test/"], home: home)
        #expect(allowlisted.stdout.hasPrefix("ALLOWED\tallowlist: news.test"), "\(allowlisted.stdout)")

        #expect(try await PepperProcess.run(["lists", "disable", "mine"], home: home).status == 0)
        let disabled = try await PepperProcess.run(
            ["check", "https://cdn.tracker.test/t.js", "--source", "https://other.test/"], home: home)
        #expect(disabled.stdout == "NOMATCH\n", "a disabled list no longer decides")
    }

    @Test func badInputGetsAClearError() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n".write(to: list, atomically: true, encoding: .utf8)

        let notURL = try await PepperProcess.run(["check", "tracker.test/t.js", list.path], home: home)
        #expect(notURL.status != 0)
        #expect(notURL.stderr.contains("not an absolute URL"))
        let badType = try await PepperProcess.run(["check", "https://tracker.test/", "--type", "banana", list.path], home: home)
        #expect(badType.status != 0)
        #expect(badType.stderr.contains("unknown --type 'banana'"))
        let nothing = try await PepperProcess.run(["check"], home: home)
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("give a URL"))
        let missing = try await PepperProcess.run(
            ["check", "--requests", home.appendingPathComponent("absent.json").path, list.path], home: home)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("absent.json"))
    }
}
