// Open Pepper's state in a folder of its own, add a rule of one's own and a site to the
// allowlist, ask which rule decides a request, and read what the rebuild published.

// snippet.open
import Foundation
import PepperActions
import Storage

let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "pepper-home-\(UUID().uuidString)")
let state = try PepperState(home: PepperHome(url: folder))
// snippet.end

// snippet.change
for line in PepperState.checkRules(
    "||tracker.example^\nexample.org##+js(set-constant, ads, 1)")
{
    print(line.text, line.problem.map { "\($0)" } ?? "ok")
}
// ||tracker.example^ ok
// example.org##+js(set-constant, ads, 1) scriptlets are not supported (scriptlet)

// Each action that changes what is blocked ends in one rebuild of the output.
try await state.addRule("||tracker.example^")
let change = try await state.addAllowlist("https://www.news.example/story")
print(change.domain, change.added)  // news.example true
// snippet.end

// snippet.check
let blocked = try state.check(
    "https://tracker.example/pixel.gif", page: "https://blog.example/")
print(blocked.decision, blocked.rule?.text ?? "-")  // blocked ||tracker.example^

let allowed = try state.check(
    "https://tracker.example/pixel.gif", page: "https://news.example/")
print(allowed.decision, allowed.rule?.text ?? "-")  // allowed allowlist: news.example
// snippet.end

// snippet.outcome
let outcome = try await state.rebuild()
print(
    outcome.changed, outcome.fileURLs.map(\.lastPathComponent),
    outcome.manifest.allowlist)
// false ["blocker-1.json", "blocker-2.json"] ["news.example"]
// snippet.end

// snippet.hide
precondition(blocked.decision == .blocked && blocked.rule?.text == "||tracker.example^")
precondition(allowed.decision != .blocked)
precondition(!outcome.changed && outcome.manifest.allowlist == ["news.example"])
precondition(outcome.lists.map(\.name) == ["pepper-starter", "my-rules"])
precondition(
    outcome.fileURLs.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
try FileManager.default.removeItem(at: folder)
