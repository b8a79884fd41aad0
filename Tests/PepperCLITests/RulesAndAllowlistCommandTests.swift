import Foundation
import PepperTestSupport
import Testing

/// `pepper rules`, `pepper allowlist add` with pasted addresses, and several `pepper` processes
/// changing the state at once.
@Suite("pepper rules and allowlist")
struct RulesAndAllowlistCommandTests {
    @Test func rulesAreCheckedStoredCompiledAndListed() async throws {
        let home = TestPaths.temporaryDirectory("rules")
        defer { try? FileManager.default.removeItem(at: home) }
        let added = try await PepperProcess.run(["rules", "add", "||tracker.example^", "example.com##.popup"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "Added ||tracker.example^\nAdded example.com##.popup\n")
        #expect(added.stderr.contains("Compiled"))
        #expect(try await PepperProcess.run(["rules", "list"], home: home).stdout == "||tracker.example^\nexample.com##.popup\n")
        let check = try await PepperProcess.run(["check", "https://tracker.example/a.js"], home: home)
        #expect(check.stdout.hasPrefix("BLOCKED\t||tracker.example^\t(my-rules:1)"), "\(check.stdout)")

        let bad = try await PepperProcess.run(["rules", "add", "||fine.example^", "example.com##+js(nowebrtc)"], home: home)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("'example.com##+js(nowebrtc)' cannot be used: scriptlets are not supported"), "\(bad.stderr)")
        #expect(try await PepperProcess.run(["rules", "list"], home: home).stdout.split(separator: "\n").count == 2, "nothing added")

        #expect(try await PepperProcess.run(["rules", "remove", "example.com##.popup"], home: home).status == 0)
        let missing = try await PepperProcess.run(["rules", "remove", "example.com##.popup"], home: home)
        #expect(missing.status == 1 && missing.stderr.contains("is not one of your rules"))
        let json = try await PepperProcess.run(["rules", "list", "--json"], home: home)
        let rules = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rules?.map { $0["text"] as? String } == ["||tracker.example^"])
    }

    @Test func aPastedAddressAllowlistsItsSite() async throws {
        let home = TestPaths.temporaryDirectory("allow-url")
        defer { try? FileManager.default.removeItem(at: home) }
        let added = try await PepperProcess.run(["allowlist", "add", "https://www.example.com/path?x=1"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "Added example.com (the host of https://www.example.com/path?x=1)\n")
        #expect(try await PepperProcess.run(["allowlist", "list"], home: home).stdout == "example.com\n")
        let refused = try await PepperProcess.run(["allowlist", "add", "not a site"], home: home)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("'not a site' is not a domain or a web address"), "\(refused.stderr)")
    }

    /// Eight `pepper allowlist add` processes at once, each its own PepperState: the build lock
    /// orders their rebuilds, and the output in place at the end has every site.
    @Test func concurrentProcessesPublishInOrderAndTheNewestStateWins() async throws {
        let home = TestPaths.temporaryDirectory("concurrent")
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await PepperProcess.run(["compile"], home: home).status == 0)
        let sites = (0..<8).map { "site\($0).example" }
        let outcomes = try await withThrowingTaskGroup(of: PepperProcess.Outcome.self) { group in
            for site in sites { group.addTask { try await PepperProcess.run(["allowlist", "add", site], home: home) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for outcome in outcomes { #expect(outcome.status == 0, "\(outcome.stderr)") }
        let manifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: home.appendingPathComponent("out/manifest.json"))) as? [String: Any]
        #expect(manifest?["allowlist"] as? [String] == sites)
    }
}
