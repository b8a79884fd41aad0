import CallFilter
import Foundation
import Storage

/// A change to the message rules.
public struct MessageRuleChange: Sendable, Hashable {
    /// The word or sender as stored (a sender as its key: E.164, or letters and digits).
    public var subject: String
    /// Whether something changed (`false`: it was there already, or the action is the same).
    public var changed: Bool
}

/// A message decision, for `pepper sms check` and the console's "Try a message".
public struct MessageCheck: Sendable, Hashable {
    /// The sender as rules see it.
    public var sender: String
    /// What happens, and which rule decided.
    public var verdict: MessageVerdict
}

extension PepperState {
    /// The message-filter rules as stored.
    public func messageRules() throws(ActionError) -> MessageFilterRules {
        do {
            return try MessageRuleStore(database: database).rules()
        } catch {
            throw .storage("cannot read the message rules: \(error)")
        }
    }

    /// The message filter's handler as the extension runs it: the stored rules, with senders
    /// looked up in the call block list (`pepper sms classify`, ``checkMessage(from:text:region:record:contacts:)``).
    public func messageFilterHandler(
        region: String?, rules: MessageFilterRules? = nil
    ) throws(ActionError) -> MessageFilterHandler {
        let stored: MessageFilterRules
        if let rules { stored = rules } else { stored = try messageRules() }
        do {
            return try MessageFilterHandler(
                rules: stored, defaultRegion: region, callBlockList: CallListStore(database: database).blockList())
        } catch {
            throw .invalidNumber(input: region ?? "", problem: .unknownRegion(region ?? ""))
        }
    }

    /// Adds a word or phrase (or changes its action); `sender`, when given, limits it to messages
    /// from that sender.
    public func addMessageWord(
        _ word: String, action: MessageAction, subAction: MessageSubAction = .none, sender: String? = nil, region: String
    ) throws(ActionError) -> MessageRuleChange {
        try FieldLimits.check(
            word.trimmingCharacters(in: .whitespacesAndNewlines), field: "word", what: "a word or phrase", limit: FieldLimits.word)
        let trimmed = word.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !TextFolding.foldedWords(trimmed).isEmpty else {
            throw .invalidMessageRule(.nothingToMatch(word: word))
        }
        guard action != .allow else { throw .invalidMessageRule(.allowIsNotAFolder) }
        guard subAction == .none || subAction.action == action else {
            throw .invalidMessageRule(.folderOfAnotherAction(folder: subAction.rawValue, action: action.rawValue))
        }
        let senderKey = try sender.map { (text: String) throws(ActionError) -> String in try Self.senderKey(text, region: region) }
        do {
            let added = try MessageRuleStore(database: database).addWord(
                WordRule(word: trimmed, action: action, subAction: subAction, sender: senderKey))
            return MessageRuleChange(subject: trimmed, changed: added)
        } catch {
            throw .storage("cannot save the word: \(error)")
        }
    }

    /// Removes a word rule (the one for `sender` when given).
    ///
    /// - Throws: ``ActionError/invalidMessageRule(_:)`` when there is no such rule.
    public func removeMessageWord(_ word: String, sender: String? = nil, region: String) throws(ActionError) -> MessageRuleChange {
        try FieldLimits.check(word, field: "word", what: "a word or phrase", limit: FieldLimits.word)
        let senderKey = try sender.map { (text: String) throws(ActionError) -> String in try Self.senderKey(text, region: region) }
        let removed: Bool
        do {
            removed = try MessageRuleStore(database: database).removeWord(word, sender: senderKey)
        } catch {
            throw .storage("cannot remove the word: \(error)")
        }
        guard removed else { throw .invalidMessageRule(.notAWordRule(word: word, sender: senderKey)) }
        return MessageRuleChange(subject: word, changed: true)
    }

    /// Treats a sender's messages as junk.
    public func blockSender(_ sender: String, region: String) throws(ActionError) -> MessageRuleChange {
        let key = try Self.senderKey(sender, region: region)
        do {
            return MessageRuleChange(subject: key, changed: try MessageRuleStore(database: database).blockSender(key))
        } catch {
            throw .storage("cannot block the sender: \(error)")
        }
    }

