import Foundation
import Testing

@testable import ContentBlocker
@testable import FilterLists

/// Checks translated url-filters by running them as regular expressions (WebKit's subset is a
/// subset of ICU's syntax with the same meaning), case-insensitively like WebKit.
func filterMatches(_ filter: String, _ url: String, caseSensitive: Bool = false) -> Bool {
    let regex = try! NSRegularExpression(pattern: filter, options: caseSensitive ? [] : [.caseInsensitive])
    return regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
}

func filterMatches(_ filter: URLFilter, _ url: String) -> Bool {
    filterMatches(filter.pattern, url, caseSensitive: filter.isCaseSensitive)
}

func translate(_ line: String, style: URLFilterTranslator.Style = .general) throws -> [URLFilter] {
    let rule = try #require(try FilterListParser().parse(line, name: "t").networkRules.first)
    return try URLFilterTranslator.urlFilters(for: rule, style: style).get()
}

@Suite("URL filter translation")
struct URLFilterTranslatorTests {
    @Test(arguments: [URLFilterTranslator.Style.domainRule, .general])
    func domainAnchorMatchesHostAndSubdomainsOnly(style: URLFilterTranslator.Style) throws {
        let filter = try #require(try translate("||ads.example.com^", style: style).first)
        #expect(filter.isCaseSensitive, "hosts are lower case in WebKit's URLs")
        #expect(filterMatches(filter, "https://ads.example.com/x.js"))
        #expect(filterMatches(filter, "http://cdn.ads.example.com/"))
        #expect(filterMatches(filter, "wss://ads.example.com:8443/socket"))
        #expect(!filterMatches(filter, "https://badads.example.com/"))
        #expect(!filterMatches(filter, "https://ads.example.com.evil.org/"))
        #expect(!filterMatches(filter, "https://example.org/?u=https://ads.example.com/"))
    }

    @Test func domainRulesAndOtherRulesUseDifferentPrefixes() throws {
        let domain = try #require(try translate("||a.com^", style: .domainRule).first)
        let other = try #require(try translate("||a.com/x").first)
        #expect(domain.pattern.hasPrefix(URLFilterTranslator.domainRulePrefix))
        #expect(other.pattern.hasPrefix(URLFilterTranslator.hostAnchorPrefix))
        #expect(URLFilterTranslator.domainRulePrefix != URLFilterTranslator.hostAnchorPrefix)
    }

    @Test func anchoredPathLettersArePairedAndStillCaseInsensitive() throws {
        let filter = try #require(try translate("||cdn.example/Ads/Banner.js").first)
        #expect(filter.pattern.hasSuffix("/[aA][dD][sS]/[bB][aA][nN][nN][eE][rR]\\.[jJ][sS]"))
        #expect(filter.isCaseSensitive)
        #expect(filterMatches(filter, "https://cdn.example/ADS/banner.JS"))
        let exact = try #require(try translate("||cdn.example/Ads/$match-case").first)
        #expect(filterMatches(exact, "https://cdn.example/Ads/1"))
        #expect(!filterMatches(exact, "https://cdn.example/ads/1"))
    }

    @Test func separatorAndWildcards() throws {
        let filter = try #require(try translate("/banner/*/img^").first)
        #expect(filterMatches(filter, "http://x.com/banner/123/img?x=1"))
        #expect(filterMatches(filter, "http://x.com/banner/a/b/img/"))
        #expect(!filterMatches(filter, "http://x.com/banner/123/imgs"))
        #expect(!filterMatches(filter, "http://x.com/banner/123/img.png"))
    }

    @Test func startAndEndAnchors() throws {
        let filter = try #require(try translate("|https://track.*/pixel.gif|").first)
        #expect(filter.pattern.hasPrefix("^"))
        #expect(filter.pattern.hasSuffix("$"))
        #expect(filterMatches(filter, "https://track.example/pixel.gif"))
        #expect(!filterMatches(filter, "https://track.example/pixel.gif?x"))
        #expect(!filterMatches(filter, "http://x/https://track.example/pixel.gif"))
    }

    @Test func specialCharactersAreEscaped() throws {
        let filter = try #require(try translate("/ad.js?v=1+2&(x)[y]").first)
        #expect(filterMatches(filter, "http://a.com/ad.js?v=1+2&(x)[y]"))
        #expect(!filterMatches(filter, "http://a.com/adxjs?v=1+2&(x)[y]"))
        #expect(!filterMatches(filter, "http://a.com/ad.js?v=1112&(x)[y]"))
    }

    @Test func matchAllForEmptyPatternWithOptions() throws {
        #expect(try translate("$popup,domain=example.com") == [.matchAll])
    }
}

@Suite("Regex rule translation")
struct WebKitRegexTranslatorTests {
    func translate(_ source: String) -> Result<[String], SkipReason> {
        WebKitRegexTranslator.translate(source)
    }

    @Test func shorthandClassesBecomeExplicit() throws {
        let filters = try translate(#"^https?:\/\/[a-z]+\.example\/\d+\w\.js$"#).get()
        #expect(filters == [#"^https?://[a-z]+\.example/[0-9]+[0-9A-Z_a-z]\.js$"#])
        #expect(filterMatches(filters[0], "https://ads.example/123a.js"))
    }

    @Test func boundedRepetitionIsUnrolled() throws {
        let filters = try translate(#"/ad[0-9]{2,3}x{2}\./"#).get()
        #expect(filters == [#"/ad[0-9][0-9][0-9]?xx\./"#])
        #expect(filterMatches(filters[0], "http://a/ad12xx./"))
        #expect(!filterMatches(filters[0], "http://a/ad1xx./"))
    }

    @Test func alternationBecomesSeveralFilters() throws {
        let filters = try translate(#"^https?://(?:ads|track)\.example/(a|b)"#).get()
        #expect(filters.count == 4)
        #expect(filters.allSatisfy { !$0.contains("|") && !$0.contains("(?") })
        #expect(filters.contains { filterMatches($0, "https://track.example/b") })
    }

    @Test(arguments: [
        (#"foo(?=bar)"#, "unsupported-regex:lookaround"),
        (#"(a)\1"#, "unsupported-regex:backreference"),
        (#"\bads\b"#, "unsupported-regex:word-boundary"),
        (#"a^b"#, "unsupported-regex:anchor"),
        (#"(a|b)+"#, "unsupported-regex:alternation"),
        ("wérbung", "unsupported-regex:non-ascii"),
        (#"a{100}"#, "unsupported-regex:repetition"),
        (#"(a|b)(c|d)(e|f)(g|h)(i|j)"#, "unsupported-regex:alternation"),
    ])
    func unsupportedExpressionsAreRefusedWithReason(source: String, reason: String) {
        #expect(translate(source) == .failure(SkipReason(reason)))
    }

    @Test func lazyQuantifiersAndNamedGroups() throws {
        #expect(try translate(#"a.*?b(?<n>c)"#).get() == ["a.*b(c)".replacingOccurrences(of: "(c)", with: "c")])
    }

    @Test func classEscapesAreCanonical() throws {
        let filters = try translate(#"[\w.\-]+\/[^\/?]+"#).get()
        #expect(filters == [#"[\-.0-9A-Z_a-z]+/[^/?]+"#])
    }
}
