import AppSupport
import Foundation
import NetworkExtension

/// iOS's DNS settings for Pepper (`NEDNSSettingsManager`, the `dns-settings` entitlement):
/// carries out a `DNSSettingsPlan` — stops the tunnel and saves encrypted DNS to the person's
/// Pepper, or removes Pepper's settings — and reads back what iOS holds, for the plan's status.
/// It decides nothing itself: `DNSSettingsPlan` does, tested on Linux.
@MainActor
enum DNSSettingsControl {
    /// What iOS holds for Pepper now.
    static func systemState() async throws -> DNSSettingsPlan.SystemState {
        let manager = NEDNSSettingsManager.shared()
        try await manager.loadFromPreferences()
        return state(of: manager)
    }

    /// Carries out `plan` and reads back what iOS then holds. iOS applies saved settings only
    /// once the person selects them in Settings (`isEnabled`), which the plan's status says.
    static func apply(_ plan: DNSSettingsPlan) async throws -> DNSSettingsPlan.SystemState {
        let manager = NEDNSSettingsManager.shared()
        try await manager.loadFromPreferences()
        if let settings = plan.settings {
            // The two exclude each other: the tunnel's resolver would take every name first.
            if plan.stopsTunnel { await TunnelControl.stop() }
            manager.dnsSettings = dnsSettings(settings)
            manager.localizedDescription = settings.localizedDescription
            try await manager.saveToPreferences()
        } else if plan.removesSettings, manager.dnsSettings != nil {
            try await manager.removeFromPreferences()
        }
        try await manager.loadFromPreferences()
        return state(of: manager)
    }

    /// Posted when iOS's DNS settings change (saved, removed, selected in Settings).
    static func changes() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let observer = NotificationCenter.default.addObserver(
                forName: .NEDNSSettingsConfigurationDidChange, object: nil, queue: .main
            ) { _ in continuation.yield() }
            let token = ObserverToken(observer)
            continuation.onTermination = { _ in NotificationCenter.default.removeObserver(token.observer) }
        }
    }

    /// The settings object for `settings`: `NEDNSOverHTTPSSettings` with its `serverURL`, or
    /// `NEDNSOverTLSSettings` with its `serverName`; `servers` are the addresses the person gave.
    private static func dnsSettings(_ settings: DNSSettingsPlan.Settings) -> NEDNSSettings {
        switch settings.server {
        case .https(let url):
            let https = NEDNSOverHTTPSSettings(servers: settings.servers)
            https.serverURL = url
            return https
        case .tls(let name):
            let tls = NEDNSOverTLSSettings(servers: settings.servers)
            tls.serverName = name
            return tls
        }
    }

    /// What `manager` holds, as the plan compares it.
    private static func state(of manager: NEDNSSettingsManager) -> DNSSettingsPlan.SystemState {
        let description = manager.localizedDescription ?? ""
        let saved: DNSSettingsPlan.Settings?
        switch manager.dnsSettings {
        case let https as NEDNSOverHTTPSSettings:
            saved = https.serverURL.map {
                DNSSettingsPlan.Settings(server: .https(serverURL: $0), servers: https.servers, localizedDescription: description)
            }
        case let tls as NEDNSOverTLSSettings:
            saved = tls.serverName.map {
                DNSSettingsPlan.Settings(server: .tls(serverName: $0), servers: tls.servers, localizedDescription: description)
            }
        default:
            saved = nil
        }
        return DNSSettingsPlan.SystemState(saved: saved, isEnabled: manager.isEnabled)
    }
}

/// A notification observer handed to the stream's termination handler, which may run on any
/// thread: NotificationCenter's `removeObserver` is safe from any thread.
private final class ObserverToken: @unchecked Sendable {
    let observer: any NSObjectProtocol
    init(_ observer: any NSObjectProtocol) { self.observer = observer }
}
