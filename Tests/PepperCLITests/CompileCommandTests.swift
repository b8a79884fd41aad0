import ContentBlocker
import Foundation
import PepperTestSupport
import Testing

@Suite("pepper compile and allowlist")
struct CompileCommandTests {
    @Test func freshHomeCompilesTheStarterListOffline() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await PepperProcess.run(["compile"], home: home)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("starter list"))
        #expect(outcome.stdout.contains("pepper-starter"))
        let manifest = try Manifest.decode(Data(contentsOf: home.appendingPathComponent("out/manifest.json")))
        #expect(manifest.sources.map(\.name) == ["pepper-starter"])
        let rules = try WebKitRuleJSON.decode(Data(contentsOf: home.appendingPathComponent("out/blocker-1.json")))
        #expect(rules.count == manifest.files[0].rules)
        #expect(rules.contains { $0.trigger.urlFilter.contains("doubleclick") })
    }

    @Test func jsonOutputAndAllowFlag() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = home.appendingPathComponent("mine.txt")
        try "||ads.example^\n##.ad\nexample.com##+js(noop)\n".write(to: list, atomically: true, encoding: .utf8)
        let outcome = try await PepperProcess.run(["compile", list.path, "--allow", "Friendly.Example", "--json"], home: home)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let manifest = try #require(summary?["manifest"] as? [String: Any])
        #expect(manifest["allowlist"] as? [String] == ["friendly.example"])
        let sources = try #require(manifest["sources"] as? [[String: Any]])
        #expect(sources.first?["skipped"] as? [String: Int] == ["scriptlet": 1])
        #expect(sources.first?["rulesIn"] as? Int == 3)
    }

    @Test func usageErrorsExitWith64() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        for arguments in [
            ["compile", "--allow", "https://x.com/"], ["compile", "--max-rules", "0"], ["compile", "--format", "yaml"],
            ["allowlist", "add", "*"],
        ] {
            let outcome = try await PepperProcess.run(arguments, home: home)
            #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
            #expect(!outcome.stderr.isEmpty)
        }
    }

    @Test func badInputFailsOnlyWhenNothingIsUsable() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        let empty = home.appendingPathComponent("empty.txt")
        let binary = home.appendingPathComponent("binary.bin")
        let json = home.appendingPathComponent("wrong.json")
        let good = home.appendingPathComponent("good.txt")
        try Data().write(to: empty)
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: binary)
        try Data("{\"trackers\": {}}".utf8).write(to: json)
        try Data("||ok.example^\n".utf8).write(to: good)

        let failing = try await PepperProcess.run(["compile", empty.path, binary.path, json.path, "/nonexistent/list.txt"], home: home)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("binary data"))
        #expect(failing.stderr.contains("no such file"))
        #expect(failing.stderr.split(separator: "\n").last?.hasPrefix("Error: ") == true)

        let mixed = try await PepperProcess.run(["compile", empty.path, binary.path, good.path], home: home)
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(mixed.stderr.contains("empty.txt: no usable rules"))
        #expect(mixed.stdout.contains("good.txt"))
    }

    @Test func allowlistCommandsAndTheirEffect() async throws {
        let home = TestPaths.temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await PepperProcess.run(["allowlist", "add", "Bücher.example"], home: home).status == 0)
        #expect(try await PepperProcess.run(["allowlist", "add", "news.example"], home: home).status == 0)
        let listed = try await PepperProcess.run(["allowlist", "list", "--json"], home: home)
        let entries = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.compactMap { $0["domain"] as? String } == ["news.example", "xn--bcher-kva.example"])
        #expect(try await PepperProcess.run(["allowlist", "remove", "news.example"], home: home).status == 0)
        let missing = try await PepperProcess.run(["allowlist", "remove", "news.example"], home: home)
        #expect(missing.status == 1)
        #expect(try await PepperProcess.run(["compile"], home: home).status == 0)
        let rules = try WebKitRuleJSON.decode(Data(contentsOf: home.appendingPathComponent("out/blocker-1.json")))
        #expect(rules.last == ContentRuleCompiler.allowlistRules(for: ["xn--bcher-kva.example"]).first)
    }
}
