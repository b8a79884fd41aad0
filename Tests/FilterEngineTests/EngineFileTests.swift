import FilterEngine
import FilterLists
import Foundation
import PepperTestSupport
import Testing

@Suite("Saving and loading an engine")
struct EngineFileTests {
    static let filters = TestData.filters
    static let requests = TestData.ghosteryRequests

    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pepper-engine-\(UUID().uuidString.prefix(8)).bin")
    }

    struct Entry: Decodable {
        var url: String
        var frameUrl: String?
        var cpt: String
    }

    @Test func aLoadedEngineGivesTheSameVerdictsOnRealListsAndRequests() throws {
        let parser = FilterListParser()
        let lists = try ["easylist.txt", "easyprivacy.txt"].map {
            try parser.parse(Data(contentsOf: Self.filters.appendingPathComponent($0)), name: $0)
        }
        let built = FilterEngine(lists: lists, allowlist: ["friendly.test"], identifier: "manifest-1")
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try built.write(to: file)
        let loaded = try FilterEngine(contentsOf: file)
        #expect(loaded.identifier == "manifest-1")
        #expect(loaded.ruleCount == built.ruleCount)

        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: Self.requests))
        var blocked = 0
        for entry in entries {
            let request = FilterRequest(
                url: entry.url, sourceURL: entry.frameUrl, type: ResourceTypes(requestTypeName: entry.cpt) ?? .other)
            let expected = try? built.match(request)
            let actual = try? loaded.match(request)
            #expect(actual == expected, "\(entry.url)")
            if expected?.decision == .blocked { blocked += 1 }
        }
        #expect(blocked > 1_000, "the lists block a good share of real tracker requests")
        for name in ["www.google-analytics.com", "cdn.00px.net", "example.com"] {
            #expect(loaded.match(domain: name) == built.match(domain: name))
        }
        #expect(loaded.domainDecision("cdn.00px.net") == .blocked)
        // `||google-analytics.com^$script,third-party,xmlhttprequest`: third-party loads of an
        // embedded tracker are blocked at the DNS level too (docs/engine.md, "Domains").
        #expect(loaded.domainDecision("www.google-analytics.com") == .blocked)
        #expect(loaded.domainDecision("example.com") == .noMatch)
    }

    @Test func filesThatAreNotEnginesAreRefused() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        for content in [Data(), Data("PEPPERFE".utf8), Data("||ads.test^\n".utf8), Data(repeating: 0xFF, count: 4_096)] {
            try content.write(to: file)
            #expect(throws: (any Error).self) { try FilterEngine(contentsOf: file) }
        }
        #expect(throws: (any Error).self) { try FilterEngine(contentsOf: file.appendingPathExtension("missing")) }
    }

    /// Every truncation, and many random byte flips, of a saved engine either load into an
    /// engine that answers without crashing, or are refused.
    @Test func damagedFilesAreRefusedOrHarmless() throws {
        let engine = try engine(
            """
            ||ads.test^
            ||tracker.test^$third-party,domain=site.test|~a.site.test
            @@||ads.test/ok/
            /banner/*/ad.$image
            /\\/ad[0-9]+\\.gif/
            @@||trusted.test^$document
            ||strict.test^$important
            """, allowlist: ["friendly.test"])
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try engine.write(to: file)
        let original = try Data(contentsOf: file)
        let requests = [
            FilterRequest(url: "https://ads.test/x", sourceURL: "https://site.test/"),
            FilterRequest(url: "https://tracker.test/t", sourceURL: "https://b.site.test/", type: .image),
            FilterRequest(url: "https://x.test/banner/1/ad.png", sourceURL: "https://trusted.test/", type: .image),
            FilterRequest(url: "https://x.test/ad12.gif", sourceURL: "https://friendly.test/"),
        ]
        func exercise(_ data: Data) {
            try? data.write(to: file)
            guard let loaded = try? FilterEngine(contentsOf: file) else { return }  // lint-tests: a refused file is a pass here
            for request in requests { _ = try? loaded.match(request) }
            for name in ["ads.test", "a.tracker.test", "strict.test"] { _ = loaded.match(domain: name) }
        }
        var refused = 0
        for length in stride(from: 0, to: original.count, by: 7) {
            try original.prefix(length).write(to: file)
            if (try? FilterEngine(contentsOf: file)) == nil { refused += 1 }
        }
        #expect(refused == (original.count + 6) / 7, "every truncation is refused")
        var generator = SplitMix(seed: 42)
        for _ in 0..<2_000 {
            var damaged = original
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = Int(generator.next() % UInt64(damaged.count))
                damaged[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            exercise(damaged)
        }
    }
}

/// A small deterministic generator, so a failure can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
