/// The Public Suffix List (embedded): which part of a host name is its registrable domain
/// (`www.example.co.uk` → `example.co.uk`), the unit that decides first- and third-party.
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>
    /// The same rules as FNV-1a 64 hashes, for the byte-level lookups of the filter engine.
    private let ruleHashes: Set<UInt64>
    private let wildcardHashes: Set<UInt64>
    private let exceptionHashes: Set<UInt64>

    /// The embedded list.
    public static let shared = PublicSuffixList(rules: embeddedRules)

    /// A list read from its text (one rule per line, `//` comments, `*.` wildcards, `!` exceptions).
    public init(rules text: String) {
        var rules = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(separator: "\n") {
            let rule = line.trimmingPrefix(while: { $0 == " " })
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(String(rule))
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
        ruleHashes = Set(rules.map(Self.hash))
        wildcardHashes = Set(wildcards.map(Self.hash))
        exceptionHashes = Set(exceptions.map(Self.hash))
    }

    /// FNV-1a 64 of a string's UTF-8.
    public static func hash(_ text: some StringProtocol) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    /// FNV-1a 64 of `bytes[range]`.
    @inlinable
    public static func hash(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for index in range { hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01B3 }
        return hash
    }

    /// Where the registrable domain of the lower-case host at `host` in `bytes` starts (the
    /// host's start when the host is a public suffix or an IP address). Allocation-free.
    public func registrableDomainStart(in bytes: UnsafeBufferPointer<UInt8>, host: Range<Int>) -> Int {
        guard !host.isEmpty else { return host.lowerBound }
        // Label starts, most specific first (a host has few labels).
        var starts: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var allDigitsOrDots = true
        withUnsafeMutableBytes(of: &starts) { raw in
            let labels = raw.bindMemory(to: Int.self)
            labels[0] = host.lowerBound
            count = 1
            for index in host {
                let byte = bytes[index]
                if byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") { allDigitsOrDots = true; count = 0; return }
                if byte != UInt8(ascii: ".") && (byte < UInt8(ascii: "0") || byte > UInt8(ascii: "9")) { allDigitsOrDots = false }
                if byte == UInt8(ascii: "."), index + 1 < host.upperBound {
                    if count == labels.count {
                        // Keep the last labels only: a public suffix never has more than a few.
                        for shift in 1..<labels.count { labels[shift - 1] = labels[shift] }
                        count -= 1
                    }
                    labels[count] = index + 1
                    count += 1
                }
            }
        }
        if count == 0 || allDigitsOrDots { return host.lowerBound }  // IP address
        return withUnsafeBytes(of: &starts) { raw in
            let labels = raw.bindMemory(to: Int.self)
            for position in 0..<count {
                let start = labels[position]
                let hash = Self.hash(bytes, start..<host.upperBound)
                if exceptionHashes.contains(hash) {
                    // `!www.ck`: the suffix is the rule minus its first label; the registrable domain is the rule itself.
                    return start
                }
                var suffixStart: Int?
                if ruleHashes.contains(hash) {
                    suffixStart = start
                } else if position + 1 < count, wildcardHashes.contains(Self.hash(bytes, labels[position + 1]..<host.upperBound)) {
                    suffixStart = start
                }
                if let suffixStart {
                    guard position > 0 else { return host.lowerBound }  // the host is a public suffix
                    _ = suffixStart
                    return labels[position - 1]
                }
            }
            // The implicit "*" rule: the last label is the suffix.
            return count >= 2 ? labels[count - 2] : host.lowerBound
        }
    }

    /// The public suffix of a lower-case ASCII host (`co.uk` for `www.example.co.uk`).
    public func publicSuffix(of host: some StringProtocol) -> Substring {
        let host = Substring(host)
        var suffixStart = host.startIndex
        var labelStarts: [String.Index] = [host.startIndex]
        var index = host.startIndex
        while let dot = host[index...].firstIndex(of: ".") {
            index = host.index(after: dot)
            labelStarts.append(index)
        }
        // The first (longest) matching suffix wins; an exception rule removes its leftmost label.
        for (position, start) in labelStarts.enumerated() {
            let suffix = String(host[start...])
            if exceptions.contains(suffix) {
                return position + 1 < labelStarts.count ? host[labelStarts[position + 1]...] : host[start...]
            }
            if rules.contains(suffix) { return host[start...] }
            if position + 1 < labelStarts.count, wildcards.contains(String(host[labelStarts[position + 1]...])) {
                return host[start...]
            }
            suffixStart = start
        }
        return host[suffixStart...]  // the implicit "*" rule: the last label
    }

    /// The registrable domain (public suffix plus one label) of a lower-case ASCII host, or the
    /// host itself when it is a public suffix or an IP address.
    public func registrableDomain(of host: some StringProtocol) -> Substring {
        let host = Substring(host)
        if host.isEmpty || DomainName.isIPv4Address(host) || host.contains(":") { return host }
        let suffix = publicSuffix(of: host)
        guard suffix.startIndex > host.startIndex else { return host }
        let beforeSuffix = host[..<host.index(before: suffix.startIndex)]
        guard let dot = beforeSuffix.lastIndex(of: ".") else { return host }
        return host[host.index(after: dot)...]
    }

    /// Whether two hosts belong to the same site (the same registrable domain).
    public func isSameSite(_ first: some StringProtocol, _ second: some StringProtocol) -> Bool {
        registrableDomain(of: first) == registrableDomain(of: second)
    }
}
