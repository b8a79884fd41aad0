// Open the state database of a Pepper home and use a few of its stores: the allowlist with a
// temporary entry, "My rules", the built-in list catalogue and the call block list.

// snippet.open
import CallFilter
import Foundation
import Storage

let home = PepperHome(
    url: FileManager.default.temporaryDirectory.appendingPathComponent(
        "pepper-home-\(UUID().uuidString)"))
try home.prepare()
let database = try PepperDatabase(home: home)
print(home.databaseURL.lastPathComponent)  // pepper.sqlite
// snippet.end

// snippet.allowlist
let allowlist = AllowlistStore(database: database)
let now = Date()
print(try allowlist.add("News.Example.").domain)  // news.example
try allowlist.add("shop.example", expiresAt: now.addingTimeInterval(3_600))
print(try allowlist.domains(at: now))  // ["news.example", "shop.example"]
print(try allowlist.domains(at: now.addingTimeInterval(7_200)))  // ["news.example"]
print(try allowlist.snapshot().covers("cdn.news.example", at: now))  // true
// snippet.end

// snippet.hide
let inEffect = try allowlist.domains(at: now)
let later = try allowlist.domains(at: now.addingTimeInterval(7_200))
precondition(inEffect == ["news.example", "shop.example"] && later == ["news.example"])
// snippet.show

// snippet.stores
let rules = UserRuleStore(database: database)
try rules.add("||tracker.example^")
print(try rules.rules().map(\.text))  // ["||tracker.example^"]

let lists = try ListSourceStore(database: database).all()
print(lists.filter(\.enabled).map(\.name))  // ["easylist", "easyprivacy"]

let calls = CallListStore(database: database)
try calls.add(.blocking, [CallDirectoryEntry(number: 12_539_501_212)])
print(try calls.lookup(12_539_501_212).blocked, try calls.version())  // true 1
// snippet.end

// snippet.hide
let lookup = try calls.lookup(12_539_501_212)
precondition(lookup.blocked && lookup.label == nil)
try FileManager.default.removeItem(at: home.url)
