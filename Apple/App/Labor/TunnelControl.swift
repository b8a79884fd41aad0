import AppExtensionSupport
import AppSupport
import Foundation
import NetworkExtension

/// The packet tunnel's VPN configuration: created once (the person approves it), started and
/// stopped from the Labor actions screen, and told to read the shared state again after a
/// change (policy, allowlist, a "Proceed"). Unless a device-management profile installed
/// Pepper's content filter: then the filter protects the device (`NetworkProtection`).
@MainActor
enum TunnelControl {
    /// Which extension protects this device: asks the system for a content-filter configuration.
    static func protection() async -> NetworkProtection {
        let manager = NEFilterManager.shared()
        try? await manager.loadFromPreferences()
        // The manager holds this app's configuration only: one is there when a profile installed it.
        let filter = manager.providerConfiguration.map { _ in NetworkProtection.FilterConfiguration(enabled: manager.isEnabled) }
        return NetworkProtection.choose(filter: filter)
    }

    /// The tunnel extension's bundle identifier.
    static var providerIdentifier: String { (Bundle.main.bundleIdentifier ?? "") + ".PacketTunnel" }

    /// Pepper's configuration, created when missing.
    static func manager() async throws -> NETunnelProviderManager {
        let managers = try await NETunnelProviderManager.loadAllFromPreferences()
        if let existing = managers.first { return existing }
        let manager = NETunnelProviderManager()
        let configuration = NETunnelProviderProtocol()
        configuration.providerBundleIdentifier = providerIdentifier
        configuration.serverAddress = "Pepper (on this device)"
        manager.protocolConfiguration = configuration
        manager.localizedDescription = "Pepper DNS protection"
        return manager
    }

    /// Turns DNS protection on or off (never while the content filter protects the device).
    static func set(on: Bool) async throws {
        guard await protection().offersTunnelSwitch else { return }
        let manager = try await manager()
        manager.isEnabled = true
        try await manager.saveToPreferences()
        try await manager.loadFromPreferences()
        if on {
            try manager.connection.startVPNTunnel()
        } else {
            manager.connection.stopVPNTunnel()
        }
    }

    /// Whether the tunnel is up.
    static func isOn() async -> Bool {
        guard let manager = try? await NETunnelProviderManager.loadAllFromPreferences().first else { return false }
        return manager.connection.status == .connected || manager.connection.status == .connecting
    }

    /// Has a running tunnel read the blocklist and allowlist again.
    static func reload() async {
        guard let manager = try? await NETunnelProviderManager.loadAllFromPreferences().first,
            let session = manager.connection as? NETunnelProviderSession, session.status == .connected
        else { return }
        try? session.sendProviderMessage(Data("reload".utf8)) { _ in }
    }
}
