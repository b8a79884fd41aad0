import Foundation

/// Turns a Tracker Radar dataset into Pepper's network rules, so that TDS lists go through
/// the same compiler, engine and DNS filter as filter lists.
///
/// Semantics (DuckDuckGo's): a request to a tracker is considered only when it is third party by
/// entity — the page's site is not owned by the tracker's entity (or its parent). Then the first
/// tracker rule that matches decides (`block` unless `action` is `ignore`); when none matches, the
/// tracker's `default` decides. Encoding as rules where exceptions beat blocks:
/// - `default: block` → `||tracker^$third-party,domain=~entity-site|...`;
/// - a block rule → a regex block on the tracker's host, with the same entity exclusions, its
///   `options`/`exceptions` as `$domain` and type options; it is `$important` when an `ignore`
///   rule follows it in the list, so that it still wins over that later rule;
/// - an `ignore` rule → an exception, `$important` when a block rule follows it (so that, being
///   first, it wins);
/// - a block rule's `exceptions` (sites and/or request types: a request matching the rule from an
///   excepted site, of an excepted type, is let through — the rule matched first and says so, so
///   the tracker's `default: block` must not apply either) → an exception for the rule's pattern
///   on those sites and types, after the blocks, as DuckDuckGo's TrackerRadarKit does with an
///   `ignore-previous-rules`; `$important` when the rule itself is;
/// - CNAME-cloaked hosts get their tracker's rules with the cloaked host in place of the
///   tracker's, without `$third-party` (cloaking makes them look first-party) but with the same
///   entity exclusions.
///
/// Rules are emitted in a stable order (trackers and CNAMEs sorted), so output is deterministic.
///
/// Categories: each tracker carries Tracker Radar's `categories` (most carry none, which counts
/// as the category ``noCategory``). Given a choice of categories, a tracker is converted when
/// one of its categories is chosen and left out whole otherwise — its domain, its rules and
/// the hosts that CNAME-cloak it.
public enum TrackerRadarConverter {
    /// The category of the trackers Tracker Radar gives no category (most of them), so that a
    /// choice can keep or leave them out like any other.
    public static let noCategory = "No category"

    /// Converts a decoded dataset. `text` rules are synthesised in Adblock Plus syntax so that
    /// reports and `pepper check` can show them.
    ///
    /// - Parameters:
    ///   - dataset: The dataset.
    ///   - name: The list's name in reports.
    ///   - categories: The categories whose trackers are blocked (case-insensitive, with
    ///     ``noCategory`` for trackers without one); `nil` for every tracker.
    public static func convert(_ dataset: TrackerDataSet, name: String, categories: [String]? = nil) -> ParsedFilterList {
        var list = ParsedFilterList(name: name, format: .tds)
        var line = 0
        let wanted = categories.map { Set($0.map { $0.lowercased() }) }

        // Cloaked hosts per tracker domain.
        var cloaks: [String: [String]] = [:]
        for (cloaked, target) in dataset.cnames ?? [:] {
            guard let tracker = trackerDomain(for: target, in: dataset) else { continue }
            cloaks[tracker, default: []].append(cloaked)
        }

        var sitesByOwner: [OwnerKey: [String]] = [:]
        for trackerKey in dataset.trackers.keys.sorted() {
            let tracker = dataset.trackers[trackerKey]!
            if let wanted, !categoryNames(of: tracker).contains(where: { wanted.contains($0.lowercased()) }) { continue }
            guard let domain = try? DomainName.normalize(tracker.domain) else {
                list.skip(line: 0, text: tracker.domain, reason: .invalidDomain)
                continue
            }
            let firstParty = firstPartySites(of: tracker, in: dataset, cache: &sitesByOwner)
            let hosts =
                [(domain, true)]
                + (cloaks[trackerKey] ?? []).sorted().compactMap { host -> (String, Bool)? in
                    guard let cloaked = try? DomainName.normalize(host) else { return nil }
                    return (cloaked, false)
                }
            for (host, thirdPartyOnly) in hosts {
                line += 1
                emitRules(
                    for: tracker, trackerDomain: domain, host: host, thirdPartyOnly: thirdPartyOnly, firstParty: firstParty,
                    line: line, into: &list)
            }
        }
        list.lineCount = line
        return list
    }

    /// Reads and converts a TDS JSON document from its bytes; `categories` as in
    /// ``convert(_:name:categories:)``.
    public static func convert(
        json bytes: UnsafeRawBufferPointer, name: String, categories: [String]? = nil
    ) throws(FilterListError) -> ParsedFilterList {
        do {
            return convert(try TrackerDataSet(json: bytes), name: name, categories: categories)
        } catch {
            throw .invalidJSON(name: name, format: .tds, reason: error.description)
        }
    }

