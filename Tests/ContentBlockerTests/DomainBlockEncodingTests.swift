import Dispatch
import Foundation
import Testing

@testable import ContentBlocker
@testable import FilterLists

/// The plain domain blocks are written straight from their host names; they must be the bytes
/// the general encoder writes for the same rules.
@Suite("Domain blocks written from host names")
struct DomainBlockEncodingTests {
    static let hosts = [
        "example.com", "a.b.c.d.example.co.uk", "x", "ads-1.tracker_2.example", "0.0.0.1", "xn--bcher-kva.example",
        "very-long-host-name-beyond-fifteen-bytes.example.org",
        // Bytes the template does not spell: written through the general encoder instead.
        "UPPER.example", "star*.example", "quote\".example",
    ]

    @Test func hostsGiveTheBytesOfTheirRules() {
        let fast = EncodedRules(blockingHosts: Self.hosts)
        let general = EncodedRules(Self.hosts.map(CompiledRules.domainBlockingRule(for:)))
        #expect(fast.count == Self.hosts.count)
        #expect(Array(fast.bytes) == Array(general.bytes))
        #expect(fast.ends == general.ends)
        #expect(fast.digest == general.digest)
    }

    @Test func manyHostsAreWrittenOnEveryCoreInOrder() {
        // More hosts than the parallel chunks, so that chunk boundaries are crossed.
        let hosts = (0..<20_000).map { "host-\($0).\($0 % 7 == 0 ? "sub." : "")example\($0 % 13).net" }
        let fast = EncodedRules(blockingHosts: hosts)
        let general = EncodedRules(hosts.map(CompiledRules.domainBlockingRule(for:)))
        #expect(Array(fast.bytes) == Array(general.bytes))
        #expect(fast.ends == general.ends)
        #expect(fast.digest == general.digest)
    }

    @Test func noHostsGiveNoRules() {
        let empty = EncodedRules(blockingHosts: [])
        #expect(empty.count == 0)
        #expect(empty.bytes.isEmpty)
        #expect(empty.digest == EncodedRules().digest)
    }

    @Test func compiledDomainBlocksAreTheRulesOfTheirHosts() throws {
        let compiled = try compile(["||b.example^\n||a.example^\n||sub.a.example^\n||c.example/path"])
        #expect(compiled.blockedHosts == ["a.example", "b.example"])
        #expect(
            compiled.domainBlocking.map(\.trigger.urlFilter) == [
                URLFilterTranslator.domainRulePrefix + "a\\.example[/:]", URLFilterTranslator.domainRulePrefix + "b\\.example[/:]",
            ])
        // The JSON written while converting is that of the hosts; changing them drops it.
        let written = try #require(compiled.encodedBlockedHosts)
        #expect(Array(written.bytes) == Array(EncodedRules(blockingHosts: compiled.blockedHosts).bytes))
        var changed = compiled
        changed.blockedHosts.append("d.example")
        #expect(changed.encodedBlockedHosts == nil)
        #expect(EncodedCompiledRules(changed).parts[.domainBlocking]?.count == 3)
    }

    @Test func compilingStraightToEncodedRulesGivesTheEncodedCompile() throws {
        let lists = [
            "||b.example^\n||a.example^\n||x.a.example^\n||c.example/ad.js$script\n@@||c.example/ok.js\nexample.com##.ad",
            "||a.example^\n||z.example^$third-party\n||d.example^$domain=site.example|~sub.site.example\n##.banner",
        ]
        let parsed = try lists.enumerated().map { try FilterListParser().parse($1, name: "list\($0)") }
        let direct = ContentRuleCompiler().compileEncoded(parsed, allowlist: ["allowed.example"])
        let viaRules = EncodedCompiledRules(ContentRuleCompiler().compile(parsed, allowlist: ["allowed.example"]))
        #expect(direct == viaRules)
        #expect(direct.parts[.domainBlocking]?.count == 2)
        #expect(direct.reports.map(\.rulesOut) == viaRules.reports.map(\.rulesOut))
    }

    @Test func hostKeysCompareAndHashByBytes() {
        let whole = HostKey("tracker.example.com")
        let base = "ads.tracker.example.com"
        let suffix = HostKey(base[base.index(base.startIndex, offsetBy: 4)...])
        #expect(whole == suffix)
        #expect(whole.hashValue == suffix.hashValue)
        #expect(HostKey("example.com") != HostKey("example.co"))
        let blocked: [HostKey: Int] = [whole: 1]
        #expect(blocked[suffix] == 1)
        #expect(suffix.host == "tracker.example.com")
    }
}

@Suite("Background release")
struct BackgroundReleaseTests {
    /// Records the thread it is freed on.
    final class Witness: @unchecked Sendable {
        let freed: DispatchSemaphore
        let freedOnThread: UnsafeMutablePointer<pthread_t?>

        init(freed: DispatchSemaphore, freedOnThread: UnsafeMutablePointer<pthread_t?>) {
            self.freed = freed
            self.freedOnThread = freedOnThread
        }

        deinit {
            freedOnThread.pointee = pthread_self()
            freed.signal()
        }
    }

    @Test func aValueHandedOverIsFreedOnAnotherThread() throws {
        let freed = DispatchSemaphore(value: 0)
        let thread = UnsafeMutablePointer<pthread_t?>.allocate(capacity: 1)
        thread.initialize(to: nil)
        defer { thread.deallocate() }
        var values = [Witness(freed: freed, freedOnThread: thread)]
        values.reserveCapacity(1)
        BackgroundRelease.release(consume values)
        #expect(freed.wait(timeout: .now() + 10) == .success)
        let freedOn = try #require(thread.pointee, "the value was freed on some thread")
        #expect(pthread_equal(freedOn, pthread_self()) == 0)
    }
}
