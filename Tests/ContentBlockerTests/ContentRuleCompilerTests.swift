import Foundation
import Testing

@testable import ContentBlocker
@testable import FilterLists

func compile(_ lists: [String], allowlist: [String] = []) throws -> CompiledRules {
    let parsed = try lists.enumerated().map { try FilterListParser().parse($1, name: "list\($0)") }
    return ContentRuleCompiler().compile(parsed, allowlist: allowlist)
}

@Suite("Content rule compiler")
struct ContentRuleCompilerTests {
    @Test func typesPartyAndDomainsBecomeTriggerFields() throws {
        let compiled = try compile(["||a.com^$script,image,third-party,domain=x.com|y.com\n||b.com^$~third-party,domain=~z.com"])
        let first = compiled.blocking[0].trigger
        #expect(first.resourceTypes == [.image, .script])
        #expect(first.loadType == .thirdParty)
        #expect(first.domainCondition == .ifTopURL([URLFilterTranslator.siteFilter("x.com"), URLFilterTranslator.siteFilter("y.com")]))
        #expect(first.isTopURLCaseSensitive)
        let second = compiled.blocking[1].trigger
        #expect(second.loadType == .firstParty)
        #expect(second.domainCondition == .unlessTopURL([URLFilterTranslator.siteFilter("z.com")]))
        #expect(second.resourceTypes.isEmpty)
        #expect(filterMatches(URLFilterTranslator.siteFilter("z.com"), "https://www.z.com/page", caseSensitive: true))
        #expect(!filterMatches(URLFilterTranslator.siteFilter("z.com"), "https://xz.com/page", caseSensitive: true))
    }