    /// The categories of a dataset's trackers, by name, each with how many trackers it has;
    /// ``noCategory`` last, for the trackers without one.
    public static func categories(in dataset: TrackerDataSet) -> [TrackerCategory] {
        var counts: [String: Int] = [:]
        for tracker in dataset.trackers.values {
            for category in Set(categoryNames(of: tracker)) { counts[category, default: 0] += 1 }
        }
        let named = counts.filter { $0.key != noCategory }.sorted { $0.key < $1.key }
        return (named + counts.filter { $0.key == noCategory }).map { TrackerCategory(name: $0.key, domains: $0.value) }
    }

    /// A tracker's categories, or ``noCategory`` when it has none.
    static func categoryNames(of tracker: TrackerDataSet.Tracker) -> [String] {
        let named = (tracker.categories ?? []).filter { !$0.isEmpty }
        return named.isEmpty ? [noCategory] : named
    }

    /// The tracker a (CNAME target) host belongs to: the host or its nearest parent that is a tracker.
    static func trackerDomain(for host: String, in dataset: TrackerDataSet) -> String? {
        var candidate = Substring(host.lowercased())
        while true {
            if dataset.trackers[String(candidate)] != nil { return String(candidate) }
            guard let dot = candidate.firstIndex(of: ".") else { return nil }
            candidate = candidate[candidate.index(after: dot)...]
        }
    }

    /// An owner and its parent, as a key.
    struct OwnerKey: Hashable {
        var name: String
        var parent: String?
    }

    /// The sites on which a tracker is first party: its entity's domains and its parent entity's.
    /// `cache` holds them per owner (an entity has many trackers).
    static func firstPartySites(
        of tracker: TrackerDataSet.Tracker, in dataset: TrackerDataSet, cache: inout [OwnerKey: [String]]
    ) -> [String] {
        guard let owner = tracker.owner else { return [] }
        let key = OwnerKey(name: owner.name, parent: owner.ownedBy)
        if let known = cache[key] { return known }
        func sites(of entity: String) -> [String] {
            (dataset.entities[entity]?.domains ?? []).compactMap { try? DomainName.normalize($0) }
        }
        var result = sites(of: owner.name)
        if let parent = owner.ownedBy { result += sites(of: parent) }
        let sorted = Array(Set(result)).sorted()
        cache[key] = sorted
        return sorted
    }

    private static func emitRules(
        for tracker: TrackerDataSet.Tracker, trackerDomain: String, host: String, thirdPartyOnly: Bool, firstParty: [String],
        line: Int, into list: inout ParsedFilterList
    ) {
        let party: NetworkRule.Party = thirdPartyOnly ? .third : .any
        let entityExclusions = DomainConstraint(excluded: firstParty)
        let rules = tracker.rules ?? []
        let actions = rules.map { ($0.action ?? "block") == "ignore" }

        for (index, rule) in rules.enumerated() {
            let isIgnore = actions[index]
            // A rule beats the later rules of the other kind: `$important` makes a block win over
            // later ignores, and an ignore win over later (important) blocks.
            let laterOfOtherKind = actions[(index + 1)...].contains(!isIgnore)
            guard let pattern = hostAnchoredRegex(rule.rule, trackerDomain: trackerDomain, host: host) else {
                if host == trackerDomain { list.skip(line: line, text: rule.rule, reason: .invalidRegex) }
                continue
            }
            var domains = entityExclusions
            var included: [String] = []
            var excepted: [String] = []
            for site in rule.options?.domains ?? [] {
                if let site = try? DomainName.normalize(site) { included.append(site) }
            }
            for site in rule.exceptions?.domains ?? [] {
                if let site = try? DomainName.normalize(site) { excepted.append(site) }
            }
            // Excepted sites and types are left out of the block itself when only one of the two
            // is given; with both, only requests matching both are excepted, which the exception
            // rule below expresses (the block cannot).
            let exceptsBoth = !excepted.isEmpty && !(rule.exceptions?.types ?? []).isEmpty
            let leftOut = exceptsBoth ? [] : excepted
            domains.included = included
            domains.excluded += leftOut
            if !(rule.options?.domains ?? []).isEmpty && included.isEmpty { continue }  // all invalid: applies nowhere
            let types = resourceTypes(rule, subtractingExceptions: !exceptsBoth)
            if let types, types.isEmpty { continue }
            var options: [String] = []
            if thirdPartyOnly { options.append("third-party") }
            if let types { options.append(typeOptionText(types)) }
            let ruleSites = DomainConstraint(included: included, excluded: leftOut)
            if !ruleSites.isUnconstrained { options.append(domainOptionText(ruleSites)) }
            if laterOfOtherKind { options.append("important") }
            let text =
                (isIgnore ? "@@" : "") + "/" + pattern + "/" + (options.isEmpty ? "" : "$" + options.joined(separator: ","))
                + ownerNote(tracker)
            list.networkRules.append(
                NetworkRule(
                    text: text, line: line, isException: isIgnore, pattern: pattern, isRegex: true,
                    resourceTypes: types ?? .defaultTypes, hasExplicitTypes: types != nil, party: party, domains: domains,
                    isImportant: laterOfOtherKind))
            if !isIgnore,
                let exception = exceptionRule(
                    rule, pattern: pattern, excepted: excepted, thirdPartyOnly: thirdPartyOnly, entityExclusions: entityExclusions,
                    important: laterOfOtherKind, tracker: tracker, line: line)
            {
                list.networkRules.append(exception)
            }
        }
        if (tracker.default ?? "ignore") == "block" {
            let text = "||\(host)^" + (thirdPartyOnly ? "$third-party" : "") + ownerNote(tracker)
            list.networkRules.append(
                NetworkRule(text: text, line: line, pattern: host + "^", anchor: .host, party: party, domains: entityExclusions))
        }
    }

