import FilterLists

/// Converts network rules (blocks and `@@` exceptions) into WebKit rules.
struct NetworkRuleConverter {
    private var compiled: CompiledRules
    private var state: CompilationState
    private var emitted = Set<WebKitRule>()
    private var pairs: [WebKitRule] = []

    private enum Section {
        case blocking, exceptions, important, documentExceptions, hidingExceptions, genericHidingExceptions
    }

    /// Converts the network rules of `lists`, adding them to `compiled` and counting in `state`.
    static func convert(_ lists: [ParsedFilterList], into compiled: inout CompiledRules, state: inout CompilationState) {
        var converter = NetworkRuleConverter(compiled: compiled, state: state)
        converter.convert(lists)
        converter.compiled.blocking = converter.pairs + converter.compiled.blocking
        converter.compiled.pairedBlockingCount = converter.pairs.count
        compiled = converter.compiled
        state = converter.state
    }

    private init(compiled: CompiledRules, state: CompilationState) {
        self.compiled = compiled
        self.state = state
    }

    private mutating func convert(_ lists: [ParsedFilterList]) {
        var badfilterKeys = Set<String>()
        var badfilterHeads = Set<Substring>()
        for list in lists {
            for rule in list.networkRules where rule.isBadfilter {
                badfilterKeys.insert(rule.badfilterKey)
                badfilterHeads.insert(Self.head(of: rule.text))
            }
        }
        emitted.reserveCapacity(lists.reduce(0) { $0 + $1.networkRules.count })
        for (source, list) in lists.enumerated() {
            for rule in list.networkRules where !rule.isBadfilter {
                // The full key is computed only for rules whose pattern a `$badfilter` names.
                if !badfilterHeads.isEmpty && badfilterHeads.contains(Self.head(of: rule.text))
                    && badfilterKeys.contains(rule.badfilterKey)
                {
                    state.skip(source, .disabledByBadfilter)
                    continue
                }
                if rule.isException && rule.exceptionScope.contains(.genericBlocking) {
                    state.skip(source, .unsupportedOption("genericblock"))
                    continue
                }
                switch URLFilterTranslator.urlFilter(for: rule) {
                case .success(let filters):
                    if rule.isException {
                        convertException(rule, filters: filters, source: source)
                    } else {
                        convertBlock(rule, filters: filters, source: source)
                    }
                case .failure(let reason):
                    state.skip(source, reason)
                }
            }
        }
    }

    /// The rule text before its options.
    private static func head(of text: String) -> Substring {
        guard let dollar = text.utf8.lastIndex(of: UInt8(ascii: "$")) else { return Substring(text) }
        return text[..<dollar]
    }

    private mutating func add(_ rule: WebKitRule, to section: Section, source: Int) {
        guard emitted.insert(rule).inserted else {
            state.skip(source, .duplicate)
            return
        }
        state.emitted(by: source)
        switch section {
        case .blocking: compiled.blocking.append(rule)
        case .exceptions: compiled.exceptions.append(rule)
        case .important: compiled.important.append(rule)
        case .documentExceptions: compiled.documentExceptions.append(rule)
        case .hidingExceptions: compiled.hidingExceptions.append(rule)
        case .genericHidingExceptions: compiled.genericHidingExceptions.append(rule)
        }
    }

    private mutating func convertBlock(_ rule: NetworkRule, filters: [String], source: Int) {
        let conditions = Self.domainConditions(rule.domains)
        for filter in filters {
            for trigger in Self.triggers(rule, filter: filter, condition: conditions.primary) {
                let block = WebKitRule(trigger: trigger, action: .block)
                if rule.isImportant {
                    add(block, to: .important, source: source)
                } else if let narrowing = conditions.exception {
                    // `$domain=a.com|~b.a.com`: block on a.com, then undo it on b.a.com right away,
                    // before any other block, so the exception cancels only this pair's rule.
                    guard emitted.insert(block).inserted else {
                        state.skip(source, .duplicate)
                        continue
                    }
                    var undo = trigger
                    undo.domainCondition = narrowing
                    pairs += [block, WebKitRule(trigger: undo, action: .ignorePreviousRules)]
                    state.emitted(by: source)
                } else {
                    add(block, to: .blocking, source: source)
                }
            }
        }
    }

