import DNSFilter
import FilterLists
import Foundation
import Storage

/// How the phone's DNS is filtered: the person's choice, stored in the state's preferences
/// (`dns.protection`). The two exclude each other: iOS would send each name through one or the
/// other, never both.
public enum DNSProtectionChoice: Sendable, Hashable {
    /// Pepper's packet tunnel on the phone answers struck employers' names and forwards the rest
    /// where ``DNSUpstreamChoice`` says (the default).
    case packetTunnel
    /// iOS's DNS settings send every name, encrypted, to the person's own Pepper (`pepper dns
    /// serve` with its DoH or DoT listener), which filters it: no tunnel on the phone.
    case encryptedDNS(PepperDNSServer)

    /// The two kinds, as a form offers them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// ``DNSProtectionChoice/packetTunnel``.
        case packetTunnel = "tunnel"
        /// ``DNSProtectionChoice/encryptedDNS(_:)``.
        case encryptedDNS = "encrypted-dns"

        /// How a form names it.
        public var label: String {
            switch self {
            case .packetTunnel: "Pepper on this phone (a VPN)"
            case .encryptedDNS: "Encrypted DNS to my Pepper"
            }
        }
    }

    /// The default: the packet tunnel.
    public static let `default` = DNSProtectionChoice.packetTunnel

    /// Its kind.
    public var kind: Kind {
        switch self {
        case .packetTunnel: .packetTunnel
        case .encryptedDNS: .encryptedDNS
        }
    }
}

/// The person's own Pepper as the phone's encrypted DNS server: its name, how the phone reaches
/// it, and the name this phone gives itself there (so that the server's log, client groups and
/// metrics tell the phone apart without knowing its address). Built only from a checked
/// ``Form``; the addresses the phone is given are `EncryptedDNSEndpoint`'s (DNSFilter).
public struct PepperDNSServer: Sendable, Hashable {
    /// How the phone reaches the server: DNS over HTTPS (the device name in the URL's path) or
    /// DNS over TLS (the device name as the first label of the server name).
    public typealias Transport = EncryptedDNSTransport

    /// The only DNS-over-TLS port iOS uses: its DNS settings take a server name and addresses,
    /// no port (Apple's documentation of `NEDNSOverTLSSettings.serverName`: "accessed over TCP
    /// port 853, as defined in RFC 7858").
    public static let iOSTLSPort = 853

    /// The most addresses the phone is given for the server.
    public static let maximumServerAddresses = 8

    /// The server's name as its certificate names it (`dns.example.net`), lowercase.
    public let serverName: String
    /// How the phone reaches it.
    public let transport: Transport
    /// The DNS-over-HTTPS port.
    public let httpsPort: Int
    /// The DNS-over-TLS port (``iOSTLSPort`` when ``transport`` is `.tls`).
    public let tlsPort: Int
    /// This phone's name on the server.
    public let device: DNSDeviceName
    /// The server's IP addresses, when the person gave them: iOS then connects to them instead
    /// of looking the server's name up (empty: the name is looked up through the network's
    /// resolvers).
    public let serverAddresses: [IPAddress]

    /// Where the server answers.
    public var endpoint: EncryptedDNSEndpoint {
        EncryptedDNSEndpoint(serverName: serverName, httpsPort: httpsPort, tlsPort: tlsPort)
    }

    /// The host name iOS must reach: the server's name for DNS over HTTPS (the device is in the
    /// path), `DEVICE.SERVER` for DNS over TLS (`EncryptedDNSEndpoint.tlsServerName(device:)`).
    public var hostToReach: String {
        switch transport {
        case .https: serverName
        case .tls: endpoint.tlsServerName(device: device) ?? serverName
        }
    }

    /// The server as a form shows it.
    public var form: Form {
        Form(
            serverName: serverName, transport: transport, httpsPort: String(httpsPort), tlsPort: String(tlsPort), device: device.value,
            serverAddresses: serverAddresses.map(\.description).joined(separator: ", "))
    }

