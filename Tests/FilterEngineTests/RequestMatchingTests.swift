import FilterEngine
import FilterLists
import Testing

/// Builds an engine from rule lines (list `test.txt`, line numbers as written).
func engine(_ rules: String, allowlist: [String] = []) throws -> FilterEngine {
    FilterEngine(lists: [try FilterListParser().parse(rules, name: "test.txt")], allowlist: allowlist)
}

extension FilterEngine {
    /// The verdict for a request, in test shorthand.
    func verdict(_ url: String, on page: String? = "https://site.test/", _ type: ResourceTypes = .script) throws -> Verdict {
        try match(FilterRequest(url: url, sourceURL: page, type: type))
    }

    func decision(_ url: String, on page: String? = "https://site.test/", _ type: ResourceTypes = .script) throws -> Verdict.Decision {
        try verdict(url, on: page, type).decision
    }
}

@Suite("Request matching")
struct RequestMatchingTests {
    @Test func hostnameRulesBlockTheHostAndItsSubdomainsOnly() throws {
        let engine = try engine("! comment\n||ads.test^\n")
        let verdict = try engine.verdict("https://ads.test/banner.js")
        #expect(verdict.decision == .blocked)
        #expect(verdict.rule == MatchedRule(text: "||ads.test^", list: "test.txt", line: 2))
        #expect(try engine.decision("https://cdn.ads.test/x.js") == .blocked)
        #expect(try engine.decision("https://ADS.TEST/x.js") == .blocked, "hosts compare case-insensitively")
        #expect(try engine.decision("https://notads.test/x.js") == .noMatch)
        #expect(try engine.decision("https://ads.test.example/x.js") == .noMatch)
        #expect(try engine.decision("https://site.test/?u=ads.test") == .noMatch, "the host, not the query")
    }

    @Test func patternsAnchorsAndSeparators() throws {
        let engine = try engine(
            """
            /banner/*/ad.
            |https://start.test/only
            .swf|
            ||cdn.test/ads/*.js^
            &ad_type=
            """)
        #expect(try engine.decision("https://x.test/banner/300/ad.png") == .blocked)
        #expect(try engine.decision("https://x.test/banner/ad.png") == .noMatch, "`*` sits between two slashes")
        #expect(try engine.decision("https://start.test/only/x") == .blocked)
        #expect(try engine.decision("http://start.test/only/x") == .noMatch, "`|` anchors at the start")
        #expect(try engine.decision("https://x.test/movie.swf") == .blocked)
        #expect(try engine.decision("https://x.test/movie.swf?x=1") == .noMatch, "`|` anchors at the end")
        #expect(try engine.decision("https://cdn.test/ads/a/b.js?v=1") == .blocked, "`^` matches `?`")
        #expect(try engine.decision("https://cdn.test/ads/a/b.json") == .noMatch, "`^` does not match a letter")
        #expect(try engine.decision("https://x.test/p?a=1&ad_type=2") == .blocked)
    }

    @Test func matchCaseAndRegularExpressions() throws {
        let engine = try engine(
            """
            /AdBanner.$match-case
            /\\/ad[0-9]{3}\\.gif$/
            """)
        #expect(try engine.decision("https://x.test/AdBanner.png") == .blocked)
        #expect(try engine.decision("https://x.test/adbanner.png") == .noMatch)
        #expect(try engine.decision("https://x.test/img/ad123.gif") == .blocked)
        #expect(try engine.decision("https://x.test/img/ad12.gif") == .noMatch)
        #expect(try engine.verdict("https://x.test/img/AD123.gif").rule?.line == 2, "regex rules ignore case by default")
    }

    @Test func typeOptions() throws {
        let engine = try engine(
            """
            ||img.test^$image
            ||noimg.test^$~image
            ||frames.test^$subdocument,xmlhttprequest
            """)
        #expect(try engine.decision("https://img.test/a", .image) == .blocked)
        #expect(try engine.decision("https://img.test/a", .script) == .noMatch)
        #expect(try engine.decision("https://noimg.test/a", .image) == .noMatch)
        #expect(try engine.decision("https://noimg.test/a", .stylesheet) == .blocked)
        #expect(try engine.decision("https://frames.test/a", .subdocument) == .blocked)
        #expect(try engine.decision("https://frames.test/a", .xmlHTTPRequest) == .blocked)
        #expect(try engine.decision("https://frames.test/a", .script) == .noMatch)
    }

