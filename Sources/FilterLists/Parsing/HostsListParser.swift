/// Reads hosts files (`0.0.0.0 ads.example.com`) and plain domain lists (`ads.example.com`)
/// into domain-blocking rules equivalent to `||ads.example.com^`.
enum HostsListParser {
    /// Names hosts files map to themselves; they are not blocking entries.
    private static let localNames: Set<String> = [
        "localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost", "ip6-loopback",
        "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters", "ip6-allhosts", "0.0.0.0",
    ]

    /// Whether a line has the shape `ADDRESS NAME ...`.
    static func looksLikeHostsLine(_ line: LineScanner.Line) -> Bool {
        guard let space = line.firstIndex(where: LineScanner.isSpace) else { return false }
        let address = line[line.startIndex..<space]
        return address.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: ":") || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
        } && address.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") })
    }

    /// Whether a line is a bare host name.
    static func looksLikeDomainLine(_ line: LineScanner.Line) -> Bool {
        var name = line
        if LineScanner.hasPrefix(name, "*.") { name = name.dropFirst(2) }
        return name.contains(UInt8(ascii: ".")) && name.allSatisfy { DomainName.isHostByte($0) || ($0 >= 65 && $0 <= 90) }
    }

    /// Parses one non-comment line of a hosts file into rules (one per name).
    static func parseHostsLine(_ text: String, line: Int, into list: inout ParsedFilterList) {
        let withoutComment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = withoutComment.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, looksLikeAddress(fields[0]) else {
            list.skip(line: line, text: text, reason: .invalidHostsLine)
            return
        }
        for name in fields.dropFirst() {
            addDomain(name, text: text, line: line, into: &list)
        }
    }

    /// Parses one non-comment line of a domain list.
    static func parseDomainLine(_ text: String, line: Int, into list: inout ParsedFilterList) {
        let withoutComment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = withoutComment.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 1 else {
            list.skip(line: line, text: text, reason: .invalidHostsLine)
            return
        }
        var name = fields[0]
        // Some domain lists write `*.example.com` or `.example.com` for "and subdomains", which is implied.
        if name.hasPrefix("*.") { name = name.dropFirst(2) } else if name.hasPrefix(".") { name = name.dropFirst() }
        addDomain(name, text: text, line: line, into: &list)
    }

    private static func addDomain(_ name: Substring, text: String, line: Int, into list: inout ParsedFilterList) {
        guard let host = try? DomainName.normalize(name) else {
            list.skip(line: line, text: text, reason: .invalidDomain)
            return
        }
        if localNames.contains(host) || DomainName.isIPv4Address(host) {
            list.commentCount += 1
            return
        }
        list.networkRules.append(NetworkRule(text: text, line: line, pattern: host + "^", anchor: .host))
    }

    private static func looksLikeAddress(_ field: Substring) -> Bool {
        DomainName.isIPv4Address(field) || (field.contains(":") && field.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." })
    }
}