    /// Stops treating a sender's messages as junk.
    ///
    /// - Throws: ``ActionError/invalidMessageRule(_:)`` when the sender is not blocked.
    public func unblockSender(_ sender: String, region: String) throws(ActionError) -> MessageRuleChange {
        let key = try Self.senderKey(sender, region: region)
        let removed: Bool
        do {
            removed = try MessageRuleStore(database: database).unblockSender(key)
        } catch {
            throw .storage("cannot unblock the sender: \(error)")
        }
        guard removed else { throw .invalidMessageRule(.senderNotBlocked(key)) }
        return MessageRuleChange(subject: key, changed: true)
    }

    /// Turns "unknown senders are junk" (contacts only) on or off.
    public func setContactsOnly(_ on: Bool) throws(ActionError) {
        do {
            try MessageRuleStore(database: database).setContactsOnly(on)
        } catch {
            throw .storage("cannot change the message settings: \(error)")
        }
    }

    /// Switches the SMS guard on or off.
    public func setMessageFilter(enabled: Bool) throws(ActionError) {
        do {
            try MessageRuleStore(database: database).setEnabled(enabled)
        } catch {
            throw .storage("cannot change the message settings: \(error)")
        }
    }

    /// Classifies a message as the message-filter extension would, recorded for the counts
    /// unless `record` is false. `contacts`, when given, is a vCard file's text whose numbers are
    /// the contacts for this check only (the stored rules are not changed).
    public func checkMessage(
        from sender: String, text: String, region: String, record: Bool = true, contacts: String? = nil
    ) throws(ActionError) -> MessageCheck {
        let parser = try Self.numberParser(region: region)
        var rules = try messageRules()
        if let contacts { rules.contacts = VCardContacts.senderKeys(contacts, parser: parser) }
        let verdict = try messageFilterHandler(region: region, rules: rules).verdict(
            for: MessageFilterQuery(sender: sender, messageBody: text))
        let decision = Self.messageDecision(verdict, sender: sender, parser: parser)
        if record { try recordDecisions([decision]) }
        return MessageCheck(sender: decision.subject, verdict: verdict)
    }

    /// Counts message decisions made elsewhere (`pepper sms classify` runs the extension's own
    /// handler over many messages), as ``checkMessage(from:text:region:record:contacts:)`` counts
    /// its own: each sender as rules see it, read in `region`.
    public func recordMessageDecisions(_ decisions: [(sender: String, verdict: MessageVerdict)], region: String) throws(ActionError) {
        let parser = try Self.numberParser(region: region)
        try recordDecisions(decisions.map { Self.messageDecision($0.verdict, sender: $0.sender, parser: parser) })
    }

    /// How a message decision is counted: the sender as rules see it (as given when it has no
    /// letters or digits), the action and the rule that decided.
    static func messageDecision(_ verdict: MessageVerdict, sender: String, parser: PhoneNumberParser) -> DecisionStore.Decision {
        let key = MessageSender.key(sender, parser: parser)
        return DecisionStore.Decision(
            domain: .message, subject: key.isEmpty ? sender : key, action: DecisionStore.Action(verdict.action),
            ruleKind: verdict.rule.kind, rule: verdict.rule.value)
    }

    private func recordDecisions(_ decisions: [DecisionStore.Decision]) throws(ActionError) {
        do {
            try DecisionStore(database: database).record(decisions)
        } catch {
            throw .storage("cannot record the decision: \(error)")
        }
    }

    /// The key rules use for `sender`.
    static func senderKey(_ sender: String, region: String) throws(ActionError) -> String {
        try FieldLimits.check(sender, field: "sender", what: "a sender", limit: FieldLimits.sender)
        let key = MessageSender.key(sender, parser: try numberParser(region: region))
        guard !key.isEmpty else { throw .invalidNumber(input: sender, problem: .notASender) }
        return key
    }
}