    /// The server the form describes.
    ///
    /// - Throws: ``Form/Problems``, every field's problem at once.
    public init(_ form: Form) throws(Form.Problems) {
        var problems: [Form.Field: FieldProblem] = [:]
        let serverName = Self.serverName(form.serverName, problem: &problems)
        let httpsPort = Self.port(form.httpsPort, default: 443, field: .httpsPort, problem: &problems)
        let tlsPort = Self.port(form.tlsPort, default: Self.iOSTLSPort, field: .tlsPort, problem: &problems)
        if form.transport == .tls, let tlsPort, tlsPort != Self.iOSTLSPort {
            problems[.tlsPort] = .dnsOverTLSPortIs853(tlsPort)
        }
        var device: DNSDeviceName?
        do {
            device = try DNSDeviceName(form.device.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            problems[.device] = .deviceNameNeeded(error)
        }
        if form.transport == .tls, let serverName, let device, device.value.utf8.count + 1 + serverName.utf8.count > 253 {
            problems[.device] = .deviceServerNameTooLong("\(device.value).\(serverName)")
        }
        let addresses = Self.addresses(form.serverAddresses, problem: &problems)
        guard problems.isEmpty, let serverName, let httpsPort, let tlsPort, let device, let addresses else {
            throw Form.Problems(byField: problems)
        }
        self.serverName = serverName
        self.transport = form.transport
        self.httpsPort = httpsPort
        self.tlsPort = tlsPort
        self.device = device
        self.serverAddresses = addresses
    }

    private static func serverName(_ text: String, problem: inout [Form.Field: FieldProblem]) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        do throws(ActionError) {
            try FieldLimits.check(trimmed, field: Form.Field.serverName.rawValue, what: "a server name", limit: 253)
        } catch {
            if case .invalidField(_, let tooLong) = error { problem[.serverName] = tooLong }
            return nil
        }
        // The certificate names the server, and DNS over TLS puts the device in front of that
        // name: an address cannot stand for it (addresses go in their own field).
        if IPAddress(trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) != nil {
            problem[.serverName] = .serverNameNeeded(
                "\(trimmed) is an IP address: give the name, and the address under the server's addresses")
            return nil
        }
        let name: String
        do {
            name = try DomainName.normalize(trimmed)
        } catch {
            problem[.serverName] = .serverNameNeeded(error.description)
            return nil
        }
        // What a certificate's host name may be: the one check `pepper dns serve` makes too.
        do {
            return try DNSServerName(name).value
        } catch {
            problem[.serverName] = .serverNameNeeded(error.description)
            return nil
        }
    }

