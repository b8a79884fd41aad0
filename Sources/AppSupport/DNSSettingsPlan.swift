import DNSFilter
import Foundation
import PepperActions

/// What the app sets in iOS's DNS settings (`NEDNSSettingsManager`) for the person's choice of
/// DNS protection, and what the screen says about it: the whole decision, which the app's
/// `DNSSettingsControl` only carries out.
///
/// The packet tunnel and encrypted DNS exclude each other: choosing encrypted DNS to the
/// person's Pepper stops the tunnel, then saves the settings; choosing the tunnel removes
/// Pepper's DNS settings (and the tunnel switch is offered again).
public struct DNSSettingsPlan: Sendable, Hashable {
    /// The name iOS shows for Pepper's DNS settings (`localizedDescription`), in Settings ›
    /// General › VPN & Device Management › DNS.
    public static let localizedDescription = "Pepper"

    /// Where, in iOS's Settings app, the person selects Pepper's DNS settings: iOS applies them
    /// only then (`isEnabled`).
    public static let settingsPath = "Settings › General › VPN & Device Management › DNS"

    /// Encrypted DNS settings as iOS holds them: what the app saves, and what it reads back.
    public struct Settings: Sendable, Hashable {
        /// The server, by protocol.
        public enum Server: Sendable, Hashable {
            /// DNS over HTTPS: an `NEDNSOverHTTPSSettings` with this `serverURL`.
            case https(serverURL: URL)
            /// DNS over TLS: an `NEDNSOverTLSSettings` with this `serverName` (port 853).
            case tls(serverName: String)
        }

        /// The server.
        public var server: Server
        /// The server's IP addresses (`NEDNSSettings.servers`), which iOS connects to instead of
        /// looking the server's name up; empty when the person gave none.
        public var servers: [String]
        /// The name iOS shows (`NEDNSSettingsManager.localizedDescription`).
        public var localizedDescription: String

        /// Settings with the given fields.
        public init(server: Server, servers: [String], localizedDescription: String) {
            self.server = server
            self.servers = servers
            self.localizedDescription = localizedDescription
        }

        /// The protocol.
        public var transport: PepperDNSServer.Transport {
            switch server {
            case .https: .https
            case .tls: .tls
            }
        }

        /// `serverURL`, for DNS over HTTPS.
        public var serverURL: URL? {
            guard case .https(let url) = server else { return nil }
            return url
        }

        /// `serverName`, for DNS over TLS.
        public var serverName: String? {
            guard case .tls(let name) = server else { return nil }
            return name
        }
    }

    /// What iOS holds for Pepper, read with `loadFromPreferences`.
    public struct SystemState: Sendable, Hashable {
        /// Pepper's DNS settings (`dnsSettings` with `localizedDescription`), `nil` when none
        /// are saved or they are not encrypted DNS.
        public var saved: Settings?
        /// Whether the person selected them in Settings (`isEnabled`).
        public var isEnabled: Bool

        /// A state with the given fields.
        public init(saved: Settings?, isEnabled: Bool) {
            self.saved = saved
            self.isEnabled = isEnabled
        }
    }

    /// What the screen says about the settings, given what iOS holds.
    public struct Status: Sendable, Hashable {
        /// The cases the screen tells apart.
        public enum Kind: Sendable, Hashable {
            /// The tunnel is chosen and iOS holds no DNS settings of Pepper's.
            case packetTunnel
            /// The tunnel is chosen but Pepper's DNS settings are still saved (removing them
            /// failed): they must go, or both would filter.
            case settingsLeftOver
            /// Encrypted DNS is chosen but iOS holds other settings or none (saving failed, or
            /// the person deleted them in Settings): saving again puts them back.
            case notSaved
            /// Saved, not yet selected by the person in Settings: iOS does not apply them yet.
            case waitingForSelection
            /// Saved and selected: every name goes to the person's Pepper.
            case on
        }

        /// Which case.
        public var kind: Kind
        /// The sentence the screen shows.
        public var text: String

        /// Whether the person has something to do (shown as a warning).
        public var needsAction: Bool { kind != .packetTunnel && kind != .on }
    }

    /// The choice this plan carries out.
    public let choice: DNSProtectionChoice
    /// The settings to save, or `nil`: Pepper's DNS settings are removed.
    public let settings: Settings?

    /// Whether the packet tunnel must be stopped before the settings are saved.
    public var stopsTunnel: Bool { settings != nil }
    /// Whether Pepper's DNS settings are removed (from iOS's preferences).
    public var removesSettings: Bool { settings == nil }
    /// Whether the app offers the tunnel switch: only while the tunnel is chosen.
    public var offersTunnelSwitch: Bool { settings == nil }

    /// The plan for `choice`.
    public init(choice: DNSProtectionChoice) {
        self.choice = choice
        switch choice {
        case .packetTunnel:
            settings = nil
        case .encryptedDNS(let pepper):
            let server: Settings.Server
            switch pepper.transport {
            case .https:
                // EncryptedDNSEndpoint spells the URL; a checked server always has one.
                let url = pepper.endpoint.httpsURL(device: pepper.device).flatMap(URL.init(string:))!
                server = .https(serverURL: url)
            case .tls:
                server = .tls(serverName: pepper.endpoint.tlsServerName(device: pepper.device)!)
            }
            settings = Settings(
                server: server, servers: pepper.serverAddresses.map(\.description), localizedDescription: Self.localizedDescription)
        }
    }

    /// What the screen says, given what iOS holds: until the person selects Pepper in Settings,
    /// how to do it.
    public func status(_ system: SystemState) -> Status {
        guard case .encryptedDNS(let pepper) = choice, let settings else {
            if system.saved != nil {
                return Status(
                    kind: .settingsLeftOver,
                    text:
                        "Pepper's encrypted DNS settings are still saved on this phone: remove them (choose the tunnel again) before turning DNS protection on."
                )
            }
            return Status(
                kind: .packetTunnel,
                text: "DNS protection runs on this phone: turn it on in Labor actions (a VPN configuration you approve once).")
        }
        let reaching = "\(pepper.transport.description) to your Pepper at \(pepper.hostToReach), as \(pepper.device)"
        guard system.saved == settings else {
            return Status(kind: .notSaved, text: "This phone does not have Pepper's encrypted DNS settings (\(reaching)): save them again.")
        }
        guard system.isEnabled else {
            return Status(
                kind: .waitingForSelection,
                text: "Saved (\(reaching)). iOS uses them only once you select \(Self.localizedDescription) in \(Self.settingsPath).")
        }
        return Status(kind: .on, text: "On: every name this phone looks up goes, encrypted, by \(reaching).")
    }
}