    /// The exception that lets through what a block rule's `exceptions` name: the rule's pattern,
    /// on the excepted sites (if any) and for the excepted types (if any; both given: both must
    /// hold, as in TrackerRadarKit's trigger). `nil` when the rule has no usable exception.
    private static func exceptionRule(
        _ rule: TrackerDataSet.Tracker.Rule, pattern: String, excepted: [String], thirdPartyOnly: Bool,
        entityExclusions: DomainConstraint, important: Bool, tracker: TrackerDataSet.Tracker, line: Int
    ) -> NetworkRule? {
        let exceptedTypes = (rule.exceptions?.types ?? []).compactMap(ResourceTypes.init(requestTypeName:))
        guard !excepted.isEmpty || !exceptedTypes.isEmpty else { return nil }
        // On the entity's own sites the tracker is first party and nothing blocks it anyway.
        let sites = DomainConstraint(included: excepted, excluded: excepted.isEmpty ? entityExclusions.excluded : [])
        let types = exceptedTypes.isEmpty ? nil : ResourceTypes(exceptedTypes)
        var options: [String] = []
        if thirdPartyOnly { options.append("third-party") }
        if let types { options.append(typeOptionText(types)) }
        if !sites.isUnconstrained { options.append(domainOptionText(sites)) }
        if important { options.append("important") }
        return NetworkRule(
            text: "@@/" + pattern + "/$" + options.joined(separator: ",") + ownerNote(tracker), line: line, isException: true,
            pattern: pattern, isRegex: true, resourceTypes: types ?? .defaultTypes, hasExplicitTypes: types != nil,
            party: thirdPartyOnly ? .third : .any, domains: sites, isImportant: important)
    }

    /// A TDS rule is a regular expression written from the tracker's host (`tracker\.com\/ads\/`)
    /// or one of its subdomains (`cdn\.tracker\.com\/x`): anchor it to that host and its
    /// subdomains. For a cloaked host, rules written from the tracker's own host apply with the
    /// cloaked host in its place; rules for a particular subdomain do not apply (`nil`).
    static func hostAnchoredRegex(_ rule: String, trackerDomain: String, host: String) -> String? {
        let escapedTracker = escapedHost(trackerDomain)
        let prefix = "^[^:]+:\\/\\/([^/:]*\\.)?"
        let regex: String
        if rule.hasPrefix(escapedTracker) {
            regex = prefix + escapedHost(host) + rule.dropFirst(escapedTracker.count)
        } else if rule.hasPrefix(trackerDomain) {
            regex = prefix + escapedHost(host) + rule.dropFirst(trackerDomain.count)
        } else if host == trackerDomain {
            regex = prefix + rule
        } else {
            return nil
        }
        // Not compiled here: the WebKit translator refuses malformed expressions with a reason.
        return regex
    }

    private static func escapedHost(_ host: String) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(host.utf8.count + 8)
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") { escaped.append(UInt8(ascii: "\\")) }
            escaped.append(byte)
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func resourceTypes(_ rule: TrackerDataSet.Tracker.Rule, subtractingExceptions: Bool) -> ResourceTypes? {
        let included = (rule.options?.types ?? []).compactMap(ResourceTypes.init(requestTypeName:))
        let excluded = subtractingExceptions ? (rule.exceptions?.types ?? []).compactMap(ResourceTypes.init(requestTypeName:)) : []
        if included.isEmpty && excluded.isEmpty { return nil }
        var types = included.isEmpty ? ResourceTypes.defaultTypes : ResourceTypes(included)
        types.subtract(ResourceTypes(excluded))
        return types
    }

    /// How the (long) list of the owner's sites is shown in rule texts.
    private static func ownerNote(_ tracker: TrackerDataSet.Tracker) -> String {
        guard let owner = tracker.owner?.ownedBy ?? tracker.owner?.name else { return "" }
        return " (except on sites of \(owner))"
    }

    private static func typeOptionText(_ types: ResourceTypes) -> String {
        var names: [String] = []
        var seen: ResourceTypes = []
        for (name, type) in ResourceTypes.optionNames where types.contains(type) && !seen.contains(type) {
            names.append(name)
            seen.insert(type)
        }
        return names.joined(separator: ",")
    }

    private static func domainOptionText(_ domains: DomainConstraint) -> String {
        "domain=" + (domains.included + domains.excluded.map { "~" + $0 }).joined(separator: "|")
    }
}
