import Foundation

/// A search engine the address bar sends words to.
public enum SearchEngine: String, CaseIterable, Codable, Sendable {
    /// DuckDuckGo: the default, because it does not profile its users.
    case duckDuckGo = "duckduckgo"
    /// Startpage.
    case startpage
    /// Brave Search.
    case brave
    /// Google.
    case google

    /// The name shown to people.
    public var displayName: String {
        switch self {
        case .duckDuckGo: return "DuckDuckGo"
        case .startpage: return "Startpage"
        case .brave: return "Brave Search"
        case .google: return "Google"
        }
    }

    /// The results page for `query`.
    public func searchURL(for query: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = query.addingPercentEncoding(withAllowedCharacters: allowed) ?? query
        switch self {
        case .duckDuckGo: return "https://duckduckgo.com/?q=\(encoded)"
        case .startpage: return "https://www.startpage.com/do/search?q=\(encoded)"
        case .brave: return "https://search.brave.com/search?q=\(encoded)"
        case .google: return "https://www.google.com/search?q=\(encoded)"
        }
    }
}

/// What the address bar does with what was typed: open an address, or search for words.
public enum AddressInput: Hashable, Sendable {
    /// An address to open.
    case address(String)
    /// Words to search for.
    case search(String)

    /// Reads typed text the way browsers do: anything with a scheme is an address
    /// (`http:`, `https:`, `file:`, `about:`, `data:`); so is a single word that looks like a
    /// host — it has a dot and a letter-only last label (`example.com`, `news.example/path`),
    /// is `localhost`, an IPv4 address, or ends in a port (`host:8080`) — and gets `https://`
    /// (`http://` for `localhost` and IP addresses). Everything else, spaces included, is a search.
    /// Returns `nil` for blank input.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let lower = trimmed.lowercased()
        for scheme in ["http://", "https://", "file:", "about:", "data:"] where lower.hasPrefix(scheme) {
            self = .address(trimmed)
            return
        }
        guard !trimmed.contains(where: \.isWhitespace) else {
            self = .search(trimmed)
            return
        }
        let hostAndPort = lower.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? lower
        var host = hostAndPort
        var hasPort = false
        if let colon = hostAndPort.lastIndex(of: ":") {
            let port = hostAndPort[hostAndPort.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else {
                self = .search(trimmed)
                return
            }
            host = String(hostAndPort[..<colon])
            hasPort = true
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let isIPv4 = labels.count == 4 && labels.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
        let validLabels =
            !host.isEmpty
            && labels.allSatisfy { label in
                !label.isEmpty && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
            }
        if host == "localhost" || isIPv4 {
            self = .address("http://" + trimmed)
        } else if validLabels && (labels.count >= 2 && labels.last!.allSatisfy(\.isLetter) || hasPort) {
            self = .address("https://" + trimmed)
        } else {
            self = .search(trimmed)
        }
    }

    /// The address to load: the typed address, or `engine`'s results page for the words.
    public func url(searchingWith engine: SearchEngine) -> String {
        switch self {
        case .address(let url): return url
        case .search(let words): return engine.searchURL(for: words)
        }
    }
}