    @Test func hostnameRulesWithoutTypesAlsoBlockTheDocument() throws {
        let engine = try engine("||tracker.test^\n/ads.js\n")
        #expect(try engine.decision("https://tracker.test/", on: nil, .document) == .blocked)
        #expect(try engine.decision("https://x.test/ads.js", on: nil, .document) == .noMatch, "other rules: subresources only")
        #expect(try engine.decision("https://x.test/ads.js", .script) == .blocked)
    }

    @Test func partyIsDecidedByRegistrableDomain() throws {
        let engine = try engine(
            """
            ||third.co.uk^$third-party
            ||first.test^$~third-party
            """)
        #expect(try engine.decision("https://cdn.third.co.uk/t.js", on: "https://news.test/") == .blocked)
        #expect(try engine.decision("https://cdn.third.co.uk/t.js", on: "https://www.third.co.uk/") == .noMatch, "same site")
        // co.uk is a public suffix: other.co.uk is another site.
        #expect(try engine.decision("https://cdn.third.co.uk/t.js", on: "https://other.co.uk/") == .blocked)
        #expect(try engine.decision("https://first.test/a.js", on: "https://www.first.test/") == .blocked)
        #expect(try engine.decision("https://first.test/a.js", on: "https://news.test/") == .noMatch)
        // Without a page, both party options apply (as WebKit does for a top-level load).
        #expect(try engine.decision("https://cdn.third.co.uk/t.js", on: nil) == .blocked)
        #expect(try engine.decision("https://first.test/a.js", on: nil) == .blocked)
    }

