import AppExtensionSupport
import AppSupport
import DNSFilter
import Foundation
import NetworkExtension
import PepperActions

/// The packet tunnel's VPN configuration: created once (the person approves it), started and
/// stopped from the Labor actions screen, and told to read the shared state again after a
/// change (policy, allowlist, a "Proceed"). Unless a device-management profile installed
/// Pepper's content filter: then the filter protects the device (`NetworkProtection`).
///
/// The configuration carries where the tunnel forwards the names it does not answer
/// (`TunnelUpstream`): the person's choice and the network's resolvers, read here before the
/// tunnel starts (`NetworkResolvers`), since once it runs the phone's resolver is the tunnel.
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

    /// The upstream to save for `choice`: the network's resolvers as read now, or (read while
    /// the tunnel runs, when the system names the tunnel) the ones saved before.
    private static func upstream(_ choice: DNSUpstreamChoice, saved: NEVPNProtocol?) -> TunnelUpstream {
        let previous =
            (try? TunnelUpstream(providerConfiguration: (saved as? NETunnelProviderProtocol)?.providerConfiguration))?
            .networkResolvers ?? []
        return TunnelUpstream(choice: choice, networkResolvers: TunnelUpstream.usableResolvers(NetworkResolvers.read(), previous: previous))
    }

    /// Turns DNS protection on or off (never while the content filter protects the device). On:
    /// the network's resolvers are read first and saved with `choice` in the configuration.
    static func set(on: Bool, choice: DNSUpstreamChoice) async throws {
        guard await protection().offersTunnelSwitch else { return }
        let manager = try await manager()
        if on, let configuration = manager.protocolConfiguration as? NETunnelProviderProtocol {
            // Refused before anything is saved: without a resolver every name would fail.
            configuration.providerConfiguration = try upstream(choice, saved: configuration).checked().providerConfiguration
        }
        manager.isEnabled = true
        try await manager.saveToPreferences()
        try await manager.loadFromPreferences()
        if on {
            try manager.connection.startVPNTunnel()
        } else {
            manager.connection.stopVPNTunnel()
        }
    }

    /// The person chose another upstream: it is saved in the configuration (for the next start)
    /// and sent to a running tunnel, which forwards there from the next query. Without a tunnel
    /// configured yet there is nothing to do (turning protection on saves the choice).
    ///
    /// - Throws: when the choice cannot work (the network's resolvers, none read) or iOS refuses
    ///   to save it or to reach the tunnel: the settings show it instead of a success.
    static func apply(_ choice: DNSUpstreamChoice) async throws {
        guard let manager = try await NETunnelProviderManager.loadAllFromPreferences().first,
            let configuration = manager.protocolConfiguration as? NETunnelProviderProtocol
        else { return }
        let chosen = try upstream(choice, saved: configuration).checked()
        configuration.providerConfiguration = chosen.providerConfiguration
        try await manager.saveToPreferences()
        if let session = manager.connection as? NETunnelProviderSession, session.status == .connected {
            try session.sendProviderMessage(TunnelMessage.upstream(chosen).data) { _ in }
        }
    }

    /// Stops the tunnel if it runs (the person chose encrypted DNS to their Pepper instead,
    /// `DNSSettingsPlan.stopsTunnel`); its configuration stays for when they come back.
    static func stop() async {
        guard let manager = try? await NETunnelProviderManager.loadAllFromPreferences().first else { return }
        switch manager.connection.status {
        case .connected, .connecting, .reasserting: manager.connection.stopVPNTunnel()
        default: break
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
        try? session.sendProviderMessage(TunnelMessage.reload.data) { _ in }
    }
}

/// The network's DNS resolvers, as the system gives them to this process: libresolv's
/// `res_ninit` and `res_getservers` (the resolver configuration iOS keeps for the current
/// network). libresolv has no Swift module in the SDK, so its three functions are looked up by
/// name in the system's `libresolv.9.dylib`.
enum NetworkResolvers {
    private typealias Initialize = @convention(c) (UnsafeMutableRawPointer) -> Int32
    private typealias Servers = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, Int32) -> Int32
    private typealias Destroy = @convention(c) (UnsafeMutableRawPointer) -> Void

    /// The resolvers, in the system's order; empty when libresolv cannot say.
    static func read() -> [ResolverAddress] {
        guard let library = dlopen("/usr/lib/libresolv.9.dylib", RTLD_LAZY) else { return [] }
        defer { dlclose(library) }
        guard let initialize = dlsym(library, "res_9_ninit"), let servers = dlsym(library, "res_9_getservers"),
            let destroy = dlsym(library, "res_9_ndestroy")
        else { return [] }
        // `struct __res_state` is about 550 bytes on iOS: room to spare, zeroed as res_ninit expects.
        let state = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        state.initializeMemory(as: UInt8.self, repeating: 0, count: 4096)
        defer { state.deallocate() }
        guard unsafeBitCast(initialize, to: Initialize.self)(state) == 0 else { return [] }
        defer { unsafeBitCast(destroy, to: Destroy.self)(state) }
        // `union res_sockaddr_union` is 128 bytes: a sockaddr_in or sockaddr_in6 at its start.
        let slots = 16
        let addresses = UnsafeMutableRawPointer.allocate(byteCount: 128 * slots, alignment: 16)
        addresses.initializeMemory(as: UInt8.self, repeating: 0, count: 128 * slots)
        defer { addresses.deallocate() }
        let count = Int(unsafeBitCast(servers, to: Servers.self)(state, addresses, Int32(slots)))
        return (0..<max(0, min(count, slots))).compactMap { index in address(at: addresses + 128 * index) }
    }

    private static func address(at pointer: UnsafeMutableRawPointer) -> ResolverAddress? {
        switch Int32(pointer.load(fromByteOffset: 1, as: UInt8.self)) {
        case AF_INET:
            let socket = pointer.load(as: sockaddr_in.self)
            let bytes = withUnsafeBytes(of: socket.sin_addr) { Array($0) }
            return ResolverAddress(host: IPAddress(ipv4: bytes[0], bytes[1], bytes[2], bytes[3]), port: port(socket.sin_port))
        case AF_INET6:
            let socket = pointer.load(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: socket.sin6_addr) { Array($0) }
            return ResolverAddress(host: IPAddress(ipv6Bytes: bytes), port: port(socket.sin6_port), scope: socket.sin6_scope_id)
        default:
            return nil
        }
    }

    /// A port in network order; 53 when libresolv leaves it unset.
    private static func port(_ value: in_port_t) -> Int {
        let port = Int(UInt16(bigEndian: value))
        return port == 0 ? 53 : port
    }
}
