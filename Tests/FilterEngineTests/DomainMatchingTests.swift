import FilterEngine
import FilterLists
import Foundation
import Testing

@Suite("Domain matching (DNS level)")
struct DomainMatchingTests {
    @Test func hostnameRulesBlockTheDomainAndItsSubdomains() throws {
        let engine = try engine("||tracker.test^\n")
        let verdict = engine.match(domain: "tracker.test")
        #expect(verdict.decision == .blocked)
        #expect(verdict.rule == MatchedRule(text: "||tracker.test^", list: "test.txt", line: 1))
        #expect(engine.domainDecision("a.b.tracker.test") == .blocked)
        #expect(engine.domainDecision("A.Tracker.TEST.") == .blocked, "case and the trailing dot of a DNS name")
        #expect(engine.domainDecision("nottracker.test") == .noMatch)
        #expect(engine.domainDecision("tracker.test.example") == .noMatch)
        #expect(engine.domainDecision("test") == .noMatch, "a parent is not blocked by its child")
    }

    @Test func onlyRulesThatApplyWhateverTheRequestCountAtTheDNSLevel() throws {
        let engine = try engine(
            """
            ||scripts.test^$script
            ||limited.test^$domain=site.test
            ||thirdparty.test^$third-party
            ||firstparty.test^$~third-party
            ||path.test/ads/
            ||plain.test^
            """)
        #expect(engine.domainDecision("scripts.test") == .noMatch, "a type option: other requests to it are fine")
        #expect(engine.domainDecision("limited.test") == .noMatch, "limited to some sites")
        #expect(engine.domainDecision("thirdparty.test") == .blocked, "third-party trackers are blocked (a DNS server cannot tell)")
        #expect(engine.domainDecision("firstparty.test") == .noMatch)
        #expect(engine.domainDecision("path.test") == .noMatch, "a path rule blocks some URLs only")
        #expect(engine.domainDecision("plain.test") == .blocked)
    }

    @Test func typedRulesApplyAtTheDNSLevelWhenTheyTargetThirdPartyLoadsOrPages() throws {
        let engine = try engine(
            """
            ||analytics.test^$script,third-party,xmlhttprequest
            ||pixel.test^$image,third-party
            ||notscript.test^$~script,third-party
            ||popup.test^$popup,third-party
            ||popuponly.test^$popup
            ||badware.test^$document
            ||everything.test^$all
            ||pages.test^$document,popup
            ||mail-links.test^$image
            ||own.test^$script,~third-party
            ||sites.test^$script,third-party,domain=news.test
            ||elsewhere.test^$script,third-party,domain=~own.test
            """)
        #expect(engine.match(domain: "www.analytics.test").rule?.text == "||analytics.test^$script,third-party,xmlhttprequest")
        #expect(engine.domainDecision("pixel.test") == .blocked, "third-party images: an embedded tracker")
        #expect(engine.domainDecision("notscript.test") == .blocked, "every third-party type but scripts")
        #expect(engine.domainDecision("popup.test") == .noMatch, "pop-ups only: visiting the site is fine")
        #expect(engine.domainDecision("popuponly.test") == .noMatch)
        #expect(engine.domainDecision("a.badware.test") == .blocked, "its pages are blocked: nothing on it is wanted")
        #expect(engine.domainDecision("everything.test") == .blocked)
        #expect(engine.domainDecision("pages.test") == .blocked)
        #expect(engine.domainDecision("mail-links.test") == .noMatch, "images for any party: its links must still open")
        #expect(engine.domainDecision("own.test") == .noMatch, "first-party only")
        #expect(engine.domainDecision("sites.test") == .noMatch, "limited to some sites")
        #expect(engine.domainDecision("elsewhere.test") == .blocked, "excluding sites still blocks everywhere else")
        #expect(engine.dnsBlockedDomainCount == 7)
    }

    @Test func typedExceptionsDoNotUnblockADomain() throws {
        let engine = try engine(
            """
            ||analytics.test^$script,third-party
            @@||analytics.test^$script,domain=partner.test
            @@||img.analytics.test^$image
            @@||ok.analytics.test^
            """)
        #expect(engine.domainDecision("analytics.test") == .blocked, "an exception limited to some sites")
        #expect(engine.domainDecision("img.analytics.test") == .blocked, "an exception for images only")
        #expect(engine.match(domain: "ok.analytics.test").decision == .allowed, "an exception for any request")
    }

    @Test func hostsFilesAndDomainListsBlockDomains() throws {
        let parser = FilterListParser()
        let hosts = try parser.parse("127.0.0.1 localhost\n0.0.0.0 ads.hosts.test\n0.0.0.0 track.hosts.test # comment\n", name: "hosts")
        let domains = try parser.parse("# a domain list\nplain-domain.test\n", name: "domains")
        let engine = FilterEngine(lists: [hosts, domains])
        #expect(engine.match(domain: "ads.hosts.test").rule?.list == "hosts")
        #expect(engine.match(domain: "ads.hosts.test").rule?.line == 2)
        #expect(engine.domainDecision("x.track.hosts.test") == .blocked)
        #expect(engine.domainDecision("localhost") == .noMatch, "hosts-file boilerplate is not a block")
        #expect(engine.domainDecision("www.plain-domain.test") == .blocked)
    }

