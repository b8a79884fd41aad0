import DNSFilter
import Foundation
import PepperActions

/// Where the packet tunnel sends the names it does not answer itself, as the app hands it to
/// the tunnel: the person's choice (``DNSUpstreamChoice``, a setting) and the network's
/// resolvers, read by the app before the tunnel starts — once the tunnel's DNS settings apply,
/// the phone's resolver is the tunnel itself, so they cannot be read afterwards.
///
/// The app stores it in the tunnel's configuration (`NETunnelProviderProtocol.providerConfiguration`,
/// ``providerConfiguration``), which the provider reads when it starts, and sends it as an app
/// message (``TunnelMessage``) when the choice changes while the tunnel runs.
public struct TunnelUpstream: Sendable, Hashable, Codable {
    /// The person's choice.
    public var choice: DNSUpstreamChoice
    /// The network's resolvers, in the system's order.
    public var networkResolvers: [ResolverAddress]

    /// The upstream for `choice`, with the network's resolvers `networkResolvers`.
    public init(choice: DNSUpstreamChoice, networkResolvers: [ResolverAddress]) {
        self.choice = choice
        self.networkResolvers = networkResolvers
    }

    /// The keys of ``providerConfiguration``.
    public enum Key {
        /// The choice, as ``DNSUpstreamChoice/stored``.
        public static let choice = "dnsUpstream"
        /// The network's resolvers, as text (``ResolverAddress``).
        public static let networkResolvers = "networkResolvers"
    }

    /// The dictionary for `NETunnelProviderProtocol.providerConfiguration` (property-list types only).
    public var providerConfiguration: [String: Any] {
        [Key.choice: choice.stored, Key.networkResolvers: networkResolvers.map(\.description)]
    }

    /// The upstream a `providerConfiguration` describes.
    ///
    /// - Throws: ``TunnelUpstreamError`` naming what is missing or wrong.
    public init(providerConfiguration: [String: Any]?) throws(TunnelUpstreamError) {
        guard let configuration = providerConfiguration, let stored = configuration[Key.choice] as? String else {
            throw .notConfigured
        }
        do {
            choice = try DNSUpstreamChoice(stored: stored)
        } catch {
            throw .badChoice("\(error)")
        }
        let texts = configuration[Key.networkResolvers] as? [String] ?? []
        var resolvers: [ResolverAddress] = []
        for text in texts {
            guard let resolver = ResolverAddress(text) else { throw .badResolver(text) }
            resolvers.append(resolver)
        }
        networkResolvers = resolvers
    }

    /// This upstream, when it can forward: the network's resolvers need at least one address
    /// (the app could not read any, and none was saved before), or every name would fail.
    ///
    /// - Throws: ``TunnelUpstreamError/noNetworkResolvers``.
    public func checked() throws(TunnelUpstreamError) -> TunnelUpstream {
        guard choice != .network || !networkResolvers.isEmpty else { throw .noNetworkResolvers }
        return self
    }

    /// The resolvers the app read from the system, as the tunnel may use them: in order, without
    /// duplicates and without the tunnel's own resolver addresses (read while the tunnel runs,
    /// the system names the tunnel). When none is left, `previous` (the ones read before).
    public static func usableResolvers(
        _ read: [ResolverAddress], tunnel: TunnelAddresses = .pepper, previous: [ResolverAddress] = []
    ) -> [ResolverAddress] {
        var seen = Set<ResolverAddress>()
        let usable = read.filter { resolver in
            !resolver.host.isUnspecified && resolver.host != tunnel.resolverIPv4 && resolver.host != tunnel.resolverIPv6
                && resolver.host != tunnel.interfaceIPv4 && resolver.host != tunnel.interfaceIPv6 && seen.insert(resolver).inserted
        }
        return usable.isEmpty ? previous : usable
    }

