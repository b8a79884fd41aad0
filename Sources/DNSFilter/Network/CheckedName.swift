/// A name checked when it is made (``DNSDeviceName``, ``DNSServerName``): written as its text
/// and checked again when read back, so a file edited by hand cannot smuggle in a bad one.
public protocol CheckedName: Codable, CustomStringConvertible {
    /// Why a text is not such a name.
    associatedtype Problem: Error & CustomStringConvertible
    /// The name as kept (lowercase).
    var value: String { get }
    /// The name in `text`, checked.
    init(_ text: String) throws(Problem)
}

extension CheckedName {
    public var description: String { value }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