    @Test func domainOptionLimitsAndExcludesSites() throws {
        let engine = try engine(
            """
            /popunder.js$domain=site.test|other.test
            ||media.test^$domain=site.test|~quiet.site.test
            /beacon.gif$domain=~site.test
            """)
        #expect(try engine.decision("https://x.test/popunder.js", on: "https://www.site.test/") == .blocked, "subdomains of a listed site")
        #expect(try engine.decision("https://x.test/popunder.js", on: "https://other.test/") == .blocked)
        #expect(try engine.decision("https://x.test/popunder.js", on: "https://news.test/") == .noMatch)
        #expect(try engine.decision("https://x.test/popunder.js", on: nil) == .noMatch, "limited to sites: needs a known page")
        #expect(try engine.decision("https://media.test/m.gif", on: "https://site.test/") == .blocked)
        #expect(
            try engine.decision("https://media.test/m.gif", on: "https://a.quiet.site.test/") == .noMatch, "the most specific entry decides"
        )
        #expect(try engine.decision("https://x.test/beacon.gif", on: "https://news.test/") == .blocked)
        #expect(try engine.decision("https://x.test/beacon.gif", on: "https://site.test/") == .noMatch)
        #expect(try engine.decision("https://x.test/beacon.gif", on: nil) == .blocked, "only excludes sites: applies without a page")
    }

    @Test func exceptionsOverrideAndNameBothRules() throws {
        let engine = try engine(
            """
            ||cdn.test/ads/
            @@||cdn.test/ads/allowed.js
            @@/ads/*$image,domain=friendly.test
            """)
        let verdict = try engine.verdict("https://cdn.test/ads/allowed.js")
        #expect(verdict.decision == .allowed)
        #expect(verdict.rule == MatchedRule(text: "@@||cdn.test/ads/allowed.js", list: "test.txt", line: 2))
        #expect(verdict.overridden == MatchedRule(text: "||cdn.test/ads/", list: "test.txt", line: 1))
        #expect(try engine.decision("https://cdn.test/ads/other.js") == .blocked)
        #expect(try engine.decision("https://cdn.test/ads/p.png", on: "https://friendly.test/", .image) == .allowed)
        #expect(try engine.decision("https://cdn.test/ads/p.png", on: "https://friendly.test/", .script) == .blocked, "exception types")
        #expect(try engine.decision("https://cdn.test/ads/p.png", on: "https://news.test/", .image) == .blocked, "exception sites")
        #expect(try engine.decision("https://cdn.test/other/p.png") == .noMatch, "an exception alone allows nothing: no block matched")
    }

    @Test func importantBeatsExceptionsButNotImportantExceptions() throws {
        let engine = try engine(
            """
            ||tracker.test^$important
            @@||tracker.test/ok.js
            ||strict.test^$important
            @@||strict.test/ok.js$important
            """)
        let verdict = try engine.verdict("https://tracker.test/ok.js")
        #expect(verdict.decision == .blocked)
        #expect(verdict.rule?.text == "||tracker.test^$important")
        #expect(try engine.decision("https://strict.test/ok.js") == .allowed)
        #expect(try engine.decision("https://strict.test/other.js") == .blocked)
    }

    @Test func badfilterCancelsTheRuleItNames() throws {
        let engine = try engine(
            """
            ||ads.test^$third-party
            ||ads.test^$third-party,badfilter
            ||other.test^$script
            ||other.test^$image,badfilter
            """)
        #expect(try engine.decision("https://ads.test/a.js", on: "https://news.test/") == .noMatch)
        #expect(try engine.decision("https://other.test/a.js") == .blocked, "a badfilter with other options cancels nothing")
    }

    @Test func documentExceptionsAndTheAllowlistAllowWholePages() throws {
        let engine = try engine(
            """
            ||ads.test^
            ||strict.test^$important
            @@||trusted.test^$document
            """, allowlist: ["friendly.test"])
        let trusted = try engine.verdict("https://ads.test/a.js", on: "https://www.trusted.test/page")
        #expect(trusted.decision == .allowed)
        #expect(trusted.rule?.text == "@@||trusted.test^$document")
        let friendly = try engine.verdict("https://ads.test/a.js", on: "https://shop.friendly.test/")
        #expect(friendly.decision == .allowed)
        #expect(friendly.rule == MatchedRule(text: "allowlist: friendly.test", list: "allowlist", line: 0))
        #expect(friendly.overridden?.text == "||ads.test^")
        #expect(try engine.decision("https://strict.test/a.js", on: "https://friendly.test/") == .allowed, "the allowlist beats important")
        #expect(try engine.decision("https://ads.test/a.js", on: "https://unfriendly.test/") == .blocked)
        #expect(try engine.decision("https://ads.test/a.js", on: nil) == .blocked, "no page: no page-level exception")
    }

    @Test func rulesFromSeveralListsReportTheirOwnListAndLine() throws {
        let parser = FilterListParser()
        let engine = FilterEngine(lists: [
            try parser.parse("||one.test^\n", name: "first.txt"),
            try parser.parse("! header\n! more\n||two.test^\n", name: "second.txt"),
        ])
        #expect(try engine.verdict("https://one.test/").rule == MatchedRule(text: "||one.test^", list: "first.txt", line: 1))
        #expect(try engine.verdict("https://two.test/").rule == MatchedRule(text: "||two.test^", list: "second.txt", line: 3))
        #expect(engine.ruleCount == 2)
    }

    @Test func malformedURLsGetAClearErrorAndNothingCrashes() throws {
        let engine = try engine("||ads.test^\n/ad.\n")
        for bad in ["", "ads.test/ad.js", "://", "http://", "https:///path", "not a url at all"] {
            #expect(throws: FilterRequestError.self, "\(bad)") { try engine.match(FilterRequest(url: bad, type: .script)) }
        }
        do {
            _ = try engine.match(FilterRequest(url: "ads.test/x"))
        } catch {
            #expect(error.description.contains("not an absolute URL"))
        }
        // Odd but absolute URLs are judged, not rejected.
        #expect(try engine.decision("https://ads.test:8443/x") == .blocked)
        #expect(try engine.decision("https://user:pw@ads.test/x") == .blocked)
        #expect(try engine.decision("https://ädś.test/ad.x") == .blocked)
        let huge = "https://x.test/" + String(repeating: "a-b_c/", count: 20_000) + "ad.js"
        #expect(try engine.decision(huge) == .blocked)
        #expect(try engine.decision("https://x.test/ok", on: "garbage page") == .noMatch)
    }

    @Test func aHostWithManyLabelsCannotSlipPastItsSiteRule() throws {
        let engine = try engine("||tracker.test^\n")
        let deep = (0..<150).map { "l\($0)" }.joined(separator: ".") + ".tracker.test"
        #expect(try engine.decision("https://\(deep)/t.js") == .blocked)
        #expect(engine.domainDecision(String(deep.suffix(240))) == .blocked)
    }

    @Test func aURLWithManyTokensIsStillMatchedOnItsEarlyTokens() throws {
        let engine = try engine("/tracking/pixel^\n")
        let query = (0..<2_000).map { "k\($0)=v\($0)" }.joined(separator: "&")
        #expect(try engine.decision("https://x.test/tracking/pixel?" + query) == .blocked)
    }
}
