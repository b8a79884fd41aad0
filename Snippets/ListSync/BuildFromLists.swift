// Build a content blocker from several lists the way an update does — one of them unreadable —
// apply a differential patch to a list, and turn a Picket blocklist into a list.

// snippet.build
import ContentBlocker
import Foundation
import ListSync
import Picket

let mine = ListInput(
    name: "mine", location: "/home/me/mine.txt", data: Data("||tracker.example^\n".utf8)
)
let broken = ListInput(
    name: "broken", location: "/home/me/broken.gz", data: Data([0x1F, 0x8B, 0]))
let parsed = BlockerBuilder.parse([.starter, mine, broken])
for item in parsed {
    switch item.result {
    case .success(let list): print(item.input.name, list.ruleCount)
    case .failure(let error): print(item.input.name, error)
    }
}
// pepper-starter 41
// mine 1
// broken broken is not a text filter list (it contains binary data; UTF-16 and ...

var output = try BlockerBuilder.compile(parsed, allowlist: [], maximumRules: 150_000)
print(output.manifest.sources.map(\.name))  // ["pepper-starter", "mine"]
// snippet.end

// snippet.hide
precondition(output.manifest.sources.map(\.name) == ["pepper-starter", "mine"])
if case .failure(.binaryContent(let name)) = parsed[2].result {
    precondition(name == "broken")
} else {
    preconditionFailure("the binary input should have been refused")
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "pepper-lists-\(UUID().uuidString)")
let written = try output.write(to: folder.appendingPathComponent("out"))
precondition(written)
try FileManager.default.removeItem(at: folder)
// snippet.show

// snippet.patch
// A list's `! Diff-Path:` names a patch in RCS format (`diff -n`): here, line 3 is
// replaced. Line numbers count in the list as it was.
let before = """
    [Adblock Plus 2.0]
    ! Title: Mine
    ||old-tracker.example^

    """
let patch = try DiffPatch("d3 1\na3 1\n||new-tracker.example^\n")
let after = try patch.apply(to: before)
print(after, terminator: "")
// [Adblock Plus 2.0]
// ! Title: Mine
// ||new-tracker.example^
// snippet.end

// snippet.hide
precondition(
    after == before.replacingOccurrences(of: "old-tracker", with: "new-tracker"))
// snippet.show

// snippet.picket
// A Picket server's blocklist as a list: a `||domain^` rule per struck employer's domain.
let payload = MobileData(
    version: "1.0", generatedAt: "2026-05-01T09:00:00.000Z",
    suggestedRefreshInterval: 3_600_000,
    cachedRegion: CachedRegion(
        center: Coordinates(lat: 0, lng: 0), radiusMeters: 0, refreshThresholdMeters: 0),
    geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
    blocklist: Blocklist(
        totalUrls: 2, totalEmployers: 1,
        urls: [
            BlocklistEntry(
                url: "https://www.examplefoods.example/jobs", employer: "Example Foods",
                employerId: "e1", actionType: "strike", actionId: "a1"),
            BlocklistEntry(
                url: "examplefoods-shop.example", employer: "Example Foods",
                employerId: "e1",
                actionType: "strike", actionId: "a1"),
        ]))
let (text, domains) = try PicketListSource.filterList(
    from: JSONEncoder().encode(payload), policy: .ask, server: "https://opl.example.org"
)
print(domains, text.split(separator: "\n").filter { $0.hasPrefix("||") })
// 2 ["||examplefoods-shop.example^", "||examplefoods.example^"]
// snippet.end

// snippet.hide
precondition(domains == 2)
precondition(text.hasSuffix("||examplefoods-shop.example^\n||examplefoods.example^\n"))
let allowed = try PicketListSource.filterList(
    from: JSONEncoder().encode(payload), policy: .allow,
    server: "https://opl.example.org")
precondition(!allowed.text.contains("||"))
