import Crypto
import Foundation
import NIOCore
import Picket
import UTCTime

/// The body of `GET /api/blocklist.json`: the blocklist in the shape the other OPL clients
/// read (the public OPL DNS server and the browser extension), prepared once per content
/// revision so a request only copies a reference to the finished bytes.
///
/// The body is a JSON object keyed by employer name. Each value has `moreInfoUrl`,
/// `matchingUrlRegexes`, `startTime` and `actionDetails`, and every field is a string (`""`
/// when unknown): those clients drop a whole employer when one field has another type.
/// `matchingUrlRegexes` holds one plain host name per domain, because the OPL DNS server reads
/// each string as a URL and keeps only its host (a pattern such as `example\.com` would give it
/// nothing), while the browser clients accept a host name as a pattern too. `_meta` carries the
/// metadata; clients skip keys that start with `_`.
struct BlocklistFeed: Sendable {
    /// The finished body, newline included.
    let body: ByteBuffer
    /// SHA-256 over everything but `_meta` (whose `generatedAt` changes with every rebuild), as
    /// 64 hex digits: equal hashes mean equal employers and domains.
    let hash: String
    /// The keys the employers got, by employer identifier (see ``key(for:taken:)``).
    let keys: [String: String]

    /// The feed of `entries` (already de-duplicated across employers), each employer described
    /// by its most recently started current action.
    init(entries: [BlocklistEntry], employers: [String: EmployerRecord], actions: [String: ActionRecord], generatedAt: Date) {
        let domainsByEmployer = Dictionary(grouping: entries, by: \.employerId).mapValues { $0.map(\.url).sorted() }
        var keys: [String: String] = [:]
        var taken = Set<String>()
        var writer = JSONWriter(capacity: 600 * domainsByEmployer.count + 256)
        var employersWriter = JSONWriter(capacity: 600 * domainsByEmployer.count)
        // Identifier order: a name two employers share goes to the older identifier every time.
        for employerID in domainsByEmployer.keys.sorted() {
            guard let employer = employers[employerID], let action = actions[employerID] else { continue }
            let key = Self.key(for: employer, taken: &taken)
            keys[employerID] = key
            let learnMore = action.moreInfoUrl ?? employer.website ?? ""
            let startTime = ISO8601.format(action.startDate)
            var entry = JSONWriter(capacity: 600)
            entry.raw(",")
            entry.string(key)
            entry.raw(":{")
            entry.key("moreInfoUrl")
            entry.string(learnMore)
            entry.raw(",")
            entry.key("matchingUrlRegexes")
            entry.raw("[")
            for (index, domain) in domainsByEmployer[employerID, default: []].enumerated() {
                if index > 0 { entry.raw(",") }
                entry.string(domain)
            }
            entry.raw("],")
            entry.key("startTime")
            entry.string(startTime)
            entry.raw(",")
            entry.key("actionDetails")
            entry.raw("{")
            let details: [(StaticString, String)] = [
                ("id", action.id), ("organization", action.organization ?? ""), ("actionType", action.actionType),
                // Only approved actions that have started and not ended are published.
                ("status", "active"), ("startDate", startTime), ("description", action.description ?? ""),
                ("demands", action.demands ?? ""), ("location", action.location ?? ""), ("contactInfo", action.contactInfo ?? ""),
                ("unionLogoUrl", ""), ("learnMoreUrl", learnMore),
            ]
            for (index, (name, value)) in details.enumerated() {
                if index > 0 { entry.raw(",") }
                entry.key(name)
                entry.string(value)
            }
            entry.raw("}}")
            employersWriter.raw(entry.bytes)
        }
        self.keys = keys
        var hasher = SHA256()
        hasher.update(data: Array("pepper-picket-blocklist-v1|".utf8))
        hasher.update(data: employersWriter.bytes)
        hash = PublishedContent.hex(hasher.finalize())

        writer.raw("{")
        writer.key("_meta")
        writer.raw("{")
        writer.key("version")
        writer.string("1.0")
        writer.raw(",")
        writer.key("generatedAt")
        writer.string(ISO8601.format(generatedAt))
        writer.raw(",")
        writer.key("totalUrls")
        writer.integer(entries.count)
        writer.raw(",")
        writer.key("totalEmployers")
        writer.integer(keys.count)
        writer.raw(",")
        writer.key("contentHash")
        writer.string(hash)
        writer.raw("}")
        writer.raw(employersWriter.bytes)
        writer.raw("}\n")
        body = ByteBuffer(bytes: writer.bytes)
    }

    /// The key of `employer`: its name, without leading underscores (keys starting with `_`
    /// are metadata, which clients skip) and surrounding spaces; its identifier when nothing is
    /// left. A key already taken (two employers with the same name, compared exactly as JSON
    /// keys are) gets the identifier in parentheses: `Acme (emp_123)`.
    static func key(for employer: EmployerRecord, taken: inout Set<String>) -> String {
        var name = Substring(employer.name.trimmingCharacters(in: .whitespacesAndNewlines))
        while name.first == "_" { name = name.dropFirst() }
        var key = name.trimmingCharacters(in: .whitespaces)
        if key.isEmpty { key = employer.id }
        if !taken.insert(key).inserted {
            key = "\(key) (\(employer.id))"
            taken.insert(key)
        }
        return key
    }
}