    /// The upstream the tunnel forwards through. A DNS-over-HTTPS server named by a host name
    /// needs that name looked up first: those lookups (and only those) go to the network's
    /// resolvers, so that reaching the server never waits on the tunnel itself.
    public func upstream(timeout: TimeInterval = 5) -> any DNSUpstream {
        let network = PlainDNSUpstream(servers: networkResolvers, timeout: min(timeout, 2))
        switch choice {
        case .network:
            return network
        case .dnsOverHTTPS(let url):
            let encrypted = DNSOverHTTPSUpstream(url: url, timeout: timeout)
            guard let host = choice.serverNameToLookUp else { return encrypted }
            return BootstrappedUpstream(serverName: host, bootstrap: network, upstream: encrypted)
        case .pepper(let address):
            return PlainDNSUpstream(servers: [ResolverAddress(host: address.host, port: address.port)], timeout: min(timeout, 2))
        }
    }

    // Codable: the choice as its stored text, the resolvers as theirs (the app message's JSON).
    private enum CodingKeys: String, CodingKey {
        case choice = "dnsUpstream"
        case networkResolvers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try container.decode(String.self, forKey: .choice)
        let resolvers = try container.decode([String].self, forKey: .networkResolvers)
        do {
            try self.init(providerConfiguration: [Key.choice: stored, Key.networkResolvers: resolvers])
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(choice.stored, forKey: .choice)
        try container.encode(networkResolvers.map(\.description), forKey: .networkResolvers)
    }
}

/// Why the tunnel's configuration names no usable upstream.
public enum TunnelUpstreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The configuration has no upstream (it was not saved by this version of the app).
    case notConfigured
    /// The stored choice is not one Pepper takes; why.
    case badChoice(String)
    /// A network resolver that is not an address.
    case badResolver(String)
    /// The network's resolvers are chosen, but none could be read.
    case noNetworkResolvers

    public var description: String {
        switch self {
        case .notConfigured: "the VPN configuration names no DNS upstream: turn DNS protection off and on again in Pepper"
        case .badChoice(let reason): "the VPN configuration's DNS upstream cannot be used: \(reason)"
        case .badResolver(let text): "the VPN configuration's network resolver '\(text)' is not an address"
        case .noNetworkResolvers:
            "Pepper could not read this network's DNS resolvers: try again on this network, or choose a DNS-over-HTTPS server or your own Pepper"
        }
    }
}

/// What the app sends a running tunnel (`sendProviderMessage`): read the shared state again,
/// or use another upstream.
public enum TunnelMessage: Sendable, Hashable {
    /// The lists, the policy or the allowlist changed.
    case reload
    /// The person chose another upstream (or the network's resolvers were read again).
    case upstream(TunnelUpstream)

    private static let reloadBytes = Data("reload".utf8)

    /// The message as sent.
    public var data: Data {
        switch self {
        case .reload: return Self.reloadBytes
        case .upstream(let upstream): return (try? JSONEncoder().encode(upstream)) ?? Self.reloadBytes
        }
    }

    /// The message `data` carries; anything unreadable is a reload (the safe reading).
    public init(data: Data) {
        if data != Self.reloadBytes, let upstream = try? JSONDecoder().decode(TunnelUpstream.self, from: data) {
            self = .upstream(upstream)
        } else {
            self = .reload
        }
    }
}

/// Sends the lookups of one name — a DNS-over-HTTPS server's own — to `bootstrap`, and every
/// other query to `upstream`.
public struct BootstrappedUpstream: DNSUpstream {
    /// The server name whose lookups go to ``bootstrap`` (lower case).
    public let serverName: String
    /// Where the server name is looked up (the network's resolvers).
    public let bootstrap: any DNSUpstream
    /// Where everything else goes.
    public let upstream: any DNSUpstream

    /// An upstream that looks `serverName` up through `bootstrap`.
    public init(serverName: String, bootstrap: any DNSUpstream, upstream: any DNSUpstream) {
        self.serverName = serverName.lowercased()
        self.bootstrap = bootstrap
        self.upstream = upstream
    }

    /// The answer from ``bootstrap`` for a lookup of ``serverName``, else from ``upstream``.
    public func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        let name = (try? DNSMessage(decoding: query))?.questions.first?.name.lowercasedHost
        return try await (name == serverName ? bootstrap : upstream).resolve(query)
    }
}
