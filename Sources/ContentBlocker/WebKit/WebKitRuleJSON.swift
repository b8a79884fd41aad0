import Foundation

/// Writes and reads WebKit rule lists as JSON.
///
/// The writer is hand-made so that output is byte-for-byte deterministic (fixed key order,
/// one rule per line) and fast; the reader accepts any JSON WebKit accepts for the fields Pepper
/// emits, and is used by tests and by tools that inspect compiled output.
public enum WebKitRuleJSON {
    /// Appends the JSON array of `rules` to `output`.
    public static func write(_ rules: [WebKitRule], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        for (index, rule) in rules.enumerated() {
            output.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
            write(rule, into: &output)
        }
        output.append(contentsOf: [0x0A, UInt8(ascii: "]"), 0x0A])
    }

    /// The JSON array of `rules`.
    public static func encode(_ rules: [WebKitRule]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(rules.count * 128)
        write(rules, into: &output)
        return output
    }

    /// Appends one rule object.
    public static func write(_ rule: WebKitRule, into output: inout [UInt8]) {
        let trigger = rule.trigger
        append(#"{"trigger":{"url-filter":"#, to: &output)
        appendString(trigger.urlFilter, to: &output)
        if trigger.isCaseSensitive { append(#","url-filter-is-case-sensitive":true"#, to: &output) }
        switch trigger.domainCondition {
        case .ifDomain(let domains)?: appendArray("if-domain", domains, prefix: "*", to: &output)
        case .unlessDomain(let domains)?: appendArray("unless-domain", domains, prefix: "*", to: &output)
        case .ifTopURL(let urls)?: appendArray("if-top-url", urls, to: &output)
        case .unlessTopURL(let urls)?: appendArray("unless-top-url", urls, to: &output)
        case nil: break
        }
        if trigger.isTopURLCaseSensitive { append(#","top-url-filter-is-case-sensitive":true"#, to: &output) }
        if !trigger.resourceTypes.isEmpty {
            appendArray("resource-type", trigger.resourceTypes.map(\.rawValue), to: &output)
        }
        if let loadType = trigger.loadType { appendArray("load-type", [loadType.rawValue], to: &output) }
        if let loadContext = trigger.loadContext { appendArray("load-context", [loadContext.rawValue], to: &output) }
        append(#"},"action":{"type":""#, to: &output)
        append(rule.action.typeName, to: &output)
        output.append(UInt8(ascii: "\""))
        if case .cssDisplayNone(let selector) = rule.action {
            append(#","selector":"#, to: &output)
            appendString(selector, to: &output)
        }
        append("}}", to: &output)
    }

    @inline(__always)
    private static func append(_ text: String, to output: inout [UInt8]) {
        output.append(contentsOf: text.utf8)
    }

    private static func appendArray(_ key: String, _ values: [String], prefix: String = "", to output: inout [UInt8]) {
        append(",\"", to: &output)
        append(key, to: &output)
        append("\":[", to: &output)
        for (index, value) in values.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(value, prefix: prefix, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// Appends a JSON string literal, escaping quotes, backslashes and control characters.
    static func appendString(_ value: String, prefix: String = "", to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        if !prefix.isEmpty { output.append(contentsOf: prefix.utf8) }
        var value = value
        // Native strings are UTF-8 in one buffer: scan it and copy it whole when nothing needs
        // escaping (nearly always: domains and URL filters).
        value.withUTF8 { bytes in
            var clean = true
            for byte in bytes where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                clean = false
                break
            }
            if clean {
                output.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0..<0x20:
                    output.append(contentsOf: "\\u00".utf8)
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0xF))
                default: output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Why a rule list could not be read.
    public enum ReadError: Error, CustomStringConvertible {
        /// Not a JSON array of objects.
        case notAnArray
        /// A rule lacks a field or has one of the wrong type.
        case invalidRule(index: Int, reason: String)

        public var description: String {
            switch self {
            case .notAnArray: return "not a JSON array of rules"
            case .invalidRule(let index, let reason): return "rule \(index): \(reason)"
            }
        }
    }

    private static func site(_ entry: String) -> String {
        entry.hasPrefix("*") ? String(entry.dropFirst()) : entry
    }

    /// Reads a rule list written by ``encode(_:)`` (or by another converter).
    public static func decode(_ data: Data) throws -> [WebKitRule] {
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { throw ReadError.notAnArray }
        return try array.enumerated().map { index, object in
            guard let trigger = object["trigger"] as? [String: Any], let action = object["action"] as? [String: Any],
                let filter = trigger["url-filter"] as? String, let type = action["type"] as? String
            else { throw ReadError.invalidRule(index: index, reason: "missing trigger.url-filter or action.type") }
            var condition: WebKitRule.DomainCondition?
            // Pepper writes sites as `*site` (site and subdomains) and keeps them without the star.
            if let domains = trigger["if-domain"] as? [String] { condition = .ifDomain(domains.map(Self.site)) }
            if let domains = trigger["unless-domain"] as? [String] { condition = .unlessDomain(domains.map(Self.site)) }
            if let urls = trigger["if-top-url"] as? [String] { condition = .ifTopURL(urls) }
            if let urls = trigger["unless-top-url"] as? [String] { condition = .unlessTopURL(urls) }
            let types = try (trigger["resource-type"] as? [String] ?? []).map { name in
                guard let type = WebKitResourceType(rawValue: name) else {
                    throw ReadError.invalidRule(index: index, reason: "unknown resource-type \(name)")
                }
                return type
            }
            let decodedAction: WebKitRule.Action
            switch type {
            case "block": decodedAction = .block
            case "ignore-previous-rules": decodedAction = .ignorePreviousRules
            case "css-display-none": decodedAction = .cssDisplayNone(selector: action["selector"] as? String ?? "")
            default: throw ReadError.invalidRule(index: index, reason: "unsupported action \(type)")
            }
            return WebKitRule(
                trigger: .init(
                    urlFilter: filter, isCaseSensitive: trigger["url-filter-is-case-sensitive"] as? Bool ?? false,
                    resourceTypes: types,
                    loadType: (trigger["load-type"] as? [String])?.first.flatMap(WebKitRule.LoadType.init(rawValue:)),
                    loadContext: (trigger["load-context"] as? [String])?.first.flatMap(WebKitRule.LoadContext.init(rawValue:)),
                    domainCondition: condition,
                    isTopURLCaseSensitive: trigger["top-url-filter-is-case-sensitive"] as? Bool ?? false),
                action: decodedAction)
        }
    }
}
