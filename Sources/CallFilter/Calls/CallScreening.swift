/// What happens to an incoming call from a number, and why: the block and identification
/// lists, the person's contacts and the "block all except contacts" switch.
///
/// The same decision serves `pepper calls check`, the console's Calls screen and the Apple app's
/// counts. A call-directory extension can only block and label the numbers it is given, so on
/// iPhone "block all except contacts" is the system's own Silence Unknown Callers
/// (`docs/calls-and-messages.md`); the lists it exports are unchanged by the switch.
public struct CallScreening: Sendable, Hashable {
    /// What happens to the call.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// The phone does not ring.
        case block
        /// It rings with a label.
        case identify
        /// It rings.
        case allow
    }

    /// Why.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The number is on the block list (`pattern`: the range it was blocked with).
        case blockList(pattern: String?)
        /// The number is one of the person's contacts.
        case contact
        /// "Block all except contacts" is on and the number is not a contact.
        case notAContact
        /// The number has a label.
        case identified(label: String)
        /// Nothing applies.
        case noRule

        /// A short name of the rule kind (`block-list`, `contact`, `not-a-contact`, `label`, `none`), as decisions are counted.
        public var kind: String {
            switch self {
            case .blockList: "block-list"
            case .contact: "contact"
            case .notAContact: "not-a-contact"
            case .identified: "label"
            case .noRule: "none"
            }
        }

        /// The rule's value, when it has one: the range, or the label.
        public var value: String? {
            switch self {
            case .blockList(let pattern): pattern
            case .identified(let label): label
            case .contact, .notAContact, .noRule: nil
            }
        }

        public var description: String {
            switch self {
            case .blockList(let pattern?): "it is in the blocked range \(pattern)"
            case .blockList(nil): "it is on the block list"
            case .contact: "it is one of your contacts"
            case .notAContact: "it is not one of your contacts (block all except contacts is on)"
            case .identified(let label): "it is labelled \"\(label)\""
            case .noRule: "no rule applies"
            }
        }
    }

    /// A decision.
    public struct Verdict: Sendable, Hashable {
        /// What happens.
        public var action: Action
        /// The label shown, for ``Action/identify``.
        public var label: String?
        /// Why.
        public var reason: Reason
    }

    /// What the lists say about one number.
    public struct Listing: Sendable, Hashable {
        /// Whether it is on the block list.
        public var blocked: Bool
        /// The range it was blocked with, if any.
        public var blockedPattern: String?
        /// Its identification label, if any.
        public var label: String?

        /// A listing.
        public init(blocked: Bool, blockedPattern: String? = nil, label: String? = nil) {
            self.blocked = blocked
            self.blockedPattern = blockedPattern
            self.label = label
        }
    }

    /// Whether every caller who is not a contact is blocked.
    public var blockAllExceptContacts: Bool
    /// The contacts' numbers in E.164.
    public var contacts: Set<String>

    /// A screening with the given settings.
    public init(blockAllExceptContacts: Bool = false, contacts: Set<String> = []) {
        self.blockAllExceptContacts = blockAllExceptContacts
        self.contacts = contacts
    }

    /// The decision for a call from `number`.
    ///
    /// Order: the block list (the person blocked it on purpose, even a contact), then contacts
    /// ring, then "block all except contacts", then labels.
    public func decide(_ number: PhoneNumber, listing: Listing) -> Verdict {
        if listing.blocked { return Verdict(action: .block, reason: .blockList(pattern: listing.blockedPattern)) }
        if contacts.contains(number.e164) { return Verdict(action: .allow, label: listing.label, reason: .contact) }
        if blockAllExceptContacts { return Verdict(action: .block, reason: .notAContact) }
        if let label = listing.label { return Verdict(action: .identify, label: label, reason: .identified(label: label)) }
        return Verdict(action: .allow, reason: .noRule)
    }
}
