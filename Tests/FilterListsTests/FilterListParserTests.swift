import Foundation
import PepperTestSupport
import Testing

@testable import FilterLists

@Suite("Filter list parser")
struct FilterListParserTests {
    let parser = FilterListParser()

    func parse(_ text: String, format: FilterListFormat? = nil) throws -> ParsedFilterList {
        try parser.parse(text, name: "test", format: format)
    }

    @Test func domainAnchoredRuleKeepsLineNumberAndBlockedDomain() throws {
        let list = try parse("! comment\n\n||ads.example.com^\n")
        let rule = try #require(list.networkRules.first)
        #expect(rule.line == 3)
        #expect(rule.anchor == .host)
        #expect(rule.pattern == "ads.example.com^")
        #expect(rule.blockedDomain == "ads.example.com")
        #expect(list.commentCount == 2)
    }

    @Test func optionsAreParsed() throws {
        let list = try parse("@@||cdn.example.com/lib.js$script,~third-party,domain=a.com|~b.a.com,match-case,important")
        let rule = try #require(list.networkRules.first)
        #expect(rule.isException)
        #expect(rule.resourceTypes == .script)
        #expect(rule.hasExplicitTypes)
        #expect(rule.party == .first)
        #expect(rule.domains == DomainConstraint(included: ["a.com"], excluded: ["b.a.com"]))
        #expect(rule.matchCase)
        #expect(rule.isImportant)
        #expect(rule.pattern == "cdn.example.com/lib.js")
        #expect(rule.blockedDomain == nil)
    }

    @Test func negatedTypesSubtractFromDefaults() throws {
        let rule = try #require(try parse("/banner/*$~image,~script").networkRules.first)
        #expect(!rule.resourceTypes.contains(.image))
        #expect(!rule.resourceTypes.contains(.script))
        #expect(rule.resourceTypes.contains(.stylesheet))
        #expect(!rule.resourceTypes.contains(.document))
    }

    @Test func aliasesAndPartyShorthands() throws {
        let list = try parse("||a.com^$xhr,3p\n||b.com^$frame,1p\n||c.com^$css,doc")
        #expect(list.networkRules[0].resourceTypes == .xmlHTTPRequest)
        #expect(list.networkRules[0].party == .third)
        #expect(list.networkRules[1].resourceTypes == .subdocument)
        #expect(list.networkRules[1].party == .first)
        #expect(list.networkRules[2].resourceTypes == [.stylesheet, .document])
    }

    @Test(arguments: [
        ("example.com##+js(set-constant, x, 1)", "scriptlet"),
        ("example.com#%#//scriptlet('abort')", "scriptlet"),
        ("example.com#?#div:-abp-has(.ad)", "procedural-cosmetic"),
        ("example.com##div:has-text(Sponsored)", "procedural-cosmetic"),
        ("example.com##.x:style(color: red)", "procedural-cosmetic"),
        ("example.com#$#body { overflow: auto }", "css-injection"),
        ("example.com##^script:has-text(ads)", "html-filter"),
        ("example.com$$script[tag-content=\"ad\"]", "html-filter"),
        ("[$path=/page]example.com##.ad", "cosmetic-modifier"),
        ("||example.com^$csp=script-src 'none'", "unsupported-option:csp"),
        ("||example.com^$redirect=noop.js", "unsupported-option:redirect"),
        ("||example.com^$removeparam=utm", "unsupported-option:removeparam"),
        ("/ad[/", "invalid-regex"),
        ("example.com##div[", "invalid-css-selector"),
        ("example.com###123", "invalid-css-selector"),
        ("||example.com^$elemhide", "exception-only-option:elemhide"),
        ("||example.com^$domain=", "invalid-option-value"),
        ("||example.com^$domain=a..com", "invalid-domain"),
        ("||example.com^$domain=google.*", "unsupported-domain-syntax"),
        ("*", "matches-everything"),
        ("\"trackers\": {", "invalid-pattern"),
        ("],", "invalid-pattern"),
    ])
    func unsupportedLinesAreSkippedWithTheirReason(line: String, reason: String) throws {
        let list = try parse("||good.example^\n" + line)
        #expect(list.ruleCount == 1, "only the good rule survives")
        #expect(list.skipped == [SkipReason(reason): 1])
        #expect(list.skippedExamples.first?.line == 2)
    }

