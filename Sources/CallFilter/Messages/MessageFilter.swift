/// What the system should do with a text message, as IdentityLookup's `ILMessageFilterAction`.
public enum MessageAction: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Show it normally.
    case allow
    /// File it as junk.
    case junk
    /// File it under promotions.
    case promotion
    /// File it under transactions (codes, orders, bills).
    case transaction

    /// Strength when several word rules match: junk beats promotion beats transaction beats allow.
    var strength: Int {
        switch self {
        case .allow: 0
        case .transaction: 1
        case .promotion: 2
        case .junk: 3
        }
    }

    /// Orders by strength.
    public static func < (lhs: MessageAction, rhs: MessageAction) -> Bool { lhs.strength < rhs.strength }
}

/// The folder within promotions or transactions, as IdentityLookup's `ILMessageFilterSubAction`.
public enum MessageSubAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// No sub-folder.
    case none
    /// Transactions: other.
    case transactionalOthers
    /// Transactions: finance.
    case transactionalFinance
    /// Transactions: orders.
    case transactionalOrders
    /// Transactions: reminders.
    case transactionalReminders
    /// Transactions: health.
    case transactionalHealth
    /// Transactions: weather.
    case transactionalWeather
    /// Transactions: carrier.
    case transactionalCarrier
    /// Transactions: rewards.
    case transactionalRewards
    /// Transactions: public services.
    case transactionalPublicServices
    /// Promotions: other.
    case promotionalOthers
    /// Promotions: offers.
    case promotionalOffers
    /// Promotions: coupons.
    case promotionalCoupons

    /// The action this sub-action belongs to (nil for ``none``, which goes with any action).
    public var action: MessageAction? {
        switch self {
        case .none: nil
        case .promotionalOthers, .promotionalOffers, .promotionalCoupons: .promotion
        default: .transaction
        }
    }
}

/// A rule on the words of a message, optionally only for one sender.
public struct WordRule: Sendable, Hashable, Codable {
    /// A word or phrase, matched whole after folding (`won`, `click here`).
    public var word: String
    /// What a match does.
    public var action: MessageAction
    /// The sub-folder for promotion and transaction actions.
    public var subAction: MessageSubAction
    /// Only messages from this sender (a ``MessageSender`` key); nil for every sender.
    public var sender: String?

    /// A rule.
    public init(word: String, action: MessageAction = .junk, subAction: MessageSubAction = .none, sender: String? = nil) {
        self.word = word
        self.action = action
        self.subAction = subAction
        self.sender = sender
    }
}

/// The rules of a ``MessageFilter``.
public struct MessageFilterRules: Sendable, Hashable, Codable {
    /// Senders whose messages are junk (``MessageSender`` keys).
    public var blockedSenders: Set<String>
    /// Word rules, for every sender or for one.
    public var wordRules: [WordRule]
    /// The user's contacts (``MessageSender`` keys): their messages are always allowed.
    public var contacts: Set<String>
    /// Whether messages from senders not in ``contacts`` are junk ("unknown senders").
    public var contactsOnly: Bool
    /// Whether the filter runs at all (the SMS guard switch); off, every message is allowed.
    public var enabled: Bool

    /// The words Pepper starts with (`docs/calls-and-messages.md`).
    public static let defaultWords = ["free", "won"]

    /// Rules.
    public init(
        blockedSenders: Set<String> = [], wordRules: [WordRule] = [], contacts: Set<String> = [], contactsOnly: Bool = false,
        enabled: Bool = true
    ) {
        self.blockedSenders = blockedSenders
        self.wordRules = wordRules
        self.contacts = contacts
        self.contactsOnly = contactsOnly
        self.enabled = enabled
    }
}

