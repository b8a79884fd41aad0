import FilterEngine
import FilterLists
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