    @Test func wildcardEntityDomainsAreDroppedFromIncludesOnly() throws {
        let list = try parse("a.com,b.*##.ad\n~b.*##.ad2\n||x^$domain=a.com|b.*")
        #expect(list.cosmeticRules.count == 1)
        #expect(list.cosmeticRules[0].domains.included == ["a.com"])
        #expect(list.networkRules.count == 1)
        #expect(list.networkRules[0].domains.included == ["a.com"])
        #expect(list.skipped == [.unsupportedDomainSyntax: 1])
    }

    @Test func cosmeticRulesAndExceptions() throws {
        let list = try parse("##.ad\nexample.com,~shop.example.com##div.banner > a\nexample.com#@#.ad\n###sidebar-ad")
        #expect(list.cosmeticRules.count == 4)
        #expect(list.cosmeticRules[0].isGeneric)
        #expect(list.cosmeticRules[1].domains == DomainConstraint(included: ["example.com"], excluded: ["shop.example.com"]))
        #expect(list.cosmeticRules[1].selector == "div.banner > a")
        #expect(list.cosmeticRules[2].isException)
        #expect(list.cosmeticRules[3].selector == "#sidebar-ad")
    }

    @Test func regexRulesAndDollarInsideRegex() throws {
        let list = try parse("/ad[0-9]+\\.js$/\n/banner$/$script")
        #expect(list.networkRules.count == 2)
        #expect(list.networkRules[0].isRegex)
        #expect(list.networkRules[0].pattern == "ad[0-9]+\\.js$")
        #expect(list.networkRules[0].hasExplicitTypes == false)
        #expect(list.networkRules[1].pattern == "banner$")
        #expect(list.networkRules[1].resourceTypes == .script)
    }

    @Test func anchorsWildcardsAndCase() throws {
        let list = try parse("|https://Ads.Example/*\n*/track/**pixel*|\n/Path$match-case")
        #expect(list.networkRules[0].anchor == .start)
        #expect(list.networkRules[0].pattern == "https://ads.example/")
        #expect(list.networkRules[1].pattern == "/track/*pixel*")
        #expect(list.networkRules[1].isEndAnchored)
        #expect(list.networkRules[2].pattern == "/Path")
    }

    @Test func internationalDomainsBecomePunycode() throws {
        let list = try parse("||bücher.example^\nmünchen.example##.ad\n||x.com^$domain=bücher.example")
        #expect(list.networkRules[0].pattern == "xn--bcher-kva.example^")
        #expect(list.cosmeticRules[0].domains.included == ["xn--mnchen-3ya.example"])
        #expect(list.networkRules[1].domains.included == ["xn--bcher-kva.example"])
    }

    @Test func nonASCIIPathIsPercentEncoded() throws {
        let rule = try #require(try parse("/werbung/ä.gif").networkRules.first)
        #expect(rule.pattern == "/werbung/%c3%a4.gif")
    }

    @Test func badfilterKeyIgnoresOptionOrder() throws {
        let list = try parse("||a.com^$script,third-party\n||a.com^$third-party,script,badfilter")
        #expect(list.networkRules[1].isBadfilter)
        #expect(list.networkRules[0].badfilterKey == list.networkRules[1].badfilterKey)
    }

    @Test func headerFieldsAreRead() throws {
        let list = try parse(
            "[Adblock Plus 2.0]\n! Title: Test List\n! Expires: 4 days (update frequency)\n! Diff-Path: ../patches/a.patch\n||a.com^")
        #expect(list.metadata.title == "Test List")
        #expect(list.metadata.expires == 4 * 86_400)
        #expect(list.metadata.diffPath == "../patches/a.patch")
        #expect(list.format == .abp)
    }

