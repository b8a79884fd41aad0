// Build a filter engine from a list and ask it about requests and domains; every verdict names
// the rule that decided it.

// snippet.build
import FilterEngine
import FilterLists
import Foundation

let list = """
    ||tracker.example^
    ||ads.example^$script,third-party
    @@||ads.example/consent.js$script
    ||images.example^$image
    """
let parsed = try FilterListParser().parse(list, name: "my-list")
let engine = FilterEngine(lists: [parsed], allowlist: ["shop.example"])
// snippet.end

// snippet.requests
let script = FilterRequest(
    url: "https://ads.example/banner.js", sourceURL: "https://news.example/",
    type: .script)
let verdict = try engine.match(script)
print(
    verdict.decision, verdict.rule?.text ?? "-", verdict.rule?.list ?? "-",
    verdict.rule?.line ?? 0)
// blocked ||ads.example^$script,third-party my-list 2

let consent = try engine.match(
    FilterRequest(
        url: "https://ads.example/consent.js", sourceURL: "https://news.example/",
        type: .script))
print(consent.decision, consent.rule?.text ?? "-", consent.overridden?.text ?? "-")
// allowed @@||ads.example/consent.js$script ||ads.example^$script,third-party
// snippet.end

// snippet.hide
precondition(verdict.decision == .blocked)
precondition(
    verdict.rule
        == MatchedRule(
            text: "||ads.example^$script,third-party", list: "my-list", line: 2))
precondition(consent.decision == .allowed && consent.overridden?.line == 2)
let firstParty = try engine.match(
    FilterRequest(
        url: "https://ads.example/banner.js", sourceURL: "https://ads.example/",
        type: .script))
precondition(firstParty.decision == .noMatch)
// snippet.show

// snippet.domains
print(engine.match(domain: "cdn.tracker.example").decision)  // blocked
print(engine.domainDecision("ads.example"))
// blocked: no site should load it as a third party
print(engine.domainDecision("images.example"))
// noMatch: its host serves more than images
// snippet.end

// snippet.hide
precondition(engine.match(domain: "cdn.tracker.example").decision == .blocked)
precondition(engine.domainDecision("ads.example") == .blocked)
precondition(engine.domainDecision("images.example") == .noMatch)
let allowlisted = try engine.match(
    FilterRequest(
        url: "https://tracker.example/p.gif", sourceURL: "https://shop.example/",
        type: .image))
precondition(allowlisted.decision != .blocked)
// snippet.show

// snippet.save
// The engine is a few flat arrays: saved once, loaded without parsing any list.
let file = FileManager.default.temporaryDirectory.appendingPathComponent(
    "engine-\(UUID().uuidString).bin")
try engine.write(to: file)
let loaded = try FilterEngine(contentsOf: file)
print(try loaded.match(script).decision, loaded.ruleCount == engine.ruleCount)
// blocked true
// snippet.end

// snippet.hide
let reloaded = try loaded.match(script)
precondition(reloaded == verdict && loaded.ruleCount == engine.ruleCount)
try FileManager.default.removeItem(at: file)
