import AppExtensionSupport
import DNSFilter
import Foundation

#if !canImport(ObjectiveC)
import AppleShims
#else
import NetworkExtension
import UserNotifications
#endif

/// The packet tunnel: the device's DNS goes to an address inside the tunnel, and the tunnel
/// answers it — struck employers' domains per the Picket policy, everything else through the
/// upstream. `DNSTunnel` decides every answer and `TunnelPacketPump` bounds the work; this class
/// only sets the tunnel up and hands packets between the interface and them.
public final class PacketTunnelProvider: NEPacketTunnelProvider {
    private let makeTunnel: () throws -> DNSTunnel
    private let addresses: TunnelAddresses
    private var tunnel: DNSTunnel?
    private let pump = TunnelPacketPump.Handle()

    /// The provider as the system makes it: its app group comes from its bundle, and questions
    /// about struck employers' sites become notifications.
    public override init() {
        addresses = .pepper
        makeTunnel = { DNSTunnel(container: try AppGroupContainer.current(), notifier: NotificationAsker()) }
        super.init()
    }

    /// A provider over `container`, asking through `notifier` (tests).
    public init(container: AppGroupContainer, configuration: DNSTunnel.Configuration, notifier: any PicketAskNotifier) {
        addresses = configuration.addresses
        makeTunnel = { DNSTunnel(container: container, configuration: configuration, notifier: notifier) }
        super.init()
    }

    /// Sets the tunnel's addresses, routes and DNS, then starts answering. (The completion-handler
    /// form: the `async` one would take the non-Sendable options across an isolation boundary.)
    public override func startTunnel(options: [String: NSObject]? = nil, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let tunnel: DNSTunnel
        do {
            tunnel = try makeTunnel()
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

    /// The app changed the lists, the policy or the allowlist: read them again at the next query.
    public override func handleAppMessage(_ messageData: Data) async -> Data? {
        await tunnel?.reloadNow()
        return nil
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

/// Shows the tunnel's questions as local notifications with Proceed and Block buttons.
public struct NotificationAsker: PicketAskNotifier {
    /// An asker through this process's notification centre.
    public init() {}

    public func ask(_ notification: PicketAskNotification) {
        // The notification centre is not Sendable: it is reached where it is used.
        UNUserNotificationCenter.current().add(Self.request(for: notification))
    }

    /// The notification request for a question: shown now, in the question's category (which
    /// carries the Proceed and Block buttons), with the host for the app's answer.
    public static func request(for notification: PicketAskNotification) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.categoryIdentifier = PicketAskNotification.category
        content.threadIdentifier = PicketAskNotification.category
        content.userInfo = notification.userInfo
        return UNNotificationRequest(identifier: notification.identifier, content: content, trigger: nil)
    }
}
