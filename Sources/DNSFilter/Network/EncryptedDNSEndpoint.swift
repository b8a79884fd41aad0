/// The name a person gives one of their devices (`phone`, `kids-tablet`), carried in an
/// encrypted DNS query so that the server knows which device asks without knowing its address:
/// the last segment of a DNS-over-HTTPS path (`/dns-query/phone`) or the first label of a
/// DNS-over-TLS server name (`phone.dns.example`), as AdGuard Home's ClientIDs are.
///
/// One DNS label: letters, digits and `-`, 1–63 characters, not starting or ending with `-`;
/// compared without case (kept in lowercase).
public struct DNSDeviceName: Sendable, Hashable, Comparable, CheckedName {
    /// The name, lowercase.
    public let value: String

    /// Why a text is not a device name.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing was given.
        case empty
        /// Longer than one DNS label may be.
        case tooLong(Int)
        /// A character other than a letter, a digit or `-`.
        case invalidCharacter(Character)
        /// It starts or ends with `-`.
        case hyphenAtEdge

        public var description: String {
            switch self {
            case .empty: "a device name is needed"
            case .tooLong(let count): "a device name has at most 63 characters (this one has \(count))"
            case .invalidCharacter(let character):
                "a device name has only letters, digits and '-' (not \(character.isWhitespace ? "a space" : "'\(character)'")), as it is one DNS label"
            case .hyphenAtEdge: "a device name does not start or end with '-'"
            }
        }
    }

    /// The name in `text`, checked.
    ///
    /// - Throws: ``Problem`` saying what is wrong.
    public init(_ text: String) throws(Problem) {
        let name = text.lowercased()
        guard !name.isEmpty else { throw .empty }
        guard name.utf8.count <= 63 else { throw .tooLong(name.count) }
        if let bad = name.first(where: { !(("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-") }) {
            throw .invalidCharacter(bad)
        }
        guard name.first != "-", name.last != "-" else { throw .hyphenAtEdge }
        value = name
    }

    public static func < (lhs: DNSDeviceName, rhs: DNSDeviceName) -> Bool { lhs.value < rhs.value }

}

/// Where a Pepper server answers encrypted DNS, and the addresses a device is given to reach it:
/// the one place that spells them, for `pepper dns serve`, the profiles and the app.
///
/// - DNS over HTTPS (RFC 8484): `https://SERVER[:PORT]/dns-query`, and
///   `https://SERVER[:PORT]/dns-query/DEVICE` for a named device.
/// - DNS over TLS (RFC 7858): server name `SERVER`, and `DEVICE.SERVER` for a named device
///   (so the certificate must cover `*.SERVER` too); port 853 unless said otherwise. Android's
///   Private DNS takes that host name and always uses port 853.
public struct EncryptedDNSEndpoint: Sendable, Hashable, Codable {
    /// The DNS-over-HTTPS path.
    public static let dohPath = "/dns-query"

    /// The server's host name, as its certificate names it (`dns.example`), lowercase.
    public var serverName: String
    /// The DNS-over-HTTPS port (`nil`: DNS over HTTPS not served).
    public var httpsPort: Int?
    /// The DNS-over-TLS port (`nil`: DNS over TLS not served).
    public var tlsPort: Int?

    /// An endpoint with the given fields.
    public init(serverName: String, httpsPort: Int? = 443, tlsPort: Int? = 853) {
        self.serverName = serverName.lowercased()
        self.httpsPort = httpsPort
        self.tlsPort = tlsPort
    }

    /// The DNS-over-HTTPS URL for `device` (the server's own without one), or `nil` when DNS over
    /// HTTPS is not served.
    public func httpsURL(device: DNSDeviceName? = nil) -> String? {
        guard let httpsPort else { return nil }
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        return "https://\(serverName)\(port)\(Self.dohPath)" + (device.map { "/\($0.value)" } ?? "")
    }

    /// The DNS-over-TLS server name for `device`, or `nil` when DNS over TLS is not served.
    public func tlsServerName(device: DNSDeviceName? = nil) -> String? {
        guard tlsPort != nil else { return nil }
        return device.map { "\($0.value).\(serverName)" } ?? serverName
    }

    /// The host name for Android's Private DNS setting, or `nil` when it cannot be used: Android
    /// asks on port 853 only.
    public func androidPrivateDNSHostname(device: DNSDeviceName? = nil) -> String? {
        guard tlsPort == 853 else { return nil }
        return tlsServerName(device: device)
    }

    /// The device named by a DNS-over-TLS server name (SNI): its first label when the rest is
    /// ``serverName``. `nil` for the server name itself, another name, or a first label that is not
    /// a device name.
    public func device(fromTLSServerName name: String) -> DNSDeviceName? {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard name.hasSuffix("." + serverName) else { return nil }
        let label = name.dropLast(serverName.count + 1)
        guard !label.contains(".") else { return nil }
        return try? DNSDeviceName(String(label))
    }

    /// The device named by a DNS-over-HTTPS request path: `.some(nil)` for ``dohPath`` itself,
    /// `.some(device)` for `dohPath/DEVICE`, and `nil` for any other path (query string ignored).
    public static func device(fromHTTPSPath path: String) -> DNSDeviceName?? {
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        if bare == dohPath || bare == dohPath + "/" { return .some(nil) }
        guard bare.hasPrefix(dohPath + "/") else { return nil }
        var rest = bare.dropFirst(dohPath.count + 1)
        if rest.hasSuffix("/") { rest.removeLast() }
        guard let device = try? DNSDeviceName(String(rest)) else { return nil }
        return .some(device)
    }
}
