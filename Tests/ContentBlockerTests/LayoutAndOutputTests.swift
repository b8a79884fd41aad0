import Foundation
import Testing

@testable import ContentBlocker
@testable import FilterLists

@Suite("Rule list layout and output")
struct LayoutAndOutputTests {
    func generated(blocks: Int, exceptions: Int = 2) -> String {
        (0..<blocks).map { "||host\($0).example/ad" }.joined(separator: "\n") + "\n"
            + (0..<exceptions).map { "@@||host\($0).example/ok" }.joined(separator: "\n")
            + "\n##.ad\n##.banner\n||imp.example^$important\n@@||safe.example^$document"
    }

    @Test func domainRulesComeAfterPairsAndBeforeOtherBlocks() throws {
        let compiled = try compile(["||zz.example/x\n||b.example^\n||a.example^\n||m.example^$domain=s.com|~x.s.com\n##.ad"])
        let lists = try compiled.ruleLists(maximumRules: 150_000)
        #expect(lists.count == 2)
        let filters = lists[0].map(\.trigger.urlFilter)
        #expect(filters[0].contains("m\\.example") && filters[1].contains("m\\.example"))
        #expect(filters[2] == URLFilterTranslator.domainRulePrefix + "a\\.example[/:]")
        #expect(filters[3] == URLFilterTranslator.domainRulePrefix + "b\\.example[/:]")
        #expect(filters[4].contains("zz"))
    }

    @Test func requestRulesAndHidingRulesGoToSeparateOrderedLists() throws {
        let compiled = try compile([generated(blocks: 5)], allowlist: ["mine.org"])
        let lists = try compiled.ruleLists(maximumRules: 150_000)
        #expect(lists.count == 2)
        let requests = lists[0].map(\.action)
        // blocks, exceptions, important, document exceptions, allowlist
        #expect(requests.prefix(5).allSatisfy { $0 == .block })
        #expect(requests[5...6].allSatisfy { $0 == .ignorePreviousRules })
        #expect(requests[7] == .block)
        #expect(requests.count == 10)
        // hiding, document exceptions, allowlist
        #expect(lists[1].map(\.action) == [.cssDisplayNone(selector: ".ad, .banner"), .ignorePreviousRules, .ignorePreviousRules])
        for list in lists {
            #expect(list.last == ContentRuleCompiler.allowlistRules(for: ["mine.org"]).first)
            #expect(list.contains(compiled.documentExceptions[0]))
        }
    }

    @Test func overTheLimitIsSplitAndEveryListEndsWithExceptionsAndAllowlist() throws {
        let compiled = try compile([generated(blocks: 1_000)], allowlist: ["mine.org"])
        let lists = try compiled.ruleLists(maximumRules: 300)
        #expect(lists.count == 5)
        #expect(lists.allSatisfy { $0.count <= 300 })
        for list in lists {
            #expect(list.last == compiled.allowlist.first)
            #expect(list.contains(compiled.documentExceptions[0]))
        }
        for list in lists.dropLast() {
            #expect(list.contains(compiled.exceptions[0]))
            #expect(list.contains(compiled.important[0]))
        }
        let blocks = lists.flatMap { $0.filter { $0.action == .block && $0.trigger.urlFilter.contains("host") } }
        #expect(blocks.count == 1_000)
        #expect(Set(blocks).count == 1_000)
    }

    @Test func mixedDomainPairsStayTogetherWhenSplit() throws {
        let text = (0..<9).map { "||p\($0).example^$domain=a.com|~b.a.com" }.joined(separator: "\n")
        let compiled = try compile([text])
        #expect(compiled.pairedBlockingCount == 18)
        let lists = try compiled.ruleLists(maximumRules: 5)
        for list in lists {
            #expect(list.first?.action == .block)
            #expect(list.count % 2 == 0)
        }
    }

    @Test func tooSmallLimitIsAnError() throws {
        let compiled = try compile([generated(blocks: 10, exceptions: 20)])
        #expect(throws: CompileError.self) { try compiled.ruleLists(maximumRules: 10) }
    }

