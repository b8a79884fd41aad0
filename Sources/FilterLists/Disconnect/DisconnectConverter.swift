import Foundation

/// Turns Disconnect's `services.json` (`categories` → entity → homepage → domains) into
/// network rules: third-party requests to the domains of the selected categories are blocked,
/// except on the sites of the entity that owns them.
public enum DisconnectConverter {
    /// The categories blocked when a source does not choose: tracking, not content (nor
    /// `Email`, `ConsentManagers`, `Anti-fraud`). Disconnect split `Fingerprinting` into
    /// `FingerprintingGeneral` and `FingerprintingInvasive`; all three names are here, so older
    /// and current lists block fingerprinting alike.
    public static let defaultCategories = [
        "Advertising", "Analytics", "Cryptomining", "Disconnect", "Fingerprinting", "FingerprintingGeneral", "FingerprintingInvasive",
        "Social",
    ]

    /// Converts a `services.json` document.
    ///
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - name: The list's name in reports.
    ///   - categories: Category names to block (case-insensitive); `nil` for the defaults.
    /// - Throws: ``FilterListError/invalidJSON(name:format:reason:)`` when it does not decode.
    public static func convert(json data: Data, name: String, categories: [String]? = nil) throws(FilterListError) -> ParsedFilterList {
        let categoryTable = try categoryTable(data, name: name)

        // First pass: every entity's own sites, across all categories.
        var entitySites: [String: Set<String>] = [:]
        var entries: [(category: String, entity: String, domains: [String])] = []
        var skippedDomains: [String] = []
        for category in categoryTable.keys.sorted() {
            for case let entityObject as [String: Any] in categoryTable[category] as? [Any] ?? [] {
                for entity in entityObject.keys.sorted() {
                    guard let homepages = entityObject[entity] as? [String: Any] else { continue }
                    var domains: [String] = []
                    for (homepage, value) in homepages {
                        guard let list = value as? [String] else { continue }  // flags such as "dnt"
                        if let host = URL(string: homepage)?.host, let site = try? DomainName.normalize(host) {
                            entitySites[entity, default: []].insert(site)
                        }
                        for domain in list {
                            if let normalized = try? DomainName.normalize(domain) {
                                domains.append(normalized)
                                entitySites[entity, default: []].insert(normalized)
                            } else {
                                skippedDomains.append(domain)
                            }
                        }
                    }
                    entries.append((category, entity, domains.sorted()))
                }
            }
        }

        let wanted = Set((categories ?? defaultCategories).map { $0.lowercased() })
        var list = ParsedFilterList(name: name, format: .disconnect)
        for domain in skippedDomains { list.skip(line: 0, text: domain, reason: .invalidDomain) }
        var emitted = Set<String>()
        var line = 0
        for entry in entries where wanted.contains(entry.category.lowercased()) {
            let exempt = (entitySites[entry.entity] ?? []).sorted()
            for domain in entry.domains where emitted.insert(domain).inserted {
                line += 1
                let constraint = DomainConstraint(excluded: exempt)
                let text = "||\(domain)^$third-party" + (exempt.isEmpty ? "" : ",domain=" + exempt.map { "~" + $0 }.joined(separator: "|"))
                list.networkRules.append(
                    NetworkRule(text: text, line: line, pattern: domain + "^", anchor: .host, party: .third, domains: constraint))
            }
        }
        list.lineCount = line
        list.metadata.title =
            "Disconnect (\(entries.filter { wanted.contains($0.category.lowercased()) }.map(\.category).uniqued().joined(separator: ", ")))"
        return list
    }

    /// The category names present in a `services.json` document.
    public static func categories(in data: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let table = root["categories"] as? [String: Any]
        else { return [] }
        return table.keys.sorted()
    }

    /// The categories of a `services.json` document, by name, each with how many distinct
    /// domains it lists (domains that are not valid names are not counted).
    ///
    /// - Throws: ``FilterListError/invalidJSON(name:format:reason:)`` when it does not decode.
    public static func categoryCounts(in data: Data, name: String) throws(FilterListError) -> [TrackerCategory] {
        let table = try categoryTable(data, name: name)
        return table.keys.sorted().map { category in
            var domains = Set<String>()
            for case let entityObject as [String: Any] in table[category] as? [Any] ?? [] {
                for case let homepages as [String: Any] in entityObject.values {
                    for case let list as [String] in homepages.values {
                        for domain in list { if let normalized = try? DomainName.normalize(domain) { domains.insert(normalized) } }
                    }
                }
            }
            return TrackerCategory(name: category, domains: domains.count)
        }
    }

    /// The `categories` object of a `services.json` document.
    private static func categoryTable(_ data: Data, name: String) throws(FilterListError) -> [String: Any] {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw FilterListError.invalidJSON(name: name, format: .disconnect, reason: "the top level is not an object")
            }
            root = object
        } catch let error as FilterListError {
            throw error
        } catch {
            throw .invalidJSON(name: name, format: .disconnect, reason: String(describing: error))
        }
        guard let table = root["categories"] as? [String: Any] else {
            throw .invalidJSON(name: name, format: .disconnect, reason: "no \"categories\" object")
        }
        return table
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
