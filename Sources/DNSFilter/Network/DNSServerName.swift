/// The host name a Pepper server answers encrypted DNS under (`dns.example`), as its certificate
/// names it and a device's profile points at it: a DNS name of at least two labels (devices add
/// their own name in front of it, and a certificate's `*.NAME` needs a parent), not an address.
///
/// Letters, digits and `-` in each label (1–63 characters, no `-` at either end), 253 characters
/// at most; compared without case (kept in lowercase), a final `.` dropped.
public struct DNSServerName: Sendable, Hashable, CheckedName {
    /// The name, lowercase, without a final dot.
    public let value: String

    /// Why a text is not a server name.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing was given.
        case empty
        /// An IP address was given.
        case address(String)
        /// Longer than a DNS name may be.
        case tooLong(Int)
        /// One label: a wildcard certificate cannot cover its device names.
        case singleLabel(String)
        /// A label that is not a host-name label.
        case badLabel(String)
        /// The last label is all digits (no top-level domain is).
        case numericTopLabel(String)

        public var description: String {
            switch self {
            case .empty: "a server name is needed (the host name devices reach the server at, e.g. dns.example)"
            case .address(let text):
                "\(text) is an address: the server name is a host name (e.g. dns.example), which the certificate names and device names go in front of"
            case .tooLong(let count): "a server name has at most 253 characters (this one has \(count))"
            case .singleLabel(let name):
                "\(name) is one label: give the full host name (e.g. \(name).home.arpa), as device names go in front of it"
            case .badLabel(let label):
                "'\(label)' is not a host-name label (letters, digits and '-', 1–63 characters, not starting or ending with '-')"
            case .numericTopLabel(let name): "\(name) ends in a number: give a host name, not an address"
            }
        }
    }

    /// The name in `text`, checked.
    ///
    /// - Throws: ``Problem`` saying what is wrong.
    public init(_ text: String) throws(Problem) {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { throw .empty }
        if IPAddress(name) != nil || name.hasPrefix("[") { throw .address(text) }
        guard name.utf8.count <= 253 else { throw .tooLong(name.utf8.count) }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            let valid =
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            guard valid else { throw .badLabel(String(label)) }
        }
        guard labels.count >= 2 else { throw .singleLabel(name) }
        guard let last = labels.last, !last.allSatisfy(\.isNumber) else { throw .numericTopLabel(name) }
        value = name
    }

}
