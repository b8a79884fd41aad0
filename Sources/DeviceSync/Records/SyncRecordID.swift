/// What kind of decision a synced record holds. Each kind has one owner in `PepperActions` that
/// validates a record of it and applies it to the home's state, as it would a person's input.
public struct SyncRecordKind: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The kind's name on the wire and in storage.
    public let rawValue: String

    /// A kind by its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A site the person allowed (key: the domain; fields: `expires`).
    public static let allowlistEntry = SyncRecordKind(rawValue: "allowlist")
    /// One of the person's own rules (key: the rule's text).
    public static let myRule = SyncRecordKind(rawValue: "my-rule")
    /// A filter list the person subscribed to (key: built-in identifier or URL; fields: `enabled`,
    /// `categories`).
    public static let listSubscription = SyncRecordKind(rawValue: "list")
    /// A blocked or labelled phone number (key: the number in E.164).
    public static let callNumber = SyncRecordKind(rawValue: "call-number")
    /// A word, sender or action of the message filter (key: kind and text).
    public static let messageRule = SyncRecordKind(rawValue: "message-rule")
    /// The Picket server's address and the alerting policy (keys: `server`, `policy`; field:
    /// `value`). The server's API key never syncs.
    public static let picketSettings = SyncRecordKind(rawValue: "picket")

    public static func < (lhs: SyncRecordKind, rhs: SyncRecordKind) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// The stable identity of one synced record: its kind and a key that the same decision has on
/// every device (a domain, a phone number, a list's URL), so that two devices that allow the same
/// site make one record, not two.
public struct SyncRecordID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// What the record holds.
    public var kind: SyncRecordKind
    /// Which one of its kind, normalized by the kind's owner.
    public var key: String

    /// The record of `kind` named `key`.
    public init(kind: SyncRecordKind, key: String) {
        self.kind = kind
        self.key = key
    }

    public static func < (lhs: SyncRecordID, rhs: SyncRecordID) -> Bool { (lhs.kind, lhs.key) < (rhs.kind, rhs.key) }

    public var description: String { "\(kind.rawValue):\(key)" }
}