    @Test func exceptionsAndTheAllowlistOverride() throws {
        let engine = try engine(
            """
            ||tracker.test^
            @@||cdn.tracker.test^
            @@||img.tracker.test^$image
            """, allowlist: ["safe.tracker.test"])
        let allowed = engine.match(domain: "a.cdn.tracker.test")
        #expect(allowed.decision == .allowed)
        #expect(allowed.rule?.text == "@@||cdn.tracker.test^")
        #expect(allowed.overridden?.text == "||tracker.test^")
        #expect(engine.domainDecision("img.tracker.test") == .blocked, "an image-only exception allows only images")
        let allowlisted = engine.match(domain: "www.safe.tracker.test")
        #expect(allowlisted.decision == .noMatch)
        #expect(allowlisted.rule == MatchedRule(text: "allowlist: safe.tracker.test", list: "allowlist", line: 0))
        #expect(engine.domainDecision("tracker.test") == .blocked)
    }

    @Test func lowercasedBytesGiveTheSameDecisionsAsStrings() throws {
        let engine = try engine("||tracker.test^\n@@||ok.tracker.test^\n", allowlist: ["friendly.test"])
        for name in ["tracker.test", "x.tracker.test", "ok.tracker.test", "a.ok.tracker.test", "friendly.test", "other.test", "", "."] {
            let bytes = Array(name.utf8)
            let fromBytes = bytes.withUnsafeBufferPointer { engine.domainDecision(lowercasedName: $0) }
            #expect(fromBytes == engine.domainDecision(name), "\(name)")
        }
        let tooLong = Array(String(repeating: "a.", count: 130).utf8) + Array("tracker.test".utf8)
        #expect(tooLong.withUnsafeBufferPointer { engine.domainDecision(lowercasedName: $0) } == .noMatch, "over 253 bytes is no DNS name")
    }
}

/// Option-less blocks of whole hosts are kept by hash alone (the engine's compact table): they
/// must judge and explain exactly as the other rules do.
@Suite("Bare host blocks")
struct BareHostBlockTests {
    static func lists() throws -> [ParsedFilterList] {
        let parser = FilterListParser()
        return [
            try parser.parse("# names\nads.test\ntwice.test\n", name: "names.txt"),
            try parser.parse(
                "! rules\n||track.test^\n||mixed.test^$third-party\n||mixed.test^\n||twice.test^\n@@||ok.track.test^\n", name: "rules.txt"),
        ]
    }

    @Test func theyBlockAndAreExplainedByTheHostTheyMatched() throws {
        let engine = FilterEngine(lists: try Self.lists())
        let name = engine.match(domain: "Deep.X.Ads.Test.")
        #expect(name.decision == .blocked)
        #expect(name.rule == MatchedRule(text: "ads.test", list: "names.txt", line: 2), "a domain list's line, as written")
        #expect(engine.match(domain: "a.track.test").rule == MatchedRule(text: "||track.test^", list: "rules.txt", line: 2))
        #expect(engine.match(domain: "twice.test").rule == MatchedRule(text: "twice.test", list: "names.txt", line: 3), "the first wins")
        let allowed = engine.match(domain: "www.ok.track.test")
        #expect(allowed.decision == .allowed)
        #expect(allowed.overridden == MatchedRule(text: "||track.test^", list: "rules.txt", line: 2))
        #expect(engine.match(domain: "track.test.evil").decision == .noMatch)
        #expect(engine.match(domain: "notads.test").decision == .noMatch)

        let script = try engine.verdict("https://cdn.track.test/t.js", on: "https://site.test/")
        #expect(script.decision == .blocked)
        #expect(script.rule == MatchedRule(text: "||track.test^", list: "rules.txt", line: 2))
        #expect(try engine.decision("https://track.test/", on: nil, .document) == .blocked, "option-less host rules block pages too")
        #expect(try engine.decision("https://track.test/", on: "https://site.test/", .popup) == .noMatch, "but not pop-ups")
        #expect(try engine.decision("https://ok.track.test/x.js") == .allowed)
        #expect(try engine.decision("https://mixed.test/x.js", on: "https://mixed.test/") == .blocked, "first party: the bare rule")

        // ads, twice, track, mixed: each counted once.
        #expect(engine.dnsBlockedDomainCount == 4)
    }

    @Test func theyAreSavedAndLoaded() throws {
        let built = FilterEngine(lists: try Self.lists(), allowlist: ["friend.ads.test"])
        let file = EngineFileTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try built.write(to: file)
        let loaded = try FilterEngine(contentsOf: file)
        for name in ["ads.test", "x.twice.test", "a.track.test", "www.ok.track.test", "friend.ads.test", "mixed.test", "none.test"] {
            #expect(loaded.match(domain: name) == built.match(domain: name), "\(name)")
        }
        #expect(loaded.ruleCount == built.ruleCount)
        #expect(loaded.memoryFootprint == built.memoryFootprint)
    }
}