/// The rule that decided a verdict.
public enum MessageRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender is one of the user's contacts.
    case contact(sender: String)
    /// The sender is blocked.
    case blockedSender(sender: String)
    /// The sender's number is on the call block list (the design's "numbers in your block list").
    case callBlockList(sender: String)
    /// A word rule for this sender matched.
    case senderWord(sender: String, word: String, matched: String)
    /// A word rule matched.
    case word(word: String, matched: String)
    /// "Contacts only" is on and the sender is not a contact.
    case unknownSender(sender: String)
    /// No rule matched.
    case noMatch
    /// The SMS guard is switched off.
    case filterOff

    /// A short name of the kind of rule (`word`, `sender`, `sender+word`, `contact`, `unknown-sender`, `none`).
    public var kind: String {
        switch self {
        case .contact: "contact"
        case .blockedSender: "sender"
        case .callBlockList: "call-block-list"
        case .senderWord: "sender+word"
        case .word: "word"
        case .unknownSender: "unknown-sender"
        case .noMatch: "none"
        case .filterOff: "off"
        }
    }

    /// The rule's value: the word, the sender, or `sender word`.
    public var value: String? {
        switch self {
        case .contact(let sender), .blockedSender(let sender), .callBlockList(let sender), .unknownSender(let sender): sender
        case .senderWord(let sender, let word, _): "\(sender) \(word)"
        case .word(let word, _): word
        case .noMatch, .filterOff: nil
        }
    }

    /// Why, for people: `word rule "won" matched "WON"`.
    public var description: String {
        switch self {
        case .contact(let sender): "sender \(sender) is a contact"
        case .blockedSender(let sender): "sender rule: \(sender) is blocked"
        case .callBlockList(let sender): "\(sender) is on the call block list"
        case .senderWord(let sender, let word, let matched): "sender+word rule: \"\(word)\" from \(sender) matched \"\(matched)\""
        case .word(let word, let matched): "word rule \"\(word)\" matched \"\(matched)\""
        case .unknownSender(let sender): "unknown sender \(sender) (contacts only)"
        case .noMatch: "no rule matched"
        case .filterOff: "the SMS guard is off"
        }
    }
}

/// A verdict and the rule behind it.
public struct MessageVerdict: Sendable, Hashable {
    /// What to do.
    public var action: MessageAction
    /// The sub-folder, for promotions and transactions.
    public var subAction: MessageSubAction
    /// The rule that decided.
    public var rule: MessageRule
}

/// How senders are compared: phone numbers by their E.164 form, short codes and alphanumeric
/// sender IDs (`AMAZON`, `72975`) by their lower-cased letters and digits.
public enum MessageSender {
    /// The key of `sender` for rule lookups.
    public static func key(_ sender: String, parser: PhoneNumberParser) -> String {
        if let number = parser.number(sender) { return number.e164 }
        // Short codes and sender IDs are nearly always ASCII: lower-case letters and digits directly.
        if sender.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(sender.utf8.count)
            for byte in sender.utf8 {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"): bytes.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte | 0x20)
                default: continue
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        // Collected in a scalar view and made a string once: linear in the sender's length.
        var key = String.UnicodeScalarView()
        for scalar in sender.unicodeScalars where scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal {
            key.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        }
        return String(key)
    }
}

/// Whether a number is on the call block list, asked where the list is kept: the list can hold
/// millions of numbers (CallKit's cap is 2,000,000), too many to copy into a message filter's
/// memory, so the filter asks about the one sender instead (an index lookup in the database).
public struct CallBlockList: Sendable {
    private let lookup: @Sendable (Int64) -> Bool

    /// A list answered by `contains`, which takes the number as CallKit's integer (`12539501212`).
    public init(contains: @escaping @Sendable (Int64) -> Bool) {
        lookup = contains
    }

    /// A list holding exactly `numbers` (CallKit integers).
    public init(numbers: Set<Int64>) {
        lookup = { numbers.contains($0) }
    }

    /// No numbers.
    public static let empty = CallBlockList(contains: { _ in false })

    /// Whether `number` (a CallKit integer) is blocked.
    public func contains(_ number: Int64) -> Bool { lookup(number) }
}

/// Decides allow / junk / promotion / transaction for a message from its sender and text alone,
/// as a message-filter extension must.
///
/// Order: a contact's messages are allowed; a blocked sender's, or one whose number is on the call
/// block list, are junk; then word rules — a rule
/// for this very sender first, else the strongest matching action (junk, then promotion, then
/// transaction), the earliest match breaking ties; then, with "contacts only", unknown senders are
/// junk; everything else is allowed.
public struct MessageFilter: Sendable {
    /// Shared by copies: a filter is copied into every classification closure.
    private final class Storage: Sendable {
        let rules: MessageFilterRules
        let parser: PhoneNumberParser
        let matcher: WordMatcher
        /// Phone-number senders as CallKit integers: looked up without building the E.164 string.
        let numericContacts: Set<Int64>
        let numericBlocked: Set<Int64>
        let callBlockList: CallBlockList

        init(rules: MessageFilterRules, parser: PhoneNumberParser, callBlockList: CallBlockList) {
            self.rules = rules
            self.parser = parser
            self.callBlockList = callBlockList
            self.matcher = WordMatcher(patterns: rules.wordRules.map(\.word))
            func numeric(_ keys: Set<String>) -> Set<Int64> { Set(keys.compactMap { $0.hasPrefix("+") ? Int64($0.dropFirst()) : nil }) }
            numericContacts = numeric(rules.contacts)
            numericBlocked = numeric(rules.blockedSenders)
        }

