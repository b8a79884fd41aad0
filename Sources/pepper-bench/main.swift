import ContentBlocker
import FilterLists
import Foundation

let paths = Array(CommandLine.arguments.dropFirst())
let datas = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
for _ in 0..<3 {
    let t = Date()
    let lists = try zip(paths, datas).map { try FilterListParser().parse($1, name: $0) }
    let t1 = Date()
    let compiled = ContentRuleCompiler().compile(lists, allowlist: ["example.org"])
    let t2 = Date()
    var out = try ContentBlockerOutput(
        compiled: compiled, sources: zip(paths, datas).map { .init(name: $0, url: $0, contents: $1) }, allowlist: ["example.org"],
        maximumRules: 150000)
    let t3 = Date()
    print(
        "parse", t1.timeIntervalSince(t), "compile", t2.timeIntervalSince(t1), "render", t3.timeIntervalSince(t2), "total",
        t3.timeIntervalSince(t))
    print(
        "sections blocking", compiled.blocking.count, "pairs", compiled.pairedBlockingCount, "exc", compiled.exceptions.count, "generic",
        compiled.genericHiding.count, "ghexc", compiled.genericHidingExceptions.count, "specific", compiled.specificHiding.count, "hexc",
        compiled.hidingExceptions.count, "imp", compiled.important.count, "doc", compiled.documentExceptions.count, "total", out.totalRules,
        "bytes", out.files.map { $0.contents.count })
    for r in compiled.reports {
        print(r.name, r.rulesIn, r.rulesOut, r.skipped.sorted { $0.value > $1.value }.map { "\($0.key)=\($0.value)" })
    }
    try out.write(to: URL(fileURLWithPath: "/tmp/pepout"))
}
