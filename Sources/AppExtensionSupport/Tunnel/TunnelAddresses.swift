import DNSFilter

/// The addresses of the packet tunnel that answers DNS (Apple/README.md): the device's resolver
/// is pointed at an address inside the tunnel, and only that address is routed into it, so the
/// tunnel sees DNS queries and nothing else — every other packet keeps its usual path.
///
/// The IPv4 addresses come from 198.18.0.0/15 (RFC 2544, benchmarking: never a real network),
/// the IPv6 ones from a unique-local prefix (RFC 4193).
public struct TunnelAddresses: Sendable, Hashable {
    /// The tunnel interface's IPv4 address.
    public var interfaceIPv4: IPAddress
    /// The resolver's IPv4 address (the only IPv4 destination routed into the tunnel).
    public var resolverIPv4: IPAddress
    /// The tunnel interface's IPv6 address.
    public var interfaceIPv6: IPAddress
    /// The resolver's IPv6 address (the only IPv6 destination routed into the tunnel).
    public var resolverIPv6: IPAddress
    /// What the tunnel settings give as the server's address (nothing is sent there).
    public var remoteAddress: String
    /// The interface's MTU.
    public var mtu: Int

    /// The addresses Pepper uses.
    public static let pepper = TunnelAddresses(
        interfaceIPv4: IPAddress(ipv4: 198, 18, 0, 1), resolverIPv4: IPAddress(ipv4: 198, 18, 0, 53),
        interfaceIPv6: IPAddress("fd70:6570:7065::1")!, resolverIPv6: IPAddress("fd70:6570:7065::53")!, remoteAddress: "127.0.0.1",
        mtu: 1500)

    /// The DNS port.
    public static let dnsPort: UInt16 = 53
    /// The IPv4 host mask (`NEIPv4Settings` takes masks, not prefix lengths).
    public static let hostMask = "255.255.255.255"
    /// The IPv6 host prefix length.
    public static let hostPrefixLength = 128
    /// The DNS match domains meaning "every name" (`NEDNSSettings.matchDomains`).
    public static let everyDomain = [""]

    /// Whether `packet` is a query to the tunnel's resolver.
    public func isResolverQuery(_ packet: UDPPacket) -> Bool {
        guard packet.destinationPort == Self.dnsPort else { return false }
        switch packet.version {
        case .v4: return packet.destination == resolverIPv4
        case .v6: return packet.destination == resolverIPv6
        }
    }
}
