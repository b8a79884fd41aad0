import AppExtensionSupport
import DNSFilter
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#else
import NetworkExtension
#endif

/// The packet tunnel: the device's DNS goes to an address inside the tunnel, and the tunnel
/// answers it — struck employers' domains per the Picket policy, everything else through the
/// upstream the person chose (`TunnelUpstream`, from the configuration the app saved: the
/// network's resolvers unless they chose a DNS-over-HTTPS server or their own Pepper).
/// `DNSTunnel` decides every answer and `TunnelPacketPump` bounds the work; this class only
/// sets the tunnel up and hands packets between the interface and them.
public final class PacketTunnelProvider: NEPacketTunnelProvider {
    private let openContainer: @Sendable () throws -> AppGroupContainer
    private let notifier: any PicketAskNotifier
    private let configured: DNSTunnel.Configuration?
    private let addresses: TunnelAddresses
    private var tunnel: DNSTunnel?
    private let pump = TunnelPacketPump.Handle()

    /// The provider as the system makes it: its app group comes from its bundle, its upstream
    /// from its configuration, and questions about struck employers' sites become notifications.
    public override init() {
        openContainer = { try AppGroupContainer.current() }
        notifier = NotificationAsker()
        configured = nil
        addresses = .pepper
        super.init()
    }

    /// A provider over `container` whose upstream comes from its configuration, as the
    /// system's, asking through `notifier` (tests).
    public init(container: AppGroupContainer, notifier: any PicketAskNotifier) {
        openContainer = { container }
        self.notifier = notifier
        configured = nil
        addresses = .pepper
        super.init()
    }

    /// A provider over `container` working as `configuration` says, asking through `notifier` (tests).
    public init(container: AppGroupContainer, configuration: DNSTunnel.Configuration, notifier: any PicketAskNotifier) {
        openContainer = { container }
        self.notifier = notifier
        configured = configuration
        addresses = configuration.addresses
        super.init()
    }

    /// Sets the tunnel's addresses, routes and DNS, then starts answering. (The completion-handler
    /// form: the `async` one would take the non-Sendable options across an isolation boundary.)
    public override func startTunnel(options: [String: NSObject]? = nil, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let tunnel: DNSTunnel
        do {
            let configuration = try configured ?? tunnelConfiguration()
            tunnel = DNSTunnel(container: try openContainer(), configuration: configuration, notifier: notifier)
        } catch {
            completionHandler(error)
            return
        }
        self.tunnel = tunnel
        let packets = TunnelInterface(flow: packetFlow)
        let pump = self.pump
        setTunnelNetworkSettings(Self.settings(addresses)) { error in
            // Reading starts only once the settings apply, as the flow requires.
            if error == nil { pump.start(tunnel: tunnel, read: { await packets.read() }, write: { packets.write($0) }) }
            completionHandler(error)
        }
    }

    /// Stops answering.
    public override func stopTunnel(with reason: NEProviderStopReason) async {
        pump.stop()
        tunnel = nil
    }

    /// The app changed the lists, the policy or the allowlist (read them again at the next
    /// query), or the upstream (forward the next queries there).
    public override func handleAppMessage(_ messageData: Data) async -> Data? {
        switch TunnelMessage(data: messageData) {
        case .reload: await tunnel?.reloadNow()
        case .upstream(let upstream): await tunnel?.forward(to: upstream.upstream())
        }
        return nil
    }

    /// The tunnel's work as the configuration the app saved says.
    private func tunnelConfiguration() throws -> DNSTunnel.Configuration {
        let saved = (protocolConfiguration as? NETunnelProviderProtocol)?.providerConfiguration
        return DNSTunnel.Configuration(
            addresses: addresses, upstream: try TunnelUpstream(providerConfiguration: saved).checked().upstream())
    }

    /// `addresses` as NetworkExtension settings: only the resolver's addresses are routed in.
    static func settings(_ addresses: TunnelAddresses) -> NEPacketTunnelNetworkSettings {
        let settings = NEPacketTunnelNetworkSettings(tunnelRemoteAddress: addresses.remoteAddress)
        let ipv4 = NEIPv4Settings(addresses: [addresses.interfaceIPv4.description], subnetMasks: [TunnelAddresses.hostMask])
        ipv4.includedRoutes = [NEIPv4Route(destinationAddress: addresses.resolverIPv4.description, subnetMask: TunnelAddresses.hostMask)]
        settings.ipv4Settings = ipv4
        let prefix = NSNumber(value: TunnelAddresses.hostPrefixLength)
        let ipv6 = NEIPv6Settings(addresses: [addresses.interfaceIPv6.description], networkPrefixLengths: [prefix])
        ipv6.includedRoutes = [NEIPv6Route(destinationAddress: addresses.resolverIPv6.description, networkPrefixLength: prefix)]
        settings.ipv6Settings = ipv6
        let dns = NEDNSSettings(servers: [addresses.resolverIPv4.description, addresses.resolverIPv6.description])
        dns.matchDomains = TunnelAddresses.everyDomain
        settings.dnsSettings = dns
        settings.mtu = NSNumber(value: addresses.mtu)
        return settings
    }
}

/// The tunnel interface's packets, for the pump's tasks.
///
/// `@unchecked Sendable`: Apple documents `NEPacketTunnelFlow` as safe to use from any thread,
/// but the SDK does not say so to Swift. The pump keeps one read outstanding at a time, as the
/// flow requires.
struct TunnelInterface: @unchecked Sendable {
    let flow: NEPacketTunnelFlow

    /// The next packets; `nil` never (the system stops the extension instead).
    func read() async -> [Data]? {
        let (packets, _) = await flow.readPackets()
        return packets
    }

    /// Writes a reply with its address family.
    func write(_ reply: UDPPacket) {
        let family = reply.version == .v4 ? AF_INET : AF_INET6
        _ = flow.writePackets([Data(reply.encoded())], withProtocols: [NSNumber(value: family)])
    }
}
