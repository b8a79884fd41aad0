import Foundation

/// What a device needs to pair with a serving home: its address, a one-time code and, for a home
/// with a private certificate, the SHA-256 of the certificate to trust. Printed by
/// `pepper sync code`, shown as a QR code by the console, scanned by the app.
///
/// Its text form is a URL: `pepper-sync://HOST[:PORT]/?code=CODE&pin=PIN`, where `PIN` is the
/// SHA-256 in base64url without padding (omitted for a home with a public certificate).
public struct SyncInvitation: Sendable, Hashable, CustomStringConvertible {
    /// The serving home's address: `https://HOST[:PORT]`.
    public var server: URL
    /// The one-time pairing code.
    public var code: String
    /// The SHA-256 of the certificate to trust, if the home's certificate is private.
    public var pin: Data?

    /// An invitation with these parts.
    ///
    /// - Throws: ``SyncInvitationError`` when `server` is not `https://HOST[:PORT]`, the code is
    ///   not a pairing code or the pin is not 32 bytes.
    public init(server: URL, code: String, pin: Data?) throws(SyncInvitationError) {
        guard server.scheme?.lowercased() == "https", let host = server.host, !host.isEmpty,
            server.path.isEmpty || server.path == "/", server.query == nil, server.user == nil
        else { throw .notHTTPS(server.absoluteString) }
        guard SyncPairingCode.isValid(code) else { throw .invalidCode }
        if let pin, pin.count != 32 { throw .invalidPin }
        guard let url = URL(string: "https://" + Self.authority(host: host, port: server.port)) else {
            throw .notHTTPS(server.absoluteString)
        }
        self.server = url
        self.code = SyncPairingCode.normalized(code)
        self.pin = pin
    }

    /// Reads the text form (`pepper-sync://…`).
    public init(text: String) throws(SyncInvitationError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), components.scheme == "pepper-sync", let host = components.host,
            !host.isEmpty
        else { throw .notAnInvitation }
        let items = components.queryItems ?? []
        guard let code = items.first(where: { $0.name == "code" })?.value else { throw .invalidCode }
        var pin: Data?
        if let text = items.first(where: { $0.name == "pin" })?.value {
            guard let data = Self.base64URLDecoded(text) else { throw .invalidPin }
            pin = data
        }
        guard let url = URL(string: "https://" + Self.authority(host: host, port: components.port)) else { throw .notAnInvitation }
        try self.init(server: url, code: code, pin: pin)
    }

    /// The text form: `pepper-sync://HOST[:PORT]/?code=CODE[&pin=PIN]`.
    public var text: String {
        var text = "pepper-sync://" + Self.authority(host: server.host ?? "", port: server.port) + "/?code=" + code
        if let pin { text += "&pin=" + Self.base64URL(pin) }
        return text
    }

    /// `HOST[:PORT]` as a URL writes it: an IPv6 address in brackets. By text rather than through
    /// `URLComponents`, whose host of an IPv6 address comes without its brackets and does not go
    /// back in.
    static func authority(host: String, port: Int?) -> String {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (bare.contains(":") ? "[\(bare)]" : bare) + (port.map { ":\($0)" } ?? "")
    }

    public var description: String { text }

    /// `data` in base64url without padding (RFC 4648 §5): how a pin is written.
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text without padding; `nil` for other text.
    public static func base64URLDecoded(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// Why a text is not a pairing invitation.
public enum SyncInvitationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a `pepper-sync://` address.
    case notAnInvitation
    /// The serving home's address is not `https://HOST[:PORT]`.
    case notHTTPS(String)
    /// The code is missing or not a pairing code.
    case invalidCode
    /// The pin is not the base64url of 32 bytes.
    case invalidPin

    public var description: String {
        switch self {
        case .notAnInvitation: "not a Pepper pairing invitation (pepper-sync://HOST:PORT/?code=…)"
        case .notHTTPS(let text): "\(text) is not an https:// address of a Pepper home (sync crosses the network only over TLS)"
        case .invalidCode: "the pairing code is missing or not one `pepper sync code` gives (XXXX-XXXX-XXXX)"
        case .invalidPin: "the certificate pin is not a SHA-256 in base64url"
        }
    }
}

/// A one-time pairing code: 12 characters from an alphabet without look-alikes (no 0/O, 1/I/L),
/// shown as `XXXX-XXXX-XXXX`: 60 bits, single use, valid for minutes.
public enum SyncPairingCode {
    /// The characters a code is made of.
    public static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    /// A new random code.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    /// The code in its canonical form: upper case, dashes where they belong.
    public static func normalized(_ text: String) -> String {
        let characters = Array(text.uppercased().filter { $0 != "-" && $0 != " " })
        guard characters.count == 12 else { return text }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    /// Whether `text` is a code (in any case, with or without dashes and spaces).
    public static func isValid(_ text: String) -> Bool {
        let characters = Array(text.uppercased().filter { $0 != "-" && $0 != " " })
        return characters.count == 12 && characters.allSatisfy(alphabet.contains)
    }
}
