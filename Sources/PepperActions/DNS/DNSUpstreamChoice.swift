import DNSFilter
import Foundation
import Storage

/// Where the phone's DNS protection (the iOS packet tunnel) sends the names it does not answer
/// itself: the person's choice, stored in the state's preferences (`dns.upstream`). Pepper
/// names no resolver of its own: without a choice the network's resolvers are used, as they
/// would be without Pepper.
public enum DNSUpstreamChoice: Sendable, Hashable, CustomStringConvertible {
    /// The resolvers of the network the phone is on, read by the app before the tunnel starts
    /// (the default).
    case network
    /// A DNS-over-HTTPS server (RFC 8484) of the person's choice.
    case dnsOverHTTPS(URL)
    /// The person's own Pepper: the address `pepper dns serve --listen` was given on a machine
    /// of their network (plain DNS over UDP).
    case pepper(ListenAddress)

    /// The three kinds, as a form offers them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// ``DNSUpstreamChoice/network``.
        case network
        /// ``DNSUpstreamChoice/dnsOverHTTPS(_:)``.
        case dnsOverHTTPS = "dns-over-https"
        /// ``DNSUpstreamChoice/pepper(_:)``.
        case pepper

        /// How a form names it.
        public var label: String {
            switch self {
            case .network: "The network's resolvers"
            case .dnsOverHTTPS: "A DNS-over-HTTPS server"
            case .pepper: "Your own Pepper"
            }
        }
    }

    /// The default: the network's resolvers.
    public static let `default` = DNSUpstreamChoice.network

    /// Its kind.
    public var kind: Kind {
        switch self {
        case .network: .network
        case .dnsOverHTTPS: .dnsOverHTTPS
        case .pepper: .pepper
        }
    }

    /// The address the person gave (`nil` for the network's resolvers).
    public var address: String? {
        switch self {
        case .network: nil
        case .dnsOverHTTPS(let url): url.absoluteString
        case .pepper(let address): address.description
        }
    }

    /// The choice of `kind` at `address` (ignored for the network's resolvers), checked.
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` naming `address`, with what a usable
    ///   address looks like.
    public init(kind: Kind, address: String) throws(ActionError) {
        let text = address.trimmingCharacters(in: .whitespacesAndNewlines)
        switch kind {
        case .network:
            self = .network
        case .dnsOverHTTPS:
            guard text.lowercased().hasPrefix("https://") else {
                throw .invalidField(field: "address", problem: .dnsOverHTTPSAddressNeeded("it does not start with https://"))
            }
            let parsed: UpstreamAddress
            do {
                parsed = try UpstreamAddress(text)
            } catch {
                throw .invalidField(field: "address", problem: .dnsOverHTTPSAddressNeeded(error.reason))
            }
            guard case .https(let url, _, _, _) = parsed, let value = URL(string: url) else {
                throw .invalidField(field: "address", problem: .dnsOverHTTPSAddressNeeded("it is not an https:// address"))
            }
            self = .dnsOverHTTPS(value)
        case .pepper:
            let parsed: ListenAddress
            do {
                parsed = try ListenAddress(text)
            } catch {
                throw .invalidField(field: "address", problem: .dnsServerAddressNeeded("'\(text)' is not IP:PORT"))
            }
            guard parsed.port != 0 else { throw .invalidField(field: "address", problem: .dnsServerAddressNeeded("the port is 0")) }
            guard !parsed.host.isLoopback, !parsed.host.isUnspecified else {
                throw .invalidField(
                    field: "address",
                    problem: .dnsServerAddressNeeded("\(parsed.host) is the phone itself, not the machine that runs pepper dns serve"))
            }
            self = .pepper(parsed)
        }
    }

    /// The choice as stored: `network`, `dns-over-https URL` or `pepper IP:PORT`.
    public var stored: String {
        address.map { "\(kind.rawValue) \($0)" } ?? kind.rawValue
    }

    /// The choice stored as ``stored`` (checked again: the text comes from outside the process).
    public init(stored text: String) throws(ActionError) {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first, let kind = Kind(rawValue: first) else {
            throw .invalidField(field: "kind", problem: .unknownChoice(Kind.allCases.map(\.rawValue)))
        }
        try self.init(kind: kind, address: parts.count == 2 ? parts[1] : "")
    }

    public var description: String {
        switch self {
        case .network: "the network's resolvers"
        case .dnsOverHTTPS(let url): "the DNS-over-HTTPS server \(url.absoluteString)"
        case .pepper(let address): "your Pepper at \(address)"
        }
    }

    /// The DNS-over-HTTPS server's name when it must be looked up, through the network's
    /// resolvers, before the server can be reached: `nil` for the other choices and for a server
    /// given by its address. The tunnel does this lookup and ``privacyStatement`` says so, from
    /// this one answer.
    public var serverNameToLookUp: String? {
        guard case .dnsOverHTTPS(let url) = self, let host = url.host?.lowercased(),
            IPAddress(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) == nil
        else { return nil }
        return host
    }

    /// What leaves the phone with this choice: said on the settings screen, in the same words
    /// as `Apple/README.md`. Names of struck employers that the policy blocks or asks about
    /// never leave it; every other name the phone looks up does, to the chosen resolver.
    public var privacyStatement: String {
        let kept =
            "Names of struck employers' sites under the ask and block policies are answered on the phone and never sent."
        switch self {
        case .network:
            return kept
                + " Every other name the phone looks up goes, unencrypted, to the resolvers of the network you are on, as it would without Pepper."
        case .dnsOverHTTPS(let url):
            let host = url.host ?? url.absoluteString
            let lookup = serverNameToLookUp.map { " Its own name, \($0), is looked up through the network's resolvers." } ?? ""
            return kept
                + " Every other name the phone looks up goes, encrypted, to \(host), which sees the names and your IP address."
                + lookup
        case .pepper(let address):
            return kept
                + " Every other name the phone looks up goes, unencrypted, to your Pepper at \(address): only on a network where that address is yours."
        }
    }
}

extension PepperState {
    /// Where the phone's DNS protection sends the names it does not answer itself.
    public func dnsUpstreamChoice() throws(ActionError) -> DNSUpstreamChoice {
        let stored: String?
        do {
            stored = try PreferenceStore(database: database).value(.dnsUpstream)
        } catch {
            throw .storage("cannot read the DNS upstream setting: \(error)")
        }
        guard let stored else { return .default }
        return try DNSUpstreamChoice(stored: stored)
    }

    /// Sets where the phone's DNS protection sends the names it does not answer itself.
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` for an unusable address (nothing
    ///   is stored then).
    @discardableResult
    public func setDNSUpstream(kind: DNSUpstreamChoice.Kind, address: String) throws(ActionError) -> DNSUpstreamChoice {
        let choice = try DNSUpstreamChoice(kind: kind, address: address)
        do {
            try PreferenceStore(database: database).set(.dnsUpstream, choice == .default ? nil : choice.stored)
        } catch {
            throw .storage("cannot save the DNS upstream setting: \(error)")
        }
        return choice
    }
}
