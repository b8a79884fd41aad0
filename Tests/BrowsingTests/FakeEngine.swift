import Browsing

/// A web engine's back/forward list as WebKit keeps it: loading pushes an item (dropping the
/// items ahead), going back or forward moves within the list. It reports to a session exactly
/// what the GTK shell reports from WebKitBackForwardList's `changed` signal.
struct FakeEngine {
    private(set) var items: [String] = []
    private(set) var position = -1
    /// Redirects applied when loading: requested → final address.
    var redirects: [String: String] = [:]

    var currentURL: String? { items.indices.contains(position) ? items[position] : nil }
    var canGoBack: Bool { position > 0 }

    /// Loads an address as the shell does for a typed address, a link or a stored entry.
    mutating func load(_ url: String, in session: BrowserSession) throws {
        let final = redirects[url] ?? url
        items.removeSubrange((position + 1)...)
        items.append(final)
        position += 1
        try session.engineAddedItem(url: final, originalURL: final == url ? nil : url)
        session.pageCommitted(url: final)
    }

    mutating func move(_ delta: Int, in session: BrowserSession) throws {
        precondition(items.indices.contains(position + delta), "the engine cannot move by \(delta)")
        position += delta
        try session.engineMoved(by: delta, url: items[position])
        session.pageCommitted(url: items[position])
    }

    /// Carries out a session's command.
    mutating func perform(_ command: NavigationCommand?, in session: BrowserSession) throws {
        switch command {
        case nil: break
        case .engineBack: try move(-1, in: session)
        case .engineForward: try move(1, in: session)
        case .load(let url): try load(url, in: session)
        }
    }
}