    @Test func outputIsByteIdenticalAndIdentifierStable() throws {
        let text = generated(blocks: 50)
        let source = ContentBlockerOutput.SourceIdentity(name: "g", url: "file", contents: Data(text.utf8))
        let first = try ContentBlockerOutput(compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 40)
        let second = try ContentBlockerOutput(compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 40)
        #expect(first.files.map(\.contents) == second.files.map(\.contents))
        #expect(first.manifest.identifier == second.manifest.identifier)
        var withETag = source
        withETag.etag = "\"v2\""
        let third = try ContentBlockerOutput(compiled: compile([text]), sources: [withETag], allowlist: [], maximumRules: 40)
        #expect(third.manifest.identifier != first.manifest.identifier)
    }

    @Test func writtenFilesRoundTripAndUnchangedInputsKeepTheManifest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-out-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = generated(blocks: 30)
        let source = ContentBlockerOutput.SourceIdentity(name: "g", url: "file", contents: Data(text.utf8))
        var output = try ContentBlockerOutput(
            compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 20,
            generatedAt: Date(timeIntervalSince1970: 0))
        #expect(try output.write(to: directory))
        #expect(output.files.count == 3)
        let manifestBytes = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        let manifest = try Manifest.decode(manifestBytes)
        #expect(manifest.files.count == output.files.count)
        #expect(manifest.generatedAt == "1970-01-01T00:00:00Z")
        let lists = try compile([text]).ruleLists(maximumRules: 20)
        for (index, (file, entry)) in zip(output.files, manifest.files).enumerated() {
            let decoded = try WebKitRuleJSON.decode(Data(contentsOf: directory.appendingPathComponent(entry.path)))
            #expect(decoded == lists[index])
            // Assembled from rules encoded once: byte for byte what encoding the list's rules gives.
            #expect(file.contents == WebKitRuleJSON.encode(lists[index]))
            // Written piece by piece: the file holds exactly those bytes.
            #expect(try [UInt8](Data(contentsOf: directory.appendingPathComponent(entry.path))) == file.contents)
            let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(entry.path).path)[.size] as? Int
            #expect(file.byteCount == size)
            #expect(decoded.count == entry.rules && file.ruleCount == entry.rules)
        }
        var again = try ContentBlockerOutput(compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 20)
        #expect(try again.write(to: directory) == false)
        #expect(try Data(contentsOf: directory.appendingPathComponent("manifest.json")) == manifestBytes)

        // A smaller output removes the stale lists of the larger one.
        var smaller = try ContentBlockerOutput(compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 150_000)
        try smaller.write(to: directory)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("blocker-3.json").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("blocker-2.json").path))
    }

    @Test func jsonEscapesQuotesAndBackslashes() throws {
        let rule = WebKitRule(
            trigger: .init(urlFilter: #"a\.b"c"#), action: .cssDisplayNone(selector: #"a[title="x\y"]"#))
        let bytes = WebKitRuleJSON.encode([rule])
        #expect(try WebKitRuleJSON.decode(Data(bytes)) == [rule])
    }
}

@Suite("Lists without the allowlist")
struct RemovingAllowlistTests {
    @Test func theAllowlistRuleIsTakenOffTheEndOfEveryList() throws {
        let list = try FilterListParser().parse("||ads.example^\n@@||ads.example/ok\n##.ad\n", name: "l", format: .abp)
        let compiled = ContentRuleCompiler().compile([list])
        let source = ContentBlockerOutput.SourceIdentity(name: "l", url: "x", contents: Data("x".utf8))
        let plain = try ContentBlockerOutput(compiled: compiled, sources: [source], allowlist: [], maximumRules: 150_000)
        let allowlisted = try ContentBlockerOutput(
            compiled: ContentRuleCompiler().compile([list], allowlist: ["b.example", "a.example"]), sources: [source],
            allowlist: ["b.example", "a.example"], maximumRules: 150_000)
        #expect(allowlisted.files.count == 2)
        for (with, without) in zip(allowlisted.files, plain.files) {
            let stripped = ContentBlockerOutput.removingAllowlist(from: with.contents, allowlist: ["a.example", "b.example"])
            #expect(stripped == without.contents, "\(with.name)")
            #expect(try WebKitRuleJSON.decode(Data(stripped ?? [])).count == with.ruleCount - 1)
        }
        // Another allowlist than the list's, or none at all in the list: not touched.
        #expect(ContentBlockerOutput.removingAllowlist(from: allowlisted.files[0].contents, allowlist: ["c.example"]) == nil)
        #expect(ContentBlockerOutput.removingAllowlist(from: plain.files[0].contents, allowlist: ["a.example"]) == nil)
        #expect(ContentBlockerOutput.removingAllowlist(from: plain.files[0].contents, allowlist: []) == plain.files[0].contents)
    }
}

/// The work spread over the cores gives what the serial code gives.
@Suite("Parallel conversion")
struct ParallelConversionTests {
    /// Hosts that share long prefixes, are prefixes of each other, and are short.
    static let hosts: [String] = {
        var hosts = ["a.b", "a", "b", "aa", "ab.example", "ab.example.org", "ab-example.org"]
        for index in 0..<3_000 {
            hosts.append("averyveryverylongprefix\(index % 7).example\(index).com")
            hosts.append("x\(index * 7919 % 3_000).net")
            hosts.append(String(repeating: "s", count: index % 20 + 1))
        }
        return Array(Set(hosts))
    }()

    @Test func hostsSortAsStringsDo() {
        #expect(NetworkRuleConverter.sortedOrder(of: Self.hosts).map { Self.hosts[$0] } == Self.hosts.sorted())
        #expect(NetworkRuleConverter.sortedOrder(of: []) == [])
    }

    @Test func parallelMapKeepsOrderAndCount() {
        for count in [0, 1, 2_047, 2_048, 10_001] {
            #expect([Int].parallelMap(count: count) { $0 * 3 } == (0..<count).map { $0 * 3 })
        }
    }

    @Test func rulesEncodedInChunksAreTheSameBytes() {
        let rules = (0..<10_000).map { index in
            WebKitRule(trigger: .init(urlFilter: "^https?://ads\(index)\\.example/", isCaseSensitive: index % 2 == 0), action: .block)
        }
        let serial = EncodedRules(rules)
        let chunked = EncodedRules(encodingInParallel: rules[...])
        #expect(chunked == serial)
        #expect(EncodedRules(encodingInParallel: rules[100..<200]) == EncodedRules(rules[100..<200]))
    }
}

@Suite("Leftovers of killed writers")
struct WriterLeftoverTests {
    /// A killed writer's staging folder is removed by the next publish even when its process ID
    /// now belongs to a running process (IDs are reused): the mark's start time tells them apart.
    @Test(.enabled(if: ProcessMark.startTime(of: getpid()) != nil, "process start times are read from /proc"))
    func aStagingFolderWhoseIDWasReusedIsRemoved() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-leftovers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let started = try #require(ProcessMark.startTime(of: getpid()))
        let ours = ".out.staging-\(ProcessMark.current)"
        let reused = ".out.staging-\(getpid())-\(started + 1)"
        let oldStyleLive = ".out.staging-\(getpid())"
        let dead = ".out.link-999999999"
        for name in [ours, reused, oldStyleLive, dead] {
            try FileManager.default.createDirectory(at: parent.appendingPathComponent(name), withIntermediateDirectories: false)
        }
        #expect(ProcessMark.isRunning(ProcessMark.current[...]))
        #expect(!ProcessMark.isRunning("\(getpid())-\(started + 1)"))
        #expect(!ProcessMark.isRunning("not-a-mark"))
        OutputGenerations.removeStale(in: parent, name: "out", keeping: [])
        let left = try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted()
        #expect(left == [oldStyleLive, ours].sorted(), "the running writer's folders stay, the others go: \(left)")
    }

    /// A publish that finds the output up to date still removes a killed writer's staging
    /// folder (the update-kill test once found one left after its final, unchanged, update).
    @Test func anUnchangedPublishRemovesADeadWritersStagingFolder() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-unchanged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let text = "||ads.example^\n"
        let source = ContentBlockerOutput.SourceIdentity(name: "a", url: "file", contents: Data(text.utf8))
        func output() throws -> ContentBlockerOutput {
            try ContentBlockerOutput(compiled: compile([text]), sources: [source], allowlist: [], maximumRules: 40)
        }
        var first = try output()
        #expect(try first.write(to: parent.appendingPathComponent("out")))
        let generations = try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".out.") }
        let dead = ".out.staging-999999999-1"
        try FileManager.default.createDirectory(at: parent.appendingPathComponent(dead), withIntermediateDirectories: false)
        var again = try output()
        #expect(try !again.write(to: parent.appendingPathComponent("out")), "the same output: nothing published")
        let left = try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".out.") }
        #expect(left.sorted() == generations.sorted(), "the dead writer's folder went, the generations stayed: \(left)")
    }
}
