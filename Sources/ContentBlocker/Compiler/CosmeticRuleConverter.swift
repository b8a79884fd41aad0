import FilterLists

/// Converts element-hiding rules into grouped `css-display-none` rules.
///
/// Generic selectors are joined into large groups (WebKit evaluates a `.*` hiding rule once per
/// page, so fewer, bigger rules compile and run faster); site-specific selectors are merged per
/// selector across rules and then grouped by identical site lists. `#@#` exceptions are applied
/// here by narrowing the hiding rules, because WebKit's `ignore-previous-rules` cannot undo a
/// single selector.
struct CosmeticRuleConverter {
    let selectorsPerRule: Int

    /// Hiding selectors collected under one page condition, with the lists they came from.
    private struct Group {
        var selectors: [String] = []
        var sources: [Int] = []
    }

    func convert(_ lists: [ParsedFilterList], into compiled: inout CompiledRules, state: inout CompilationState) {
        // Exceptions by selector: nil site list means "everywhere".
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

        var genericGroups: [String: Group] = [:]
        var genericOrder: [String] = []
        var specificSites: [String: [String]] = [:]  // selector → sites
        var specificSources: [String: [Int]] = [:]
        var specificOrder: [String] = []
        var perSiteRules: [(site: String, excluded: [String], selector: String, source: Int)] = []
        var seenGeneric = Set<String>()

        for (source, list) in lists.enumerated() {
            for rule in list.cosmeticRules where !rule.isException {
                if exceptedEverywhere.contains(rule.selector) {
                    state.skip(source, .cancelledByException)
                    continue
                }
                let exceptions = exceptedSites[rule.selector] ?? []
                if rule.domains.included.isEmpty {
                    let unless = Array(Set(rule.domains.excluded + exceptions)).sorted()
                    let key = unless.joined(separator: ",")
                    guard seenGeneric.insert(key + "\u{0}" + rule.selector).inserted else {
                        state.skip(source, .duplicate)
                        continue
                    }
                    if genericGroups[key] == nil { genericOrder.append(key) }
                    genericGroups[key, default: Group()].selectors.append(rule.selector)
                    genericGroups[key, default: Group()].sources.append(source)
                    continue
                }
                // Site-specific: exact-site exceptions remove the site; exceptions or exclusions
                // inside a site need a trigger of their own (url-filter for the site, unless-domain).
                var sites = rule.domains.included.filter { !exceptions.contains($0) }
                if sites.isEmpty {
                    state.skip(source, .cancelledByException)
                    continue
                }
                let carveOuts = rule.domains.excluded + exceptions
                var plainSites: [String] = []
                for site in sites {
                    let inside = carveOuts.filter { $0 != site && DomainConstraint.host($0, isWithin: site) }
                    if inside.isEmpty {
                        plainSites.append(site)
                    } else {
                        perSiteRules.append((site, Array(Set(inside)).sorted(), rule.selector, source))
                    }
                }
                sites = plainSites
                guard !sites.isEmpty else { continue }
                if specificSites[rule.selector] == nil { specificOrder.append(rule.selector) }
                specificSites[rule.selector, default: []] += sites
                specificSources[rule.selector, default: []].append(source)
            }
        }

        // Generic hiding: big groups under `.*`, exclusions as `unless-domain`.
        for key in genericOrder {
            let group = genericGroups[key]!
            let condition: WebKitRule.DomainCondition? =
                key.isEmpty ? nil : .unlessDomain(key.split(separator: ",").map { "*" + $0 })
            emitGroups(group, condition: condition, urlFilter: URLFilterTranslator.matchAll, into: &compiled.genericHiding, state: &state)
        }

        // Site-specific hiding: merge each selector's sites, then group selectors by site list.
        var bySites: [String: Group] = [:]
        var bySitesOrder: [String] = []
        for selector in specificOrder {
            let sites = Array(Set(specificSites[selector]!)).sorted()
            let key = sites.joined(separator: ",")
            if bySites[key] == nil { bySitesOrder.append(key) }
            bySites[key, default: Group()].selectors.append(selector)
            bySites[key, default: Group()].sources += specificSources[selector]!
        }
        for key in bySitesOrder {
            let condition = WebKitRule.DomainCondition.ifDomain(key.split(separator: ",").map { "*" + $0 })
            emitGroups(
                bySites[key]!, condition: condition, urlFilter: URLFilterTranslator.matchAll, into: &compiled.specificHiding, state: &state)
        }
        for entry in perSiteRules {
            let group = Group(selectors: [entry.selector], sources: [entry.source])
            emitGroups(
                group, condition: .unlessDomain(entry.excluded.map { "*" + $0 }),
                urlFilter: URLFilterTranslator.urlFilter(forSite: entry.site), into: &compiled.specificHiding, state: &state)
        }
    }

    private func emitGroups(
        _ group: Group, condition: WebKitRule.DomainCondition?, urlFilter: String, into section: inout [WebKitRule],
        state: inout CompilationState
    ) {
        var start = 0
        while start < group.selectors.count {
            let end = min(start + selectorsPerRule, group.selectors.count)
            let selector = group.selectors[start..<end].joined(separator: ", ")
            let trigger = WebKitRule.Trigger(urlFilter: urlFilter, domainCondition: condition)
            section.append(WebKitRule(trigger: trigger, action: .cssDisplayNone(selector: selector)))
            state.emitted(by: group.sources.count == group.selectors.count ? Array(group.sources[start..<end]) : group.sources)
            start = end
        }
    }
}