    private mutating func convertException(_ rule: NetworkRule, filters: [String], source: Int) {
        let scope = rule.exceptionScope
        if !scope.intersection([.document, .elementHiding, .genericHiding]).isEmpty {
            // Page-level exceptions must match every load of the page (WebKit applies hiding rules
            // matched by any load to the page), so they use a page condition on an every-URL trigger.
            guard let condition = Self.pageCondition(for: rule, filters: filters) else {
                state.skip(source, .unsupportedPageException)
                return
            }
            let exception = WebKitRule(
                trigger: WebKitRule.Trigger(urlFilter: URLFilterTranslator.matchAll, domainCondition: condition),
                action: .ignorePreviousRules)
            if scope.contains(.document) {
                add(exception, to: .documentExceptions, source: source)
            } else if scope.contains(.elementHiding) {
                add(exception, to: .hidingExceptions, source: source)
            } else {
                add(exception, to: .genericHidingExceptions, source: source)
            }
            return
        }
        // A request exception. Exclusions inside `$domain` cannot be kept on an exception (there is
        // no "re-block"), so only the included sites are used: it allows slightly more, never less.
        var domains = rule.domains
        if !domains.included.isEmpty { domains.excluded = [] }
        let condition = Self.domainConditions(domains).primary
        for filter in filters {
            for trigger in Self.triggers(rule, filter: filter, condition: condition) {
                let exception = WebKitRule(trigger: trigger, action: .ignorePreviousRules)
                add(exception, to: rule.isImportant ? .documentExceptions : .exceptions, source: source)
            }
        }
    }

    /// The pages a page-level exception covers: `if-domain` for `||site^` or `$domain=site`,
    /// `if-top-url` for other patterns; `nil` when WebKit cannot say it (a pattern and `$domain`
    /// together, or `$domain` exclusions).
    static func pageCondition(for rule: NetworkRule, filters: [String]) -> WebKitRule.DomainCondition? {
        let matchesEveryURL = filters == [URLFilterTranslator.matchAll]
        if matchesEveryURL {
            guard !rule.domains.included.isEmpty, rule.domains.excluded.isEmpty else { return nil }
            return .ifDomain(rule.domains.included.map { "*" + $0 })
        }
        guard rule.domains.isUnconstrained else { return nil }
        if let site = site(of: rule) { return .ifDomain(["*" + site]) }
        return .ifTopURL(filters)
    }

    /// The site of a `||example.com^` pattern (any options), for page conditions.
    private static func site(of rule: NetworkRule) -> String? {
        guard rule.anchor == .host, !rule.isRegex else { return nil }
        var host = Substring(rule.pattern)
        if host.hasSuffix("^") { host = host.dropLast() }
        guard !host.isEmpty, host.utf8.allSatisfy(DomainName.isHostByte) else { return nil }
        return String(host)
    }

    /// The triggers for a rule: one per WebKit type group.
    static func triggers(_ rule: NetworkRule, filter: String, condition: WebKitRule.DomainCondition?) -> [WebKitRule.Trigger] {
        let loadType: WebKitRule.LoadType? =
            switch rule.party {
            case .any: nil
            case .first: .firstParty
            case .third: .thirdParty
            }
        return ResourceTypeMapping.targets(for: rule.resourceTypes, explicit: rule.hasExplicitTypes).map { target in
            WebKitRule.Trigger(
                urlFilter: filter, isCaseSensitive: rule.matchCase, resourceTypes: target.types, loadType: loadType,
                loadContext: target.loadContext, domainCondition: condition)
        }
    }

    /// The page condition for a `$domain` option, and for mixed include/exclude lists the
    /// condition of the narrow exception that must follow the rule.
    static func domainConditions(
        _ domains: DomainConstraint
    ) -> (primary: WebKitRule.DomainCondition?, exception: WebKitRule.DomainCondition?) {
        if domains.isUnconstrained { return (nil, nil) }
        if domains.included.isEmpty {
            return (.unlessDomain(domains.excluded.map { "*" + $0 }), nil)
        }
        let included = domains.included.map { "*" + $0 }
        // Only exclusions inside an included site matter (`a.com|~b.a.com`); others are moot.
        let relevant = domains.excluded.filter { excluded in
            domains.included.contains { DomainConstraint.host(excluded, isWithin: $0) }
        }
        if relevant.isEmpty { return (.ifDomain(included), nil) }
        return (.ifDomain(included), .ifDomain(relevant.map { "*" + $0 }))
    }
}
