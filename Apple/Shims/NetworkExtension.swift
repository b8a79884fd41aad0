#if !canImport(NetworkExtension)
import Foundation

// NetworkExtension's packet-tunnel API, declared with Apple's names and signatures. What the
// operating system does around a provider (attaching the packet flow, applying the network
// settings) is stood for by ``NEProvider/shimSystem``, which only exists here: tests install
// a strict one.

/// Why a provider is stopped (NEProvider.h).
public enum NEProviderStopReason: Int, Sendable {
    /// No specific reason.
    case none = 0
    /// The person stopped it.
    case userInitiated = 1
    /// The provider failed.
    case providerFailed = 2
    /// No network.
    case noNetworkAvailable = 3
    /// The network changed beyond recovery.
    case unrecoverableNetworkChange = 4
    /// The provider was disabled.
    case providerDisabled = 5
    /// Authentication was cancelled.
    case authenticationCanceled = 6
    /// The configuration is invalid.
    case configurationFailed = 7
    /// Idle for too long.
    case idleTimeout = 8
    /// The configuration was disabled.
    case configurationDisabled = 9
    /// The configuration was removed.
    case configurationRemoved = 10
    /// Another configuration took over.
    case superceded = 11
    /// The user logged out (macOS).
    case userLogout = 12
    /// The user switched (macOS).
    case userSwitch = 13
    /// The connection failed.
    case connectionFailed = 14
    /// The device went to sleep.
    case sleep = 15
    /// The app is being updated.
    case appUpdate = 16
}

/// Stands for the operating system around a provider (shim only; Apple's frameworks have no
/// such type): the packet flow it attaches and what it does with network settings.
open class NEShimSystem: @unchecked Sendable {
    /// The flow of the tunnel interface.
    open var packetFlow = NEPacketTunnelFlow()

    /// A system that accepts any settings.
    public init() {}

    /// Applies settings; calls `completionHandler` with the outcome.
    open func apply(_ settings: NETunnelNetworkSettings?, completionHandler: (@Sendable ((any Error)?) -> Void)?) {
        completionHandler?(nil)
    }
}

/// The base class of network-extension providers.
open class NEProvider: NSObject {
    /// Shim only: the operating system around the provider (set by tests before starting it).
    public var shimSystem = NEShimSystem()

    /// A provider (the system makes it).
    public override init() {
        super.init()
    }
}

/// A provider of a tunnel.
open class NETunnelProvider: NEProvider {
    /// Applies the tunnel's network settings (`nil` clears them).
    open func setTunnelNetworkSettings(
        _ tunnelNetworkSettings: NETunnelNetworkSettings?, completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        shimSystem.apply(tunnelNetworkSettings, completionHandler: completionHandler)
    }

    /// A message from the containing app.
    open func handleAppMessage(_ messageData: Data, completionHandler: (@Sendable (Data?) -> Void)? = nil) {
        completionHandler?(nil)
    }
}

/// The principal class of a packet-tunnel extension.
open class NEPacketTunnelProvider: NETunnelProvider {
    /// The tunnel interface's packets.
    open var packetFlow: NEPacketTunnelFlow { shimSystem.packetFlow }

    /// Starts the tunnel; `completionHandler` gets `nil` once it is up.
    open func startTunnel(options: [String: NSObject]? = nil, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {}

    /// Stops the tunnel.
    open func stopTunnel(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) {}

    /// Stops the tunnel from within.
    open func cancelTunnelWithError(_ error: (any Error)?) {}
}

/// The packets of the tunnel interface. Apple documents its instances as thread-safe.
open class NEPacketTunnelFlow: NSObject, @unchecked Sendable {
    /// A flow (the system makes it).
    public override init() {
        super.init()
    }

    /// Reads the next packets; each call completes once.
    open func readPackets(completionHandler: @escaping @Sendable ([Data], [NSNumber]) -> Void) {}

    /// Writes packets; `protocols` holds each one's family (`AF_INET`, `AF_INET6`).
    open func writePackets(_ packets: [Data], withProtocols protocols: [NSNumber]) -> Bool { false }
}

/// A tunnel's network settings.
open class NETunnelNetworkSettings: NSObject {
    /// The address of the tunnel's server.
    open private(set) var tunnelRemoteAddress: String
    /// The tunnel's DNS resolvers.
    open var dnsSettings: NEDNSSettings?

    /// Settings for a tunnel to `address`.
    public init(tunnelRemoteAddress address: String) {
        tunnelRemoteAddress = address
        super.init()
    }
}

/// A packet tunnel's network settings.
open class NEPacketTunnelNetworkSettings: NETunnelNetworkSettings {
    /// The IPv4 settings.
    open var ipv4Settings: NEIPv4Settings?
    /// The IPv6 settings.
    open var ipv6Settings: NEIPv6Settings?
    /// The interface's MTU.
    open var mtu: NSNumber?
}

/// IPv4 addresses and routes of a tunnel.
open class NEIPv4Settings: NSObject {
    /// The interface's addresses.
    open private(set) var addresses: [String]
    /// Their masks.
    open private(set) var subnetMasks: [String]
    /// The networks routed into the tunnel.
    open var includedRoutes: [NEIPv4Route]?
    /// The networks kept out of it.
    open var excludedRoutes: [NEIPv4Route]?

    /// Settings with these addresses.
    public init(addresses: [String], subnetMasks: [String]) {
        self.addresses = addresses
        self.subnetMasks = subnetMasks
        super.init()
    }
}

/// An IPv4 route.
open class NEIPv4Route: NSObject {
    /// The destination network.
    open private(set) var destinationAddress: String
    /// Its mask.
    open private(set) var destinationSubnetMask: String

    /// A route to `address`/`subnetMask`.
    public init(destinationAddress address: String, subnetMask: String) {
        destinationAddress = address
        destinationSubnetMask = subnetMask
        super.init()
    }
}

/// IPv6 addresses and routes of a tunnel.
open class NEIPv6Settings: NSObject {
    /// The interface's addresses.
    open private(set) var addresses: [String]
    /// Their prefix lengths.
    open private(set) var networkPrefixLengths: [NSNumber]
    /// The networks routed into the tunnel.
    open var includedRoutes: [NEIPv6Route]?
    /// The networks kept out of it.
    open var excludedRoutes: [NEIPv6Route]?

    /// Settings with these addresses.
    public init(addresses: [String], networkPrefixLengths: [NSNumber]) {
        self.addresses = addresses
        self.networkPrefixLengths = networkPrefixLengths
        super.init()
    }
}

/// An IPv6 route.
open class NEIPv6Route: NSObject {
    /// The destination network.
    open private(set) var destinationAddress: String
    /// Its prefix length.
    open private(set) var destinationNetworkPrefixLength: NSNumber

    /// A route to `address`/`networkPrefixLength`.
    public init(destinationAddress address: String, networkPrefixLength: NSNumber) {
        destinationAddress = address
        destinationNetworkPrefixLength = networkPrefixLength
        super.init()
    }
}

/// The DNS resolvers of a tunnel.
open class NEDNSSettings: NSObject {
    /// The resolvers' addresses.
    open private(set) var servers: [String]
    /// The domains whose names go to these resolvers; `[""]`: every name.
    open var matchDomains: [String]?

    /// Settings with these resolvers.
    public init(servers: [String]) {
        self.servers = servers
        super.init()
    }
}
#endif
