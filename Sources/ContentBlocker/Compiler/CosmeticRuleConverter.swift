import FilterLists

/// Converts element-hiding rules into `css-display-none` rules.
///
/// Generic selectors are joined into large groups under `.*` (WebKit merges identical
/// every-URL hiding rules, so few big rules are cheap). Site-specific selectors are collected per
/// site, and sites with the same selectors share one rule triggered by page loads
/// (`resource-type` `document`) under an `if-top-url` list of the sites: WebKit compiles that
/// faster than `if-domain`, and unlike `if-frame-url` it is understood before Safari 26.
/// `#@#` exceptions are applied here by narrowing the hiding rules, because WebKit's
/// `ignore-previous-rules` cannot undo a single selector.
struct CosmeticRuleConverter {
    let selectorsPerRule: Int

    /// Hiding selectors collected under one trigger, with the lists they came from.
    private struct Group {
        var selectors: [String] = []
        var sources: [Int] = []
        var seen = Set<String>()

        mutating func add(_ selector: String, source: Int) -> Bool {
            guard seen.insert(selector).inserted else { return false }
            selectors.append(selector)
            sources.append(source)
            return true
        }
    }

    /// A site-specific trigger: the site and the subdomains carved out of it.
    private struct SiteKey: Hashable, Comparable {
        var site: String
        var carveOuts: [String]

        static func < (lhs: SiteKey, rhs: SiteKey) -> Bool {
            (lhs.site, lhs.carveOuts.joined(separator: ",")) < (rhs.site, rhs.carveOuts.joined(separator: ","))
        }
    }

    func convert(_ lists: [ParsedFilterList], into compiled: inout CompiledRules, state: inout CompilationState) {
        // Exceptions by selector: everywhere, or on some sites.
        var exceptedEverywhere = Set<String>()
        var exceptedSites: [String: [String]] = [:]
        for list in lists {
            for rule in list.cosmeticRules where rule.isException {
                if rule.domains.included.isEmpty {
                    exceptedEverywhere.insert(rule.selector)
                } else {
                    exceptedSites[rule.selector, default: []] += rule.domains.included
                }
            }
        }

        var genericGroups: [[String]: Group] = [:]
        var genericOrder: [[String]] = []
        var siteGroups: [SiteKey: Group] = [:]

        for (source, list) in lists.enumerated() {
            for rule in list.cosmeticRules where !rule.isException {
                if exceptedEverywhere.contains(rule.selector) {
                    state.skip(source, .cancelledByException)
                    continue
                }
                let exceptions = exceptedSites[rule.selector] ?? []
                if rule.domains.included.isEmpty {
                    let unless = Array(Set(rule.domains.excluded + exceptions)).sorted()
                    if genericGroups[unless] == nil { genericOrder.append(unless) }
                    if !genericGroups[unless, default: Group()].add(rule.selector, source: source) {
                        state.skip(source, .duplicate)
                    }
                    continue
                }
                // Site-specific: an exception for the exact site removes it; exclusions and
                // exceptions inside a site are carved out of that site's trigger.
                let sites = rule.domains.included.filter { !exceptions.contains($0) }
                if sites.isEmpty {
                    state.skip(source, .cancelledByException)
                    continue
                }
                let carveOutCandidates = rule.domains.excluded + exceptions
                var added = false
                for site in sites {
                    let carveOuts = Array(Set(carveOutCandidates.filter { $0 != site && DomainConstraint.host($0, isWithin: site) }))
                        .sorted()
                    if siteGroups[SiteKey(site: site, carveOuts: carveOuts), default: Group()].add(rule.selector, source: source) {
                        added = true
                    }
                }
                if !added { state.skip(source, .duplicate) }
            }
        }

        for key in genericOrder {
            let condition: WebKitRule.DomainCondition? =
                key.isEmpty ? nil : .unlessTopURL(key.map(URLFilterTranslator.siteFilter))
            let trigger = WebKitRule.Trigger(
                urlFilter: URLFilter.matchAll.pattern, domainCondition: condition, isTopURLCaseSensitive: condition != nil)
            emit(genericGroups[key]!, trigger: trigger, into: &compiled.genericHiding, state: &state)
        }
        // Sites with exactly the same selectors share a rule; groups keep the order of their first site.
        var sitesBySelectors: [[String]: [String]] = [:]
        var selectorOrder: [[String]] = []
        var sources: [[String]: [Int]] = [:]
        var carvedOut: [SiteKey] = []
        for key in siteGroups.keys.sorted() {
            let group = siteGroups[key]!
            guard key.carveOuts.isEmpty else {
                carvedOut.append(key)
                continue
            }
            if sitesBySelectors[group.selectors] == nil { selectorOrder.append(group.selectors) }
            sitesBySelectors[group.selectors, default: []].append(key.site)
            sources[group.selectors, default: []] += group.sources
        }
        for selectors in selectorOrder {
            let condition = WebKitRule.DomainCondition.sites(sitesBySelectors[selectors]!, included: true)
            let trigger = WebKitRule.Trigger(
                urlFilter: URLFilter.matchAll.pattern, resourceTypes: [.document], domainCondition: condition,
                isTopURLCaseSensitive: condition.isTopURL)
            var group = Group()
            group.selectors = selectors
            group.sources = sources[selectors]!
            emit(group, trigger: trigger, into: &compiled.specificHiding, state: &state)
        }
        // A site with carve-outs (`d.com,~shop.d.com##.w`): the site as url-filter, the carve-outs as the condition.
        for key in carvedOut {
            let condition = WebKitRule.DomainCondition.sites(key.carveOuts, included: false)
            let trigger = WebKitRule.Trigger(
                urlFilter: URLFilterTranslator.siteFilter(key.site), isCaseSensitive: true, resourceTypes: [.document],
                domainCondition: condition, isTopURLCaseSensitive: condition.isTopURL)
            emit(siteGroups[key]!, trigger: trigger, into: &compiled.specificHiding, state: &state)
        }
    }

    private func emit(_ group: Group, trigger: WebKitRule.Trigger, into section: inout [WebKitRule], state: inout CompilationState) {
        var start = 0
        while start < group.selectors.count {
            let end = min(start + selectorsPerRule, group.selectors.count)
            let selector = group.selectors[start..<end].joined(separator: ", ")
            section.append(WebKitRule(trigger: trigger, action: .cssDisplayNone(selector: selector)))
            state.emitted(by: group.sources[start..<end])
            start = end
        }
    }
}
