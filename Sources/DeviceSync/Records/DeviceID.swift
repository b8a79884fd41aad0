/// The name one Pepper home (a phone, a laptop, a DNS box) goes by in sync: chosen once, when the
/// home first syncs, and never reused.
public struct DeviceID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The name: 1 to 64 characters from `a-z`, `0-9` and `-`.
    public let rawValue: String

    /// The device named `rawValue`.
    ///
    /// - Throws: ``SyncError/invalidDeviceID(_:)`` for an empty, too long or otherwise invalid
    ///   name.
    public init(_ rawValue: String) throws(SyncError) {
        guard Self.isValid(rawValue) else { throw .invalidDeviceID(rawValue) }
        self.rawValue = rawValue
    }

    /// Whether `text` may name a device.
    public static func isValid(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard Self.isValid(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid device name"))
        }
        rawValue = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
