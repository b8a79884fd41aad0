import DeviceSync
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import X509

/// An error from SwiftNIO, NIOSSL or the exchange's own handlers, with what is needed to say it
/// as a ``SyncHTTPError``: the server, and the body limit that was in force.
struct ConnectionFailure: Error {
    /// The error as it came.
    let error: any Error
    /// The server the exchange was with.
    let address: SyncServerAddress
    /// The body limit, for ``SyncHTTPError/responseTooLarge(limit:)``.
    var limit: Int = 0

    /// Which check refused the server's certificate in a verifying handshake.
    enum CertificateRefusal {
        /// The chain does not verify up to a trusted root (BoringSSL's verification).
        case chain
        /// The certificate does not name the host or address connected to (NIOSSL's check).
        case hostName
    }

    /// Set when the handshake refused the certificate, which is worth explaining further.
    var certificateRefusal: CertificateRefusal? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return .hostName }
        if case NIOSSLError.handshakeFailed(let failure) = error, "\(failure)".contains("CERTIFICATE_VERIFY_FAILED") { return .chain }
        return nil
    }

    /// The error as the seam says it, in words a person can act on.
    var syncError: SyncHTTPError {
        let server = address.authority
        if Task.isCancelled { return .cannotConnect(server, reason: "the request was cancelled") }
        switch error {
        case ExchangeFailure.timedOut:
            return .timedOut(server)
        case ExchangeFailure.tooLarge:
            return .responseTooLarge(limit: limit)
        case ExchangeFailure.closedEarly, ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed:
            return .invalidResponse("the connection closed before the whole answer came")
        case ExchangeFailure.closedDuringHandshake:
            return .cannotConnect(server, reason: "the connection closed during the TLS handshake (is this a TLS port?)")
        case ChannelError.connectTimeout:
            return .timedOut(server)
        case let failure as NIOConnectionError:
            if let lookup = failure.dnsAError ?? failure.dnsAAAAError {
                return .cannotConnect(server, reason: "\(address.host) does not resolve (\(lookup))")
            }
            if let first = failure.connectionErrors.first {
                return ConnectionFailure(error: first.error, address: address).syncError
            }
            return .cannotConnect(server, reason: "\(address.host) has no address to connect to")
        case let failure as IOError:
            return .cannotConnect(server, reason: Self.systemReason(failure))
        case NIOSSLError.handshakeFailed(let failure):
            let text = "\(failure)"
            if text.contains("EOF during handshake") {
                return ConnectionFailure(error: ExchangeFailure.closedDuringHandshake, address: address).syncError
            }
            let reasons = Self.boringSSLReasons(text)
            // Bytes that are no TLS record: plain HTTP, or another protocol, on the port.
            if reasons.contains("WRONG_VERSION_NUMBER") {
                return .untrusted(server, reason: "the TLS handshake failed: the server does not speak TLS on this port (\(reasons))")
            }
            if reasons.contains("UNSUPPORTED_PROTOCOL") || reasons.contains("PROTOCOL_VERSION") {
                return .untrusted(
                    server,
                    reason:
                        "the TLS handshake failed: the server does not offer TLS 1.2 or later, the oldest this client takes (\(reasons))")
            }
            if certificateRefusal != nil {
                return .untrusted(server, reason: "its certificate chain does not verify (\(reasons))")
            }
            return .untrusted(server, reason: "the TLS handshake failed (\(reasons))")
        case let failure as NIOSSLExtraError where failure == .failedToValidateHostname:
            return .untrusted(server, reason: "the certificate is not for \(address.host)")
        case NIOSSLError.uncleanShutdown:
            // Without TLS's close_notify a cut cannot be told from the end of the answer.
            return .invalidResponse("the connection was cut (no TLS close_notify) before the whole answer came")
        case HTTPParserError.invalidEOFState:
            return .invalidResponse("the connection closed before the whole answer came")
        case let failure as HTTPParserError:
            return .invalidResponse("not an HTTP/1.1 answer (\(failure))")
        case let failure as NIOSSLError:
            return .untrusted(server, reason: "TLS failed (\(failure))")
        default:
            return .cannotConnect(server, reason: "\(error)")
        }
    }

    /// BoringSSL's reason codes in an error stack's text (`WRONG_VERSION_NUMBER`, …), without
    /// the source file paths the stack also holds; the whole text when it has none.
    static func boringSSLReasons(_ text: String) -> String {
        let marker = "OPENSSL_internal:"
        var reasons: [String] = []
        var rest = text[...]
        while let range = rest.range(of: marker) {
            let code = rest[range.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if !code.isEmpty { reasons.append(String(code)) }
            rest = rest[range.upperBound...]
        }
        return reasons.isEmpty ? text : reasons.joined(separator: ", ")
    }

    /// The system's words for a failed socket call, such as "Connection refused".
    private static func systemReason(_ error: IOError) -> String {
        let reason = String(cString: strerror(error.errnoCode))
        return "\(reason) (errno \(error.errnoCode))"
    }
}