    private static func port(_ text: String, default value: Int, field: Form.Field, problem: inout [Form.Field: FieldProblem]) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return value }
        guard trimmed.count <= 5, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(trimmed) else {
            problem[field] = .portNeeded("'\(trimmed.prefix(20))' is not a number")
            return nil
        }
        guard (1...65_535).contains(port) else {
            problem[field] = .portNeeded("\(port) is not between 1 and 65535")
            return nil
        }
        return port
    }

    private static func addresses(_ text: String, problem: inout [Form.Field: FieldProblem]) -> [IPAddress]? {
        let words = text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        guard words.count <= maximumServerAddresses else {
            problem[.serverAddresses] = .serverAddressesNeeded("\(words.count) is more than \(maximumServerAddresses)")
            return nil
        }
        var addresses: [IPAddress] = []
        for word in words {
            guard let address = IPAddress(word.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) else {
                problem[.serverAddresses] = .serverAddressesNeeded("'\(word.prefix(64))' is not an IP address")
                return nil
            }
            guard !address.isLoopback, !address.isUnspecified else {
                problem[.serverAddresses] = .serverAddressesNeeded(
                    "\(address) is the phone itself, not the machine that runs pepper dns serve")
                return nil
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// The form a person fills in: the text as typed, checked as a whole by
    /// ``PepperDNSServer/init(_:)``.
    public struct Form: Sendable, Hashable {
        /// The fields, in the order a form shows them; their raw values name them in errors.
        public enum Field: String, Sendable, Hashable, CaseIterable, Comparable {
            /// The server's name.
            case serverName = "server"
            /// The DNS-over-HTTPS port.
            case httpsPort = "https-port"
            /// The DNS-over-TLS port.
            case tlsPort = "tls-port"
            /// This phone's name on the server.
            case device
            /// The server's IP addresses.
            case serverAddresses = "addresses"

            public static func < (lhs: Field, rhs: Field) -> Bool {
                allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
            }
        }

        /// Every field's problem, found together so the form can show each under its field.
        public struct Problems: Error, Sendable, Hashable, CustomStringConvertible {
            /// The problem of each field that has one (never empty).
            public let byField: [Field: FieldProblem]

            /// The first field in form order, which the form focuses.
            public var first: (field: Field, problem: FieldProblem) {
                let field = byField.keys.min()!
                return (field, byField[field]!)
            }

            public var description: String {
                byField.keys.sorted().map { "\($0.rawValue): \(byField[$0]!)" }.joined(separator: "; ")
            }
        }

        /// The server's name, as its certificate names it.
        public var serverName: String
        /// How the phone reaches it.
        public var transport: Transport
        /// The DNS-over-HTTPS port (empty: 443).
        public var httpsPort: String
        /// The DNS-over-TLS port (empty: 853).
        public var tlsPort: String
        /// This phone's name on the server.
        public var device: String
        /// The server's IP addresses, separated by commas or spaces (may be empty).
        public var serverAddresses: String

        /// A form with the given text; empty ports mean the protocols' own (443, 853).
        public init(
            serverName: String = "", transport: Transport = .https, httpsPort: String = "443", tlsPort: String = "853", device: String = "",
            serverAddresses: String = ""
        ) {
            self.serverName = serverName
            self.transport = transport
            self.httpsPort = httpsPort
            self.tlsPort = tlsPort
            self.device = device
            self.serverAddresses = serverAddresses
        }
    }
}

extension PepperDNSServer {
    /// What leaves the phone with encrypted DNS to this server: said on the settings screen
    /// instead of ``DNSUpstreamChoice/privacyStatement``, which is the tunnel's.
    public var privacyStatement: String {
        let lookup =
            serverAddresses.isEmpty
            ? " Its name, \(hostToReach), is looked up through the network's resolvers."
            : " The phone connects to \(serverAddresses.map(\.description).joined(separator: ", ")) without looking its name up."
        return
            "Every name the phone looks up goes, encrypted, to your Pepper at \(serverName), which sees the names and this phone's name, \(device), and answers them with its own lists and policy; nothing is answered on the phone."
            + lookup
    }

    /// What the person must make true for DNS over TLS without addresses: iOS looks up
    /// `DEVICE.SERVER`, so that name must resolve (a wildcard record `*.SERVER`); `nil` when
    /// nothing extra is needed.
    public var lookupRequirement: String? {
        guard transport == .tls, serverAddresses.isEmpty else { return nil }
        return
            "iOS looks \(hostToReach) up through the network's resolvers: give your Pepper's addresses, or have that name resolve (a wildcard record for *.\(serverName))."
    }
}

extension PepperDNSServer: Codable {
    // Stored as the text a form would hold, and checked again when read: the stored value comes
    // from outside the process.
    private enum CodingKeys: String, CodingKey {
        case serverName = "server", transport, httpsPort = "https-port", tlsPort = "tls-port", device, serverAddresses = "addresses"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let form = Form(
            serverName: try container.decode(String.self, forKey: .serverName),
            transport: try container.decode(Transport.self, forKey: .transport),
            httpsPort: String(try container.decode(Int.self, forKey: .httpsPort)),
            tlsPort: String(try container.decode(Int.self, forKey: .tlsPort)),
            device: try container.decode(String.self, forKey: .device),
            serverAddresses: try container.decode([String].self, forKey: .serverAddresses).joined(separator: " "))
        do {
            try self.init(form)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(serverName, forKey: .serverName)
        try container.encode(transport, forKey: .transport)
        try container.encode(httpsPort, forKey: .httpsPort)
        try container.encode(tlsPort, forKey: .tlsPort)
        try container.encode(device.value, forKey: .device)
        try container.encode(serverAddresses.map(\.description), forKey: .serverAddresses)
    }
}

extension PepperState {
    /// How the phone's DNS is filtered.
    ///
    /// - Throws: ``ActionError/storage(_:)`` when the setting cannot be read, or names a server
    ///   that is not stored or no longer passes the checks.
    public func dnsProtectionChoice() throws(ActionError) -> DNSProtectionChoice {
        let stored: String?
        do {
            stored = try PreferenceStore(database: database).value(.dnsProtection)
        } catch {
            throw .storage("cannot read the DNS protection setting: \(error)")
        }
        switch stored.flatMap(DNSProtectionChoice.Kind.init(rawValue:)) {
        case .encryptedDNS:
            guard let server = try pepperDNSServer() else {
                throw .storage("the DNS protection setting names encrypted DNS to your Pepper, but no server is saved")
            }
            return .encryptedDNS(server)
        case .packetTunnel, nil:
            // A value this version does not know (written by a later one) reads as the default.
            return .default
        }
    }

    /// The Pepper server last saved for encrypted DNS, chosen or not (the form shows it again
    /// after the person went back to the tunnel); `nil` when none was ever saved.
    public func pepperDNSServer() throws(ActionError) -> PepperDNSServer? {
        let stored: String?
        do {
            stored = try PreferenceStore(database: database).value(.dnsEncryptedServer)
        } catch {
            throw .storage("cannot read the encrypted DNS server: \(error)")
        }
        guard let stored else { return nil }
        do {
            return try JSONDecoder().decode(PepperDNSServer.self, from: Data(stored.utf8))
        } catch {
            throw .storage("the saved encrypted DNS server cannot be used: \(error)")
        }
    }

    /// Chooses encrypted DNS to the person's own Pepper, described by `form`, instead of the
    /// packet tunnel.
    ///
    /// - Throws: ``ActionError/invalidField(field:problem:)`` for the first field in form order
    ///   that has a problem (``PepperDNSServer/init(_:)`` gives them all); nothing is stored then.
    @discardableResult
    public func chooseEncryptedDNS(_ form: PepperDNSServer.Form) throws(ActionError) -> PepperDNSServer {
        let server: PepperDNSServer
        do {
            server = try PepperDNSServer(form)
        } catch {
            throw .invalidField(field: error.first.field.rawValue, problem: error.first.problem)
        }
        do {
            let json = String(decoding: try JSONEncoder().encode(server), as: UTF8.self)
            let preferences = PreferenceStore(database: database)
            // The server first: if the second write fails, the tunnel stays chosen.
            try preferences.set(.dnsEncryptedServer, json)
            try preferences.set(.dnsProtection, DNSProtectionChoice.Kind.encryptedDNS.rawValue)
        } catch {
            throw .storage("cannot save the encrypted DNS setting: \(error)")
        }
        return server
    }

    /// Chooses the packet tunnel again (the default). The server saved for encrypted DNS is kept,
    /// so that the form shows it if the person comes back.
    public func choosePacketTunnel() throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.dnsProtection, nil)
        } catch {
            throw .storage("cannot save the DNS protection setting: \(error)")
        }
    }
}
