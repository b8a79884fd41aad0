#if !canImport(NetworkExtension)
import Foundation

// NetworkExtension's packet-tunnel and content-filter API, declared as the iOS SDK declares them
// (scripts/ios/shim_check.py compares the two). What the operating system does around a
// provider (attaching the packet flow, applying the network settings) is stood for by
// ``NEShimSystem``, which only tests see (`@_spi(ShimTesting)`): tests install a strict one.
//
// Apple's frameworks import each Objective-C method with a completion handler twice, as that
// method and as an `async` one, and a subclass overrides either. Here each form's default calls
// the other, so a provider may override either and the system (a test) calls the
// completion-handler form, as iOS does. A subclass must override one of the two.

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
    /// The device went to sleep (iOS 13).
    case sleep = 15
    /// The app is being updated (iOS 13).
    case appUpdate = 16
    /// An internal error (iOS 18.1).
    case internalError = 17
}

/// Stands for the operating system around a provider (shim only; Apple's frameworks have no
/// such type): the packet flow it attaches and what it does with network settings.
@_spi(ShimTesting)
open class NEShimSystem: @unchecked Sendable {
    /// The flow of the tunnel interface.
    open var packetFlow = NEPacketTunnelFlow()

    /// A system that accepts any settings.
    public init() {}

    /// The configuration the provider was started with (`NETunnelProvider.protocolConfiguration`).
    open var protocolConfiguration: NEVPNProtocol = NETunnelProviderProtocol()

    /// Applies settings; calls `completionHandler` with the outcome.
    open func apply(_ settings: NETunnelNetworkSettings?, completionHandler: (@Sendable ((any Error)?) -> Void)?) {
        completionHandler?(nil)
    }

    /// A filter control provider called `notifyRulesChanged()`: the system calls the data
    /// provider's `handleRulesChanged()`.
    open func filterRulesChanged(by provider: NEFilterControlProvider) {}
}

/// The base class of network-extension providers.
open class NEProvider: NSObject {
    /// Shim only: the operating system around the provider (set by tests before starting it).
    @_spi(ShimTesting) public var shimSystem = NEShimSystem()

    /// A provider (the system makes it).
    public override init() {
        super.init()
    }
}

/// A VPN configuration's protocol.
open class NEVPNProtocol: NSObject {}

/// The protocol of a tunnel provider's configuration.
open class NETunnelProviderProtocol: NEVPNProtocol {
    /// What the app configured the provider with (property-list values).
    open var providerConfiguration: [String: Any]?
    /// The bundle identifier of the provider's extension.
    open var providerBundleIdentifier: String?
}

/// A provider of a tunnel.
open class NETunnelProvider: NEProvider {
    /// The configuration the system started the provider with.
    open var protocolConfiguration: NEVPNProtocol { shimSystem.protocolConfiguration }

    /// A message from the containing app.
    open func handleAppMessage(_ messageData: Data, completionHandler: (@Sendable (Data?) -> Void)? = nil) {
        let provider = ShimTransfer(value: self)
        Task { completionHandler?(await provider.value.handleAppMessage(messageData)) }
    }

    /// A message from the containing app.
    open func handleAppMessage(_ messageData: Data) async -> Data? {
        await withCheckedContinuation { continuation in handleAppMessage(messageData) { continuation.resume(returning: $0) } }
    }

    /// Applies the tunnel's network settings (`nil` clears them).
    open func setTunnelNetworkSettings(
        _ tunnelNetworkSettings: NETunnelNetworkSettings?, completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        shimSystem.apply(tunnelNetworkSettings, completionHandler: completionHandler)
    }

