/// The syntaxes Pepper reads.
public enum FilterListFormat: String, CaseIterable, Hashable, Sendable, Codable {
    /// Adblock Plus / AdGuard / uBlock Origin filter syntax.
    case abp
    /// A hosts file (`0.0.0.0 ads.example.com`).
    case hosts
    /// One domain name per line.
    case domains
    /// DuckDuckGo's Tracker Radar blocking dataset (JSON).
    case tds
    /// Disconnect's `services.json` (JSON).
    case disconnect

    /// Whether the format is a JSON document rather than lines.
    public var isJSON: Bool { self == .tds || self == .disconnect }

    /// Guesses which JSON format a document is, from its top-level keys; `nil` if neither.
    public static func detectJSON(in bytes: UnsafeBufferPointer<UInt8>) -> FilterListFormat? {
        // Only the first kilobytes are looked at: the keys that tell come early in both formats.
        let head = String(decoding: bytes.prefix(65_536), as: UTF8.self)
        if head.contains("\"trackers\"") && (head.contains("\"entities\"") || head.contains("\"owner\"")) { return .tds }
        if head.contains("\"categories\"") { return .disconnect }
        return nil
    }

    /// Guesses the format from the first lines of a list.
    ///
    /// An `[Adblock Plus]` header or any line using filter syntax (`||`, `##`, `@@`, `$options`)
    /// means `abp`; lines of the form `ADDRESS NAME` mean `hosts`; bare names mean `domains`.
    public static func detect(in bytes: UnsafeBufferPointer<UInt8>) -> FilterListFormat {
        var hostsVotes = 0
        var domainVotes = 0
        var filterVotes = 0
        var examined = 0
        LineScanner.forEachLine(in: bytes) { line, _ in
            guard examined < 400 else { return false }
            let text = LineScanner.trimmed(line)
            guard !text.isEmpty else { return true }
            let first = text[text.startIndex]
            if first == UInt8(ascii: "[") {  // "[Adblock Plus 2.0]"
                filterVotes += 10
                return true
            }
            if first == UInt8(ascii: "!") {
                // Hosts files comment with '#'; a '!' header is Adblock Plus syntax.
                filterVotes += LineScanner.hasPrefix(text, "! Title:") || LineScanner.hasPrefix(text, "! Expires:") ? 1_000 : 1
                return true
            }
            if first == UInt8(ascii: "#") && !Self.startsCosmetic(text) { return true }
            examined += 1
            if HostsListParser.looksLikeHostsLine(text) {
                hostsVotes += 1
            } else if HostsListParser.looksLikeDomainLine(text) {
                domainVotes += 1
            } else if text.contains(UInt8(ascii: " ")) && !text.contains(UInt8(ascii: "#")) {
                // Prose or garbage: no vote (filter syntax has spaces only in selectors).
            } else {
                filterVotes += 1
            }
            return true
        }
        if filterVotes >= hostsVotes && filterVotes >= domainVotes && filterVotes > 0 { return .abp }
        if hostsVotes >= domainVotes && hostsVotes > 0 { return .hosts }
        if domainVotes > 0 { return .domains }
        return .abp
    }

    private static func startsCosmetic(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let markers = ["##", "#@#", "#?#", "#$#", "#%#", "#@?#", "#@$#", "#@%#"]
        return markers.contains { LineScanner.hasPrefix(text, $0) }
    }
}
