// Compile Pepper's embedded starter list into WebKit content-rule lists, publish them with their
// manifest into a folder, and read the manifest back.

// snippet.compile
import ContentBlocker
import FilterLists
import Foundation

let parsed = try FilterListParser().parse(StarterList.text, name: StarterList.name)
let allowlist = ["news.example"]
let compiled = ContentRuleCompiler().compile([parsed], allowlist: allowlist)
print(compiled.distinctRuleCount, compiled.blockedHosts.count)  // 37 23
// snippet.end

// snippet.hide
precondition(compiled.blockedHosts.contains("doubleclick.net"))
precondition(compiled.allowlist == ContentRuleCompiler.allowlistRules(for: allowlist))
// snippet.show

// snippet.output
var output = try ContentBlockerOutput(
    compiled: compiled,
    sources: [
        .init(
            name: StarterList.name, url: StarterList.url,
            contents: Data(StarterList.text.utf8))
    ],
    allowlist: allowlist,
    maximumRules: 150_000)
for file in output.files {
    print(file.name, file.ruleCount, file.byteCount)
    // blocker-1.json: requests, blocker-2.json: hiding
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "pepper-blocker-\(UUID().uuidString)")
let published = try output.write(to: folder.appendingPathComponent("out"))
// snippet.end

// snippet.hide
precondition(
    published && output.files.map(\.name) == ["blocker-1.json", "blocker-2.json"])
// snippet.show

// snippet.read
let manifest = try Manifest.decode(
    Data(contentsOf: folder.appendingPathComponent("out/manifest.json")))
print(manifest.files.map(\.path), manifest.allowlist)
// ["blocker-1.json", "blocker-2.json"] ["news.example"]

var rules: [WebKitRule] = []
for file in manifest.files {
    rules += try WebKitRuleJSON.decode(
        Data(contentsOf: folder.appendingPathComponent("out/\(file.path)")))
}
print(rules.count == output.totalRules)  // true
// snippet.end

// snippet.hide
precondition(manifest == output.manifest && manifest.allowlist == allowlist)
precondition(rules.count == output.totalRules && rules.last == compiled.allowlist.last)
let republished = try output.write(to: folder.appendingPathComponent("out"))
precondition(!republished)
try FileManager.default.removeItem(at: folder)
