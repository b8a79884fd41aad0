import ContentBlocker
import FilterEngine
import FilterLists
import Foundation
import Testing

@testable import ListSync
@testable import Storage

/// The incremental compile: a rebuild whose lists did not change reuses their encoded rules and
/// the saved engine, and gives exactly the output a full compile gives.
@Suite("Incremental compile")
struct IncrementalCompileTests {
    struct Home {
        let home: PepperHome
        let database: PepperDatabase

        init(lists: [(String, String)]) throws {
            home = PepperHome(
                url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-incr-\(UUID().uuidString.prefix(8))"))
            try home.prepare()
            database = try PepperDatabase(home: home)
            for (name, text) in lists {
                _ = try ListSourceStore(database: database).insert(ListSource(name: name, location: "/lists/\(name).txt", format: "abp"))
                try Data(text.utf8).write(to: home.listsURL.appendingPathComponent(name))
            }
        }

        func files() throws -> [String: Data] {
            let manifest = try Manifest.decode(Data(contentsOf: home.outputURL.appendingPathComponent("manifest.json")))
            var files = ["manifest.identifier": Data(manifest.identifier.utf8)]
            for file in manifest.files { files[file.path] = try Data(contentsOf: home.outputURL.appendingPathComponent(file.path)) }
            return files
        }

        func modified(_ url: URL) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        }
    }

    static let ads = "||ads.example^\n||tracker.example^\n/banner/*$image\n@@||ads.example/ok.js\n##.ad\nnews.example##.promo\n"
    static let more = "||more.example^\n||ads.example^$badfilter\n||cdn.example/x.js$script,third-party\nshop.example##.deal\n"

    @Test func anAllowlistChangeReusesTheRulesAndGivesTheFullCompilesBytes() throws {
        let fixture = try Home(lists: [("ads", Self.ads), ("more", Self.more)])
        defer { try? FileManager.default.removeItem(at: fixture.home.url) }
        let first = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        #expect(first.inputs.map(\.reused) == [false, false])
        #expect(FileManager.default.fileExists(atPath: CompileCache.url(home: fixture.home).path))
        let engineFile = EngineCache.url(home: fixture.home)
        let engineWritten = try #require(fixture.modified(engineFile))

        _ = try AllowlistStore(database: fixture.database).add("friendly.example")
        let second = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        #expect(second.inputs.map(\.reused) == [true, true], "nothing parsed or converted again")
        #expect(second.changed && second.output.manifest.allowlist == ["friendly.example"])
        #expect(second.output.manifest.inputs == first.output.manifest.inputs)
        #expect(fixture.modified(engineFile) == engineWritten, "the engine is not rebuilt for an allowlist change")
        let incremental = try fixture.files()

        // The same state compiled from scratch gives the same bytes and identifier.
        try FileManager.default.removeItem(at: CompileCache.url(home: fixture.home))
        let full = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        #expect(full.inputs.map(\.reused) == [false, false])
        #expect(try fixture.files() == incremental)
        #expect(full.output.manifest.sources.map(\.rulesOut) == second.output.manifest.sources.map(\.rulesOut))
        #expect(full.output.manifest.sources.map(\.skipped) == second.output.manifest.sources.map(\.skipped))

        // The saved engine, loaded, applies the allowlist of now.
        let engine = try #require(try EngineCache.load(home: fixture.home, database: fixture.database))
        #expect(engine.domainDecision("ads.friendly.example") == .noMatch)
        // (`||ads.example^` is cancelled by the other list's `$badfilter`; tracker.example is blocked.)
        let verdict = try engine.match(
            FilterRequest(url: "https://tracker.example/a.js", sourceURL: "https://www.friendly.example/", type: .script))
        #expect(verdict.decision == .allowed && verdict.rule?.list == "allowlist")
        _ = try AllowlistStore(database: fixture.database).remove("friendly.example")
        let back = try #require(try EngineCache.load(home: fixture.home, database: fixture.database))
        let request = FilterRequest(url: "https://tracker.example/a.js", sourceURL: "https://www.friendly.example/", type: .script)
        #expect(try back.match(request).decision == .blocked)
        #expect(back.domainDecision("ads.example") == .noMatch, "the badfilter of one list cancels the other's block")
    }

    @Test func aChangedListCompilesAgainAndRebuildsTheEngine() throws {
        let fixture = try Home(lists: [("ads", Self.ads)])
        defer { try? FileManager.default.removeItem(at: fixture.home.url) }
        let first = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        try Data((Self.ads + "||new.example^\n").utf8).write(to: fixture.home.listsURL.appendingPathComponent("ads"))
        let second = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        #expect(second.inputs.map(\.reused) == [false])
        #expect(second.output.manifest.inputs != first.output.manifest.inputs)
        let engine = try #require(try EngineCache.load(home: fixture.home, database: fixture.database))
        #expect(engine.domainDecision("new.example") == .blocked, "the engine follows the changed list")
        // Disabling a list changes the key too.
        let store = ListSourceStore(database: fixture.database)
        var more = try store.insert(ListSource(name: "more", location: "/lists/more.txt", format: "abp"))
        try Data(Self.more.utf8).write(to: fixture.home.listsURL.appendingPathComponent("more"))
        #expect(try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database).inputs.map(\.reused) == [false, false])
        more.enabled = false
        try store.update(more)
        #expect(try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database).inputs.map(\.reused) == [false])
    }

    @Test func aDamagedCacheIsCompiledAgain() throws {
        let fixture = try Home(lists: [("ads", Self.ads)])
        defer { try? FileManager.default.removeItem(at: fixture.home.url) }
        _ = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        let expected = try fixture.files()
        let cache = CompileCache.url(home: fixture.home)
        let bytes = try Data(contentsOf: cache)
        for damaged in [bytes.prefix(bytes.count - 10), bytes.prefix(40), Data("garbage".utf8)] {
            try damaged.write(to: cache)
            let rebuilt = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
            #expect(rebuilt.inputs.map(\.reused) == [false], "a cache that cannot be read is ignored")
            #expect(try fixture.files() == expected)
        }
    }

    @Test func encodedRulesRoundTripAndRefuseWhatDoesNotFit() throws {
        let list = try FilterListParser().parse(Self.ads + Self.more, name: "all", format: .abp)
        let encoded = EncodedCompiledRules(ContentRuleCompiler().compile([list], allowlist: ["a.example"]))
        let back = try EncodedCompiledRules(serialized: encoded.serialized()[...])
        #expect(back == encoded)
        #expect(throws: EncodedCompiledRules.StorageError.self) { try EncodedCompiledRules(serialized: encoded.serialized().dropLast(3)) }
        let rules = EncodedRules([WebKitRule(trigger: .init(urlFilter: "x"), action: .block)])
        #expect(EncodedRules(bytes: rules.bytes, ends: rules.ends, digest: rules.digest) == rules)
        #expect(EncodedRules(bytes: rules.bytes, ends: [rules.bytes.count - 1], digest: rules.digest) == nil)
        #expect(EncodedRules(bytes: rules.bytes, ends: [rules.bytes.count + 1], digest: rules.digest) == nil)
        #expect(EncodedRules(bytes: rules.bytes, ends: rules.ends, digest: [1, 2]) == nil)
    }
}