    @Test func plainDomainRulesAreSortedDeduplicatedAndCoverTheirHosts() throws {
        let compiled = try compile([
            "||zeta.com^\n||alpha.com^\n||cdn.alpha.com^\n||alpha.com/ads/x.js\n||alpha.com^$third-party\n||alpha.com/pop$popup",
            "||zeta.com^",
        ])
        #expect(
            compiled.domainBlocking.map(\.trigger.urlFilter) == [
                URLFilterTranslator.domainRulePrefix + "alpha\\.com[/:]", URLFilterTranslator.domainRulePrefix + "zeta\\.com[/:]",
            ])
        #expect(compiled.domainBlocking.allSatisfy { $0.trigger.isCaseSensitive })
        #expect(compiled.reports[0].skipped[.coveredByDomainRule] == 3)
        #expect(compiled.reports[1].skipped[.duplicate] == 1)
        // A popup is not a request the domain rule blocks: that rule stays.
        #expect(compiled.blocking.count == 1)
        #expect(compiled.blocking[0].trigger.resourceTypes == [.popup])
    }

    @Test func subdocumentMixedWithOtherTypesIsSplit() throws {
        let compiled = try compile(["||a.com^$script,subdocument\n||b.com^$subdocument"])
        #expect(compiled.blocking.count == 3)
        #expect(compiled.blocking[0].trigger.resourceTypes == [.script])
        #expect(compiled.blocking[1].trigger.resourceTypes == [.document])
        #expect(compiled.blocking[1].trigger.loadContext == .childFrame)
        #expect(compiled.blocking[2].trigger.loadContext == .childFrame)
    }

    @Test func mixedDomainOptionBecomesAPairAtTheStart() throws {
        let compiled = try compile(["||plain.com/x\n||a.com^$domain=site.com|~shop.site.com|~other.org"])
        #expect(compiled.pairedBlockingCount == 2)
        #expect(compiled.blocking[0].action == .block)
        #expect(compiled.blocking[0].trigger.domainCondition == .ifTopURL([URLFilterTranslator.siteFilter("site.com")]))
        #expect(compiled.blocking[1].action == .ignorePreviousRules)
        #expect(compiled.blocking[1].trigger.domainCondition == .ifTopURL([URLFilterTranslator.siteFilter("shop.site.com")]))
        #expect(compiled.blocking[1].trigger.urlFilter == compiled.blocking[0].trigger.urlFilter)
        #expect(compiled.blocking[2].trigger.urlFilter.contains("plain"))
    }

    @Test func exceptionsImportantAndDocumentGoToTheirSections() throws {
        let compiled = try compile([
            "||ads.com^\n@@||ads.com/ok.js\n||evil.com^$important\n@@||site.com^$document\n@@||forum.com^$elemhide\n@@||blog.com^$generichide"
        ])
        #expect(compiled.domainBlocking.count == 1)
        #expect(compiled.exceptions.count == 1)
        #expect(compiled.exceptions[0].action == .ignorePreviousRules)
        #expect(compiled.important.count == 1)
        #expect(
            compiled.documentExceptions == [
                WebKitRule(trigger: .init(urlFilter: ".*", domainCondition: .ifDomain(["site.com"])), action: .ignorePreviousRules)
            ])
        #expect(
            compiled.hidingExceptions == [
                WebKitRule(trigger: .init(urlFilter: ".*", domainCondition: .ifDomain(["forum.com"])), action: .ignorePreviousRules)
            ])
        #expect(compiled.genericHidingExceptions.count == 1)
    }

    @Test func pageExceptionsWithPatternsUseTopURLAndUnsupportedOnesAreCounted() throws {
        let compiled = try compile([
            "@@|https://docs.example/editor/$document\n@@$generichide,domain=a.com|b.com\n@@/x/$elemhide,domain=c.com"
        ])
        let documentCondition = try #require(compiled.documentExceptions.first?.trigger.domainCondition)
        guard case .ifTopURL(let patterns) = documentCondition else {
            Issue.record("expected if-top-url, got \(documentCondition)")
            return
        }
        #expect(filterMatches(patterns[0], "https://docs.example/editor/1"))
        #expect(compiled.genericHidingExceptions.first?.trigger.domainCondition == .ifDomain(["a.com", "b.com"]))
        #expect(compiled.reports[0].skipped[.unsupportedPageException] == 1)
    }

    @Test func badfilterCancelsItsTargetAcrossLists() throws {
        let compiled = try compile(["||a.com^$script,third-party\n||b.com/x", "||a.com^$third-party,script,badfilter"])
        #expect(compiled.blocking.count == 1)
        #expect(compiled.reports[0].skipped[.disabledByBadfilter] == 1)
    }

    @Test func duplicatesAcrossListsAreMergedAndCounted() throws {
        let compiled = try compile(["||a.com/x\n||b.com/x", "||a.com/x"])
        #expect(compiled.blocking.count == 2)
        #expect(compiled.reports[1].skipped[.duplicate] == 1)
        #expect(compiled.reports[0].rulesOut == 2)
        #expect(compiled.reports[1].rulesOut == 0)
    }

    @Test func genericHidingIsGroupedAndExceptionsNarrowIt() throws {
        let compiled = try compile(["##.a\n##.b\n##.c\nexample.com#@#.b\n#@#.c\n~news.org##.d"])
        #expect(compiled.genericHiding.count == 3)
        #expect(compiled.genericHiding[0].action == .cssDisplayNone(selector: ".a"))
        #expect(compiled.genericHiding[1].action == .cssDisplayNone(selector: ".b"))
        #expect(compiled.genericHiding[1].trigger.domainCondition == .unlessTopURL([URLFilterTranslator.siteFilter("example.com")]))
        #expect(compiled.genericHiding[2].trigger.domainCondition == .unlessTopURL([URLFilterTranslator.siteFilter("news.org")]))
        #expect(compiled.reports[0].skipped[.cancelledByException] == 1)
    }

    @Test func siteHidingIsGroupedBySitesWithTheSameSelectors() throws {
        let compiled = try compile([
            "b.com##.x\na.com##.x\na.com,b.com##.y\ne.com##.y\nc.com##.z\nc.com#@#.z\nd.com,~shop.d.com##.w\na.com##.x"
        ])
        let rules = compiled.specificHiding
        #expect(rules.count == 3)
        // a.com and b.com both hide `.x, .y`: one rule for both, on page loads.
        #expect(rules[0].action == .cssDisplayNone(selector: ".x, .y"))
        #expect(rules[0].trigger.domainCondition == .ifTopURL(["a.com", "b.com"].map(URLFilterTranslator.siteFilter)))
        #expect(rules[0].trigger.resourceTypes == [.document])
        #expect(rules[0].trigger.isTopURLCaseSensitive)
        #expect(rules[1].trigger.domainCondition == .ifTopURL([URLFilterTranslator.siteFilter("e.com")]))
        // `.z` is excepted on its only site; `.w` is carved out of shop.d.com.
        #expect(!rules.contains { $0.action == .cssDisplayNone(selector: ".z") })
        #expect(rules[2].trigger.urlFilter == URLFilterTranslator.siteFilter("d.com"))
        #expect(rules[2].trigger.domainCondition == .unlessTopURL([URLFilterTranslator.siteFilter("shop.d.com")]))
        #expect(compiled.reports[0].skipped[.cancelledByException] == 1)
        #expect(compiled.reports[0].skipped[.duplicate] == 1)
    }

    @Test func unsupportedRegexIsSkippedWithReason() throws {
        let compiled = try compile(["/ads(?=x)/\n/ad\\d+/"])
        #expect(compiled.blocking.count == 1)
        #expect(compiled.reports[0].skipped[SkipReason("unsupported-regex:lookaround")] == 1)
    }

    @Test func allowlistIsOneRuleCoveringSubdomains() throws {
        let compiled = try compile(["||a.com^"], allowlist: ["b.org", "a.net", "b.org"])
        #expect(
            compiled.allowlist == [
                WebKitRule(trigger: .init(urlFilter: ".*", domainCondition: .ifDomain(["a.net", "b.org"])), action: .ignorePreviousRules)
            ])
    }
}
