import CallFilter
import Foundation
import PepperActions
import Storage

/// The SMS guard screen of the message-filter design: the switch, the word list (each word
/// with spellings it still catches, to explain look-alike folding by example), sender rules,
/// "unknown senders", a box to try a message, and the counts of filtered messages.
public struct MessagesScreen: Sendable {
    /// One word rule.
    public struct Word: Sendable, Hashable {
        /// The word or phrase as added.
        public var word: String
        /// `junk`, `promotion` or `transaction`.
        public var action: String
        /// The sub-folder, when one.
        public var subAction: String?
        /// The only sender it applies to, when one.
        public var sender: String?
        /// Spellings it also catches (`FR3E`, `frее`, `frée`), checked against the folding.
        public var lookAlikes: [TextFolding.LookAlike]
    }

    /// The result of "Try a message".
    public struct Trial: Sendable, Hashable {
        /// The sender as rules see it.
        public var sender: String
        /// `allow`, `junk`, `promotion` or `transaction`.
        public var action: String
        /// The sub-folder, when one.
        public var subAction: String?
        /// The kind of rule that decided (`word`, `sender`, `contact`, `unknown-sender`, `none`, `off`).
        public var ruleKind: String
        /// Why, as a sentence.
        public var explanation: String
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// Whether the SMS guard runs.
        public var enabled: Bool
        /// The region national sender numbers are read in.
        public var region: String
        /// The word rules, by word.
        public var words: [Word]
        /// Blocked senders (E.164, or a sender ID's letters and digits).
        public var blockedSenders: [String]
        /// Whether messages from senders who are not contacts are junk.
        public var unknownSendersAreJunk: Bool
        /// How many contact numbers are kept (shared with calls).
        public var contacts: Int
        /// Filtered messages by folder, today and this week.
        public var counts: [ActivityCount]
    }

    /// The actions a word can have, in the order offered.
    public static let wordActions: [MessageAction] = [.junk, .promotion, .transaction]
    /// The actions that count as "filtered".
    public static let filteredActions = DecisionStore.Action.filteredMessages

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads everything the screen shows.
    public func load(now: Date = Date()) async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do {
                let rules = try state.messageRules()
                let database = state.database
                return State(
                    enabled: rules.enabled, region: try state.phoneRegion(),
                    words: rules.wordRules.map { rule in
                        Word(
                            word: rule.word, action: rule.action.rawValue,
                            subAction: rule.subAction == .none ? nil : rule.subAction.rawValue,
                            sender: rule.sender, lookAlikes: TextFolding.lookAlikeExamples(of: rule.word))
                    }, blockedSenders: rules.blockedSenders.sorted(), unknownSendersAreJunk: rules.contactsOnly,
                    contacts: rules.contacts.count,
                    counts: [
                        try .decisions("Messages to junk", .message, [.junk], database: database, now: now),
                        try .decisions("Messages to promotions", .message, [.promotion], database: database, now: now),
                        try .decisions("Messages to transactions", .message, [.transaction], database: database, now: now),
                        try .decisions("Messages allowed", .message, [.allow], database: database, now: now),
                    ])
            } catch let error as ActionError {
                throw ScreenError(error)
            } catch {
                throw ScreenError("Cannot read the message rules: \(error).")
            }
        }
    }

    /// Switches the SMS guard on or off.
    public func setEnabled(_ on: Bool) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            try state.setMessageFilter(enabled: on)
            return .success(
                on
                    ? "The SMS guard is on: messages are sorted by your rules."
                    : "The SMS guard is off: every message is allowed. Your rules are kept.")
        }
    }

    /// Adds a word or phrase with its action (`junk`, `promotion` or `transaction`).
    public func addWord(_ word: String, action: String) async -> Notice {
        await blocking { () -> Notice in
            guard let action = MessageAction(rawValue: action), Self.wordActions.contains(action) else {
                return .error("Choose junk, promotion or transaction.", field: "action")
            }
            do throws(ActionError) {
                let change = try state.addMessageWord(word, action: action, region: try state.phoneRegion())
                let examples = TextFolding.lookAlikeExamples(of: change.subject).prefix(2)
                let also =
                    examples.isEmpty ? "" : " It also catches \(examples.map { "\"\($0.text)\" (\($0.how))" }.joined(separator: " and "))."
                return .success(
                    (change.changed
                        ? "Messages with \"\(change.subject)\" go to \(action.rawValue)."
                        : "\"\(change.subject)\" now sends messages to \(action.rawValue).")
                        + also)
            } catch {
                return .failure(error, field: "word")
            }
        }
    }

    /// Removes a word rule (`sender`: the rule for that sender).
    public func removeWord(_ word: String, sender: String? = nil) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            let region = try state.phoneRegion()
            _ = try state.removeMessageWord(word, sender: sender?.nilIfEmpty, region: region)
            return .success("Removed \"\(word)\".")
        }
    }

    /// Sends a sender's messages to junk.
    public func blockSender(_ sender: String) async -> Notice {
        await blockingAction(field: "sender") { () throws(ActionError) -> Notice in
            let change = try state.blockSender(sender, region: try state.phoneRegion())
            return change.changed
                ? .success("Messages from \(change.subject) go to junk.") : Notice(.info, "\(change.subject) is already blocked.")
        }
    }

    /// Stops sending a sender's messages to junk.
    public func unblockSender(_ sender: String) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            let change = try state.unblockSender(sender, region: try state.phoneRegion())
            return .success("Messages from \(change.subject) are sorted by your words again.")
        }
    }

    /// Turns "unknown senders are junk" on or off.
    public func setUnknownSendersAreJunk(_ on: Bool) async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            try state.setContactsOnly(on)
            let contacts = try state.messageRules().contacts.count
            if on && contacts == 0 {
                return Notice(.warning, "Every message goes to junk now: no contact is imported yet (Calls › Contacts).")
            }
            return .success(
                on
                    ? "Messages from senders who are not your contacts go to junk."
                    : "Messages from unknown senders are sorted by your words.")
        }
    }

    /// What would happen to a message (not counted).
    public func tryMessage(from sender: String, text: String) async -> Result<Trial, Notice> {
        await blocking { () -> Result<Trial, Notice> in
            guard !sender.trimmingCharacters(in: .whitespaces).isEmpty else {
                return .failure(.error("Give the sender: a number, short code or name such as AMAZON.", field: "try-sender"))
            }
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                return .failure(.error("Type the message to try.", field: "try-text"))
            }
            do throws(ActionError) {
                let check = try state.checkMessage(from: sender, text: text, region: try state.phoneRegion(), record: false)
                let verdict = check.verdict
                let folder = verdict.action == .allow ? "Allowed" : "To \(verdict.action.rawValue)"
                return .success(
                    Trial(
                        sender: check.sender, action: verdict.action.rawValue,
                        subAction: verdict.subAction == .none ? nil : verdict.subAction.rawValue, ruleKind: verdict.rule.kind,
                        explanation: "\(folder): \(verdict.rule.description)."))
            } catch {
                return .failure(.failure(error, field: "try-sender"))
            }
        }
    }
}
