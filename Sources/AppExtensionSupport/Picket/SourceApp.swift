import Foundation

/// The app behind a network flow, as the content filter's notification names it.
///
/// iOS gives a content filter the app's signing identifier (`NEFilterFlow.sourceAppIdentifier`):
/// the bundle identifier, after the developer's team identifier for apps from the App Store
/// (`ABCDE12345.com.example.app`). No public API turns another app's identifier into the name
/// on its icon, so a few well-known apps are named from a table and any other is named by its
/// bundle identifier, as iOS gave it.
public struct SourceApp: Sendable, Hashable, CustomStringConvertible {
    /// The bundle identifier (the signing identifier without the team identifier).
    public var bundleIdentifier: String
    /// The name people know it by, when the table has it.
    public var knownName: String?

    /// The app of a flow's `sourceAppIdentifier`; `nil` when there is none (iOS did not say).
    public init?(signingIdentifier: String?) {
        guard let raw = signingIdentifier?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        bundleIdentifier = Self.bundleIdentifier(of: raw)
        knownName = Self.knownNames[bundleIdentifier.lowercased()]
    }

    /// How a sentence names it: "Safari", or "the app com.example.shop".
    public var description: String {
        knownName ?? "the app \(bundleIdentifier)"
    }

    /// The signing identifier without a leading team identifier (ten capital letters and digits).
    static func bundleIdentifier(of signingIdentifier: String) -> String {
        let parts = signingIdentifier.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10,
            parts[0].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
        else { return signingIdentifier }
        return String(parts[1])
    }

    /// Apps whose bundle identifiers are well known, by lower-cased identifier: Apple's apps that
    /// reach the web, and widespread browsers and shopping, social and media apps.
    static let knownNames: [String: String] = [
        "com.apple.mobilesafari": "Safari",
        "com.apple.safariviewservice": "a web page opened from another app (Safari View)",
        "com.apple.mobilemail": "Mail",
        "com.apple.mobilesms": "Messages",
        "com.apple.maps": "Maps",
        "com.apple.news": "News",
        "com.apple.appstore": "App Store",
        "com.apple.music": "Music",
        "com.apple.podcasts": "Podcasts",
        "com.apple.weather": "Weather",
        "com.apple.stocks": "Stocks",
        "com.google.chrome.ios": "Chrome",
        "org.mozilla.ios.firefox": "Firefox",
        "com.duckduckgo.mobile.ios": "DuckDuckGo",
        "com.microsoft.msedge": "Microsoft Edge",
        "com.google.gmail": "Gmail",
        "com.amazon.amazon": "Amazon",
        "com.facebook.facebook": "Facebook",
        "com.burbn.instagram": "Instagram",
        "net.whatsapp.whatsapp": "WhatsApp",
        "com.google.ios.youtube": "YouTube",
        "com.spotify.client": "Spotify",
        "com.netflix.netflix": "Netflix",
        "com.ubercab.uberclient": "Uber",
    ]
}

/// Whether a notification can say which app made the connection, and if not, why.
public enum AppAttribution: Sendable, Hashable {
    /// The content filter's flow named the app.
    case app(SourceApp)
    /// The content filter's flow carried no app: iOS did not say.
    case notGiven
    /// A DNS lookup (the packet tunnel): DNS carries no app, so no one can say.
    case dnsLookup

    /// The attribution of a content-filter flow's `sourceAppIdentifier`.
    public init(flowSourceApp signingIdentifier: String?) {
        self = SourceApp(signingIdentifier: signingIdentifier).map(AppAttribution.app) ?? .notGiven
    }

    /// The sentence a notification adds about the app.
    public var sentence: String {
        switch self {
        case .app(let app): "\(Self.capitalized(app.description)) tried to connect."
        case .notGiven: "iOS did not say which app tried to connect."
        case .dnsLookup: "iOS does not tell DNS protection which app looked the name up."
        }
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