        /// The same prepared rules read with another parser (no second compilation of the words).
        init(_ other: Storage, parser: PhoneNumberParser) {
            rules = other.rules
            self.parser = parser
            callBlockList = other.callBlockList
            matcher = other.matcher
            numericContacts = other.numericContacts
            numericBlocked = other.numericBlocked
        }
    }

    private let storage: Storage
    /// The rules.
    public var rules: MessageFilterRules { storage.rules }
    /// Reads senders' national numbers.
    public var parser: PhoneNumberParser { storage.parser }

    /// A filter; `parser`'s region is where national sender numbers are dialled (the receiver's
    /// country); senders whose number is on `callBlockList` are junk too.
    public init(rules: MessageFilterRules, parser: PhoneNumberParser, callBlockList: CallBlockList = .empty) {
        storage = Storage(rules: rules, parser: parser, callBlockList: callBlockList)
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// This filter reading national sender numbers with `parser`, sharing the compiled words.
    public func reading(with parser: PhoneNumberParser) -> MessageFilter {
        MessageFilter(storage: Storage(storage, parser: parser))
    }

    /// Classifies one message.
    public func classify(sender: String?, body: String) -> MessageVerdict {
        let storage = self.storage
        guard storage.rules.enabled else { return MessageVerdict(action: .allow, subAction: .none, rule: .filterOff) }
        // Phone numbers are compared as integers; the key string is only built when a rule needs it.
        let number = sender.flatMap { storage.parser.callDirectoryValue(of: $0) }
        var cachedKey: String?
        func key() -> String {
            if let cachedKey { return cachedKey }
            let made: String
            if let number, let phone = PhoneNumber(callDirectoryValue: number) {
                made = phone.e164
            } else {
                made = sender.map { MessageSender.key($0, parser: storage.parser) } ?? ""
            }
            cachedKey = made
            return made
        }
        if let number {
            if storage.numericContacts.contains(number) {
                return MessageVerdict(action: .allow, subAction: .none, rule: .contact(sender: key()))
            }
            if storage.numericBlocked.contains(number) {
                return MessageVerdict(action: .junk, subAction: .none, rule: .blockedSender(sender: key()))
            }
            if storage.callBlockList.contains(number) {
                return MessageVerdict(action: .junk, subAction: .none, rule: .callBlockList(sender: key()))
            }
        } else if sender != nil, !storage.rules.contacts.isEmpty || !storage.rules.blockedSenders.isEmpty {
            let key = key()
            if !key.isEmpty {
                if storage.rules.contacts.contains(key) {
                    return MessageVerdict(action: .allow, subAction: .none, rule: .contact(sender: key))
                }
                if storage.rules.blockedSenders.contains(key) {
                    return MessageVerdict(action: .junk, subAction: .none, rule: .blockedSender(sender: key))
                }
            }
        }
        var best: (rule: WordRule, range: Range<Int>)?
        if !storage.rules.wordRules.isEmpty {
            let wordRules = storage.rules.wordRules
            storage.matcher.forEachMatch(in: body) { match in
                let rule = wordRules[match.pattern]
                if let ruleSender = rule.sender, ruleSender != key() { return true }
                guard let current = best else {
                    best = (rule, match.utf8Range)
                    return true
                }
                let ruleSpecific = rule.sender != nil
                let currentSpecific = current.rule.sender != nil
                if ruleSpecific != currentSpecific {
                    if ruleSpecific { best = (rule, match.utf8Range) }
                } else if rule.action > current.rule.action
                    || (rule.action == current.rule.action && match.utf8Range.lowerBound < current.range.lowerBound)
                {
                    best = (rule, match.utf8Range)
                }
                return true
            }
        }
        if let (rule, range) = best {
            let utf8 = body.utf8
            let bounds = range.clamped(to: 0..<utf8.count)
            let matched = String(
                decoding: utf8[
                    utf8.index(utf8.startIndex, offsetBy: bounds.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: bounds.upperBound)],
                as: UTF8.self)
            let decided: MessageRule =
                if let sender = rule.sender { .senderWord(sender: sender, word: rule.word, matched: matched) } else {
                    .word(word: rule.word, matched: matched)
                }
            return MessageVerdict(action: rule.action, subAction: rule.subAction, rule: decided)
        }
        if storage.rules.contactsOnly {
            let key = key()
            return MessageVerdict(action: .junk, subAction: .none, rule: .unknownSender(sender: key.isEmpty ? "(none)" : key))
        }
        return MessageVerdict(action: .allow, subAction: .none, rule: .noMatch)
    }
}
