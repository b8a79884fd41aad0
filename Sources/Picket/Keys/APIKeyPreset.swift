import Foundation

/// A kind of client and the scopes its key needs, offered wherever keys are made
/// (`pepper picket keys create --preset`, `pepper picket serve --demo`, the console's API keys
/// page), so that each face makes the same key for the same client.
public enum APIKeyPreset: String, Sendable, Hashable, CaseIterable, Identifiable {
    /// The public OPL iOS and Android apps: they keep one key and use it to read
    /// (`/api/mobile/data`, which they also call to check a new key) and to submit strikes and
    /// GPS snapshots, so a key with only some of these scopes breaks half of the app.
    case mobileApps = "mobile-apps"

    /// How forms and the command line name it: `mobile-apps`.
    public var id: String { rawValue }

    /// Its scopes, in the order people read them.
    public var scopes: [APIScope] {
        switch self {
        case .mobileApps: return [.readMobile, .writeSubmitStrike, .writeGPSSnapshot]
        }
    }

    /// Who it is for, after "a key": `for the mobile apps`.
    public var purpose: String {
        switch self {
        case .mobileApps: return "for the mobile apps"
        }
    }

    /// The label a key made from it gets when none is given.
    public var defaultLabel: String {
        switch self {
        case .mobileApps: return "mobile apps"
        }
    }

    /// What the key lets the client do, in a sentence.
    public var explanation: String {
        switch self {
        case .mobileApps:
            return "The Online Picket Line iOS and Android apps keep one key to read the data and to report strikes and GPS snapshots."
        }
    }
}