    /// Applies the tunnel's network settings (`nil` clears them).
    open func setTunnelNetworkSettings(_ tunnelNetworkSettings: NETunnelNetworkSettings?) async throws {
        let settings = ShimTransfer(value: tunnelNetworkSettings)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            setTunnelNetworkSettings(settings.value) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}

/// The principal class of a packet-tunnel extension.
open class NEPacketTunnelProvider: NETunnelProvider {
    /// Starts the tunnel; `completionHandler` gets `nil` once it is up.
    open func startTunnel(options: [String: NSObject]? = nil, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let call = ShimTransfer(value: (self, options))
        Task {
            do {
                try await call.value.0.startTunnel(options: call.value.1)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    /// Starts the tunnel.
    open func startTunnel(options: [String: NSObject]? = nil) async throws {
        let options = ShimTransfer(value: options)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startTunnel(options: options.value) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Stops the tunnel.
    open func stopTunnel(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) {
        let provider = ShimTransfer(value: self)
        Task {
            await provider.value.stopTunnel(with: reason)
            completionHandler()
        }
    }

    /// Stops the tunnel.
    open func stopTunnel(with reason: NEProviderStopReason) async {
        await withCheckedContinuation { continuation in stopTunnel(with: reason) { continuation.resume() } }
    }

    /// Stops the tunnel from within.
    open func cancelTunnelWithError(_ error: (any Error)?) {}

    /// The tunnel interface's packets.
    open var packetFlow: NEPacketTunnelFlow { shimSystem.packetFlow }
}

/// The packets of the tunnel interface. Apple documents it as usable from any thread, but the
/// SDK does not declare it `Sendable`, and neither does this.
open class NEPacketTunnelFlow: NSObject {
    /// A flow (the system makes it).
    public override init() {
        super.init()
    }

    /// Reads the next packets; each call completes once.
    open func readPackets(completionHandler: @escaping @Sendable ([Data], [NSNumber]) -> Void) {}

    /// Reads the next packets.
    open func readPackets() async -> ([Data], [NSNumber]) {
        let read = await withCheckedContinuation { (continuation: CheckedContinuation<ShimTransfer<([Data], [NSNumber])>, Never>) in
            readPackets { packets, protocols in continuation.resume(returning: ShimTransfer(value: (packets, protocols))) }
        }
        return read.value
    }

    /// Writes packets; `protocols` holds each one's family (`AF_INET`, `AF_INET6`).
    open func writePackets(_ packets: [Data], withProtocols protocols: [NSNumber]) -> Bool { false }
}

/// A tunnel's network settings.
open class NETunnelNetworkSettings: NSObject {
    /// The address of the tunnel's server.
    open private(set) var tunnelRemoteAddress: String
    /// The tunnel's DNS.
    open var dnsSettings: NEDNSSettings?

    /// Settings for a tunnel to `address`.
    public init(tunnelRemoteAddress address: String) {
        tunnelRemoteAddress = address
        super.init()
    }
}

/// A packet tunnel's network settings.
open class NEPacketTunnelNetworkSettings: NETunnelNetworkSettings {
    /// Its IPv4 addresses and routes.
    open var ipv4Settings: NEIPv4Settings?
    /// Its IPv6 addresses and routes.
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

// MARK: The content filter

/// The base class of content-filter providers.
open class NEFilterProvider: NEProvider {
    /// Starts filtering; `completionHandler` gets `nil` once it runs.
    open func startFilter(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let provider = ShimTransfer(value: self)
        Task {
            do {
                try await provider.value.startFilter()
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    /// Starts filtering.
    open func startFilter() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startFilter { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Stops filtering.
    open func stopFilter(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) {
        let provider = ShimTransfer(value: self)
        Task {
            await provider.value.stopFilter(with: reason)
            completionHandler()
        }
    }

    /// Stops filtering.
    open func stopFilter(with reason: NEProviderStopReason) async {
        await withCheckedContinuation { continuation in stopFilter(with: reason) { continuation.resume() } }
    }
}

/// The principal class of a content-filter extension that sees network flows.
open class NEFilterDataProvider: NEFilterProvider {
    /// A flow opens: allow it, drop it, look at its data, or ask the control provider.
    open func handleNewFlow(_ flow: NEFilterFlow) -> NEFilterNewFlowVerdict { .allow() }

    /// The control provider changed the rules (`notifyRulesChanged()`): read them again.
    open func handleRulesChanged() {}
}

/// The principal class of a content-filter extension that keeps the data provider's rules:
/// it may reach the network and write to disk, which the data provider may not.
open class NEFilterControlProvider: NEFilterProvider {
    /// The data provider asked about `flow` (`needRules`): update the rules if needed, then
    /// say whether to allow or drop it; `completionHandler` is called once.
    open func handleNewFlow(_ flow: NEFilterFlow, completionHandler: @escaping @Sendable (NEFilterControlVerdict) -> Void) {
        let call = ShimTransfer(value: (self, flow))
        Task { completionHandler(await call.value.0.handleNewFlow(call.value.1)) }
    }

    /// The data provider asked about `flow`.
    open func handleNewFlow(_ flow: NEFilterFlow) async -> NEFilterControlVerdict {
        let flow = ShimTransfer(value: flow)
        let verdict = await withCheckedContinuation { (continuation: CheckedContinuation<ShimTransfer<NEFilterControlVerdict>, Never>) in
            handleNewFlow(flow.value) { continuation.resume(returning: ShimTransfer(value: $0)) }
        }
        return verdict.value
    }

    /// Tells the data provider that the rules changed.
    open func notifyRulesChanged() {
        shimSystem.filterRulesChanged(by: self)
    }
}

/// A network flow the filter judges.
open class NEFilterFlow: NSObject {
    @_spi(ShimTesting) public var shimURL: URL?
    @_spi(ShimTesting) public var shimSourceAppIdentifier: String?

    /// A flow (the system makes them; tests set its parts).
    @_spi(ShimTesting) public override init() {
        super.init()
    }

    /// The flow's URL, for browser flows.
    open var url: URL? { shimURL }
    /// The signing identifier of the app that opened the flow (iOS 11).
    open var sourceAppIdentifier: String? { shimSourceAppIdentifier }
}

/// A flow of a socket.
open class NEFilterSocketFlow: NEFilterFlow {
    @_spi(ShimTesting) public var shimRemoteHostname: String?

    /// The host name the app connected to, when it connected by name (iOS 14).
    open var remoteHostname: String? { shimRemoteHostname }
}

/// A filter's verdict.
open class NEFilterVerdict: NSObject {}

/// The verdict on a new flow.
open class NEFilterNewFlowVerdict: NEFilterVerdict {
    /// Which verdict it is (shim only: Apple's verdicts are opaque).
    @_spi(ShimTesting) public enum ShimKind: Sendable { case allow, drop, needRules, updateRules }
    @_spi(ShimTesting) public let shimKind: ShimKind

    fileprivate init(kind: ShimKind) {
        shimKind = kind
        super.init()
    }

    /// Let the flow through.
    open class func allow() -> NEFilterNewFlowVerdict { NEFilterNewFlowVerdict(kind: .allow) }

    /// Drop the flow.
    open class func drop() -> NEFilterNewFlowVerdict { NEFilterNewFlowVerdict(kind: .drop) }

    /// Ask the control provider about the flow (`handleNewFlow(_:completionHandler:)`).
    open class func needRules() -> NEFilterNewFlowVerdict { NEFilterNewFlowVerdict(kind: .needRules) }
}

/// The control provider's verdict on a flow the data provider asked about.
open class NEFilterControlVerdict: NEFilterNewFlowVerdict {
    /// Whether the data provider must read its rules again (shim only).
    @_spi(ShimTesting) public let shimUpdatesRules: Bool

    private init(kind: ShimKind, updatesRules: Bool) {
        shimUpdatesRules = updatesRules
        super.init(kind: kind)
    }

    /// Let the flow through; `updateRules`: the data provider reads its rules again.
    open class func allow(withUpdateRules updateRules: Bool) -> NEFilterControlVerdict {
        NEFilterControlVerdict(kind: .allow, updatesRules: updateRules)
    }

    /// Drop the flow; `updateRules`: the data provider reads its rules again.
    open class func drop(withUpdateRules updateRules: Bool) -> NEFilterControlVerdict {
        NEFilterControlVerdict(kind: .drop, updatesRules: updateRules)
    }

    /// The rules are updated: the data provider decides the flow again.
    open class func updateRules() -> NEFilterControlVerdict { NEFilterControlVerdict(kind: .updateRules, updatesRules: true) }
}
#endif
