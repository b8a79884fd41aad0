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
/// upstream. `DNSTunnel` decides every answer; this class only sets the tunnel up and moves
/// packets between the interface and it.
public final class PacketTunnelProvider: NEPacketTunnelProvider {
    private let makeTunnel: (any PicketAskNotifier) throws -> DNSTunnel
    private let addresses: TunnelAddresses
    private let notificationCenter: UNUserNotificationCenter
    private var tunnel: DNSTunnel?

    /// The provider as the system makes it: its app group comes from its bundle.
    public override init() {
        addresses = .pepper
        notificationCenter = .current()
        makeTunnel = { notifier in DNSTunnel(container: try AppGroupContainer.current(), notifier: notifier) }
        super.init()
    }

    /// A provider over `container` (tests).
    public init(container: AppGroupContainer, configuration: DNSTunnel.Configuration, notificationCenter: UNUserNotificationCenter) {
        addresses = configuration.addresses
        self.notificationCenter = notificationCenter
        makeTunnel = { notifier in DNSTunnel(container: container, configuration: configuration, notifier: notifier) }
        super.init()
    }

    /// Sets the tunnel's addresses, routes and DNS, then starts answering.
    public override func startTunnel(options: [String: NSObject]?, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let tunnel: DNSTunnel
        do {
            tunnel = try makeTunnel(NotificationAsker(center: notificationCenter))
        } catch {
            completionHandler(error)
            return
        }
        self.tunnel = tunnel
        let flow = packetFlow
        setTunnelNetworkSettings(Self.settings(addresses)) { error in
            if error == nil { Self.readPackets(from: flow, into: tunnel) }
            completionHandler(error)
        }
    }

    /// Stops the tunnel.
    public override func stopTunnel(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) {
        tunnel = nil
        completionHandler()
    }

    /// The app changed the lists or the allowlist: read them again now.
    public override func handleAppMessage(_ messageData: Data, completionHandler: (@Sendable (Data?) -> Void)? = nil) {
        guard let tunnel else {
            completionHandler?(nil)
            return
        }
        Task {
            await tunnel.reloadNow()
            completionHandler?(nil)
        }
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

    /// Reads packets for as long as the system hands them over; each is answered on its own,
    /// so a slow upstream holds up no other query.
    private static func readPackets(from flow: NEPacketTunnelFlow, into tunnel: DNSTunnel) {
        flow.readPackets { packets, _ in
            for packet in packets {
                Task {
                    guard case .reply(let reply, _) = await tunnel.handle(Array(packet)) else { return }
                    let family = reply.version == .v4 ? AF_INET : AF_INET6
                    _ = flow.writePackets([Data(reply.encoded())], withProtocols: [NSNumber(value: family)])
                }
            }
            readPackets(from: flow, into: tunnel)
        }
    }
}

/// Shows the tunnel's questions as local notifications with Proceed and Block buttons.
/// (`@unchecked`: Apple documents the notification centre as usable from any thread; SDKs
/// differ in whether they say so to Swift.)
struct NotificationAsker: PicketAskNotifier, @unchecked Sendable {
    let center: UNUserNotificationCenter

    func ask(_ notification: PicketAskNotification) {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.categoryIdentifier = PicketAskNotification.category
        content.threadIdentifier = PicketAskNotification.category
        content.userInfo = notification.userInfo
        center.add(UNNotificationRequest(identifier: notification.identifier, content: content, trigger: nil))
    }
}