/// Finds what is wrong with a chain a handshake refused, to say it to a person. The decision is
/// BoringSSL's; these are only the words for it, from the chain the server presents, read with
/// swift-certificates (BoringSSL reports only that verification failed).
enum CertificateProblems {
    /// Sentences for what is wrong: certificates out of date and, for a pin, a server certificate
    /// that no chain of signatures leads from to the pinned certificate.
    static func find(in presented: [NIOSSLCertificate], pinned: NIOSSLCertificate?, now: Date) -> [String] {
        let chain = presented.compactMap(x509)
        guard let leaf = chain.first, chain.count == presented.count else { return [] }
        var problems: [String] = []
        for certificate in chain {
            if certificate.notValidAfter < now {
                problems.append("\(name(certificate.subject)) expired on \(date(certificate.notValidAfter))")
            } else if certificate.notValidBefore > now {
                problems.append("\(name(certificate.subject)) is not valid before \(date(certificate.notValidBefore))")
            }
        }
        if let root = pinned.flatMap(x509) {
            if leaf != root && !signed(leaf, by: root, through: chain) {
                problems.append(
                    "the pinned certificate \(name(root.subject)) did not sign the server's certificate \(name(leaf.subject)) "
                        + "(its issuer is \(name(leaf.issuer)))")
            }
        } else if leaf.issuer == leaf.subject {
            problems.append("the server's certificate \(name(leaf.subject)) is self-signed")
        } else {
            problems.append("the server's certificate \(name(leaf.subject)) was issued by \(name(leaf.issuer))")
        }
        return problems
    }

    /// The host names and IP addresses `certificate` is for (its subject alternative names).
    static func names(of certificate: NIOSSLCertificate) -> [String] {
        guard let parsed = x509(certificate), let names = try? parsed.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let text): return text
            case .ipAddress(let octets): return address(Array(octets.bytes))
            default: return nil
            }
        }
    }

    /// An IP address's text from its 4 or 16 bytes.
    private static func address(_ bytes: [UInt8]) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return written == nil ? nil : String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether signatures lead from `certificate` to `root`, directly or through certificates
    /// of `chain` (each signed by the next).
    private static func signed(_ certificate: Certificate, by root: Certificate, through chain: [Certificate]) -> Bool {
        var current = certificate
        for _ in 0...chain.count {
            if root.publicKey.isValidSignature(current.signature, for: current) { return true }
            guard
                let issuer = chain.first(where: {
                    $0 != current && $0.subject == current.issuer && $0.publicKey.isValidSignature(current.signature, for: current)
                })
            else { return false }
            current = issuer
        }
        return false
    }

    /// A certificate's common name, quoted, or its whole name without one.
    static func name(_ certificate: NIOSSLCertificate) -> String {
        if let common = certificate.subjectName.first(where: { $0.type == .commonName }) { return "\"\(common.value)\"" }
        return "\"\(certificate.subjectName.map(\.value).joined(separator: ", "))\""
    }

    private static func name(_ distinguished: DistinguishedName) -> String {
        let common = distinguished.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }
        return "\"\(common.map { "\($0.value)" } ?? "\(distinguished)")\""
    }

    private static func x509(_ certificate: NIOSSLCertificate) -> Certificate? {
        guard let der = try? certificate.toDERBytes() else { return nil }
        return try? Certificate(derEncoded: der)
    }

    private static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime]
        return formatter.string(from: date) + " UTC"
    }
}