    @Test func hostsFilesAreDetectedAndRead() throws {
        let list = try parse(
            "# hosts\n127.0.0.1 localhost\n0.0.0.0 ads.example.com tracker.example.net # comment\n::1 ip6-localhost\n0.0.0.0 bad_host!\n")
        #expect(list.format == .hosts)
        #expect(list.networkRules.map(\.blockedDomain) == ["ads.example.com", "tracker.example.net"])
        #expect(list.skipped == [.invalidDomain: 1])
    }

    @Test func domainListsAreDetectedAndRead() throws {
        let list = try parse("# domains\nads.example.com\n*.tracker.example\nnot a domain\n")
        #expect(list.format == .domains)
        #expect(list.networkRules.map(\.blockedDomain) == ["ads.example.com", "tracker.example"])
        #expect(list.skipped == [.invalidHostsLine: 1])
    }

    @Test func abpListOfBareDomainsIsStillABP() throws {
        let list = try parse("! Title: Malware\n! Expires: 1 day\n1.2.3.4\nbad.example\n")
        #expect(list.format == .abp)
        #expect(list.networkRules.count == 2)
    }

    @Test func binaryAndJSONContentAreRejected() throws {
        #expect(throws: FilterListError.binaryContent(name: "bin")) {
            try parser.parse(Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0x00, 0x12]), name: "bin")
        }
        #expect(throws: FilterListError.unsupportedFormat(name: "j", detected: "JSON")) {
            try parser.parse("  {\"trackers\": {}}", name: "j")
        }
    }

    @Test func emptyTruncatedAndHugeLinesNeverCrash() throws {
        #expect(try parse("").ruleCount == 0)
        #expect(try parse("||trunc").networkRules.first?.pattern == "trunc")
        let huge = String(repeating: "a", count: 10_000_000)
        let list = try parse("||ok.example^\n" + huge)
        #expect(list.ruleCount == 1)
        #expect(list.skipped == [.lineTooLong: 1])
    }

    @Test func invalidUTF8LinesAreSkipped() throws {
        var data = Data("||a.com^\n".utf8)
        data.append(contentsOf: [0xC3, 0x28, 0x0A])
        data.append(contentsOf: Array("||b.com^\r\n".utf8))
        let list = try parser.parse(data, name: "x")
        #expect(list.networkRules.map(\.pattern) == ["a.com^", "b.com^"])
        #expect(list.skipped == [.invalidUTF8: 1])
    }

    @Test func randomBytesNeverCrashTheParser() throws {
        var generator = SplitMix64(seed: 42)
        let alphabet = Array("|^$*~,=@#!/.:[]()\\ab01-_ %{}\"'\n\t\u{e4}".utf8)
        for _ in 0..<300 {
            let length = Int(generator.next() % 400)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let list = try parser.parse(Data(bytes), name: "fuzz", format: .abp)
            #expect(list.ruleCount + list.skippedCount + list.commentCount == list.lineCount)
        }
    }

    /// A reason's words come with it from the parser; a reason read back from a manifest has its
    /// name only, and is still the same reason (counts keyed by it add up).
    @Test func skipReasonsCarryTheirWordsAndCompareByName() throws {
        let list = try FilterListParser().parse("example.com##+js(nowebrtc)\n||ads.example^$csp=none\n", name: "t", format: .abp)
        let reasons = list.skippedExamples.map(\.reason)
        #expect(
            reasons.map(\.explanation) == [
                "scriptlets are not supported (scriptlet)", "the option $csp is not supported (unsupported-option:csp)",
            ])
        let decoded = try JSONDecoder().decode([SkipReason].self, from: JSONEncoder().encode(reasons))
        #expect(decoded == reasons)
        #expect(decoded.map(\.explanation) == ["scriptlet", "unsupported-option:csp"])
        #expect(Set(decoded + reasons).count == 2)
    }
}
