import CallFilter
import Foundation
import GRDB

/// The message-filter rules in the state database: words (for every sender or one), blocked
/// senders, whether "unknown senders" (contacts only) is on and whether the filter runs at all;
/// the contacts themselves are the person's (``ContactStore``), shared with calls.
public struct MessageRuleStore: Sendable {
    private let database: PepperDatabase

    /// The rules of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Everything a `MessageFilter` needs, read in one transaction.
    public func rules() throws -> MessageFilterRules {
        try database.writer.read { db in
            MessageFilterRules(
                blockedSenders: Set(try String.fetchAll(db, sql: "SELECT sender FROM smsSender")),
                wordRules: try Self.words(db),
                contacts: Set(try String.fetchAll(db, sql: "SELECT sender FROM contact")),
                contactsOnly: try String.fetchOne(db, sql: "SELECT value FROM smsSetting WHERE key = 'contactsOnly'") == "on",
                enabled: try String.fetchOne(db, sql: "SELECT value FROM smsSetting WHERE key = 'enabled'") != "off")
        }
    }

    /// The rules' revision: it moves with every change to words, blocked senders, the filter's
    /// settings, the contacts or the phone region (triggers, migration
    /// `v-calls-3-message-rule-revision`), so a filter prepared at one revision is current while
    /// it stays. One row read: cheap enough to ask before every message.
    public func revision() throws -> Int64 {
        try database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT revision FROM messageRuleRevision WHERE id = 1") ?? 0 }
    }

    /// The word rules, sorted by word then sender.
    public func words() throws -> [WordRule] {
        try database.writer.read { db in try Self.words(db) }
    }

    private static func words(_ db: Database) throws -> [WordRule] {
        try Row.fetchAll(db, sql: "SELECT word, action, subAction, sender FROM smsWord ORDER BY folded, sender").map { row in
            let sender: String = row[3]
            return WordRule(
                word: row[0], action: MessageAction(rawValue: row[1]) ?? .junk, subAction: MessageSubAction(rawValue: row[2]) ?? .none,
                sender: sender.isEmpty ? nil : sender)
        }
    }

    /// Adds a word rule, or updates its action; words are identified by their folded form, so
    /// `FREE` and `fr3e` are the same word.
    ///
    /// - Returns: Whether the rule was new.
    @discardableResult
    public func addWord(_ rule: WordRule) throws -> Bool {
        let folded = TextFolding.foldedWords(rule.word)
        return try database.writer.write { db in
            let exists =
                try Bool.fetchOne(db, sql: "SELECT 1 FROM smsWord WHERE folded = ? AND sender = ?", arguments: [folded, rule.sender ?? ""])
                ?? false
            try db.execute(
                sql: """
                    INSERT INTO smsWord (folded, sender, word, action, subAction, addedAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (folded, sender) DO UPDATE SET word = excluded.word, action = excluded.action, subAction = excluded.subAction
                    """,
                arguments: [folded, rule.sender ?? "", rule.word, rule.action.rawValue, rule.subAction.rawValue, Date().stored])
            return !exists
        }
    }

    /// Removes a word rule (for every sender when `sender` is nil, else the rule for that sender).
    @discardableResult
    public func removeWord(_ word: String, sender: String? = nil) throws -> Bool {
        let folded = TextFolding.foldedWords(word)
        return try database.writer.write { db in
            try db.execute(sql: "DELETE FROM smsWord WHERE folded = ? AND sender = ?", arguments: [folded, sender ?? ""])
            return db.changesCount > 0
        }
    }

    /// The blocked senders (`MessageSender` keys), sorted.
    public func blockedSenders() throws -> [String] {
        try database.writer.read { db in try String.fetchAll(db, sql: "SELECT sender FROM smsSender ORDER BY sender") }
    }

    /// Blocks a sender (a `MessageSender` key); returns whether it was new.
    @discardableResult
    public func blockSender(_ key: String) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO smsSender (sender, addedAt) VALUES (?, ?)", arguments: [key, Date().stored])
            return db.changesCount > 0
        }
    }

    /// Unblocks a sender; returns whether it was blocked.
    @discardableResult
    public func unblockSender(_ key: String) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM smsSender WHERE sender = ?", arguments: [key])
            return db.changesCount > 0
        }
    }

    /// Turns "contacts only" (unknown senders are junk) on or off.
    public func setContactsOnly(_ on: Bool) throws {
        try setSetting("contactsOnly", on)
    }

    /// Switches the SMS guard on or off (off: every message is allowed, the rules are kept).
    public func setEnabled(_ on: Bool) throws {
        try setSetting("enabled", on)
    }

    private func setSetting(_ key: String, _ on: Bool) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO smsSetting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, on ? "on" : "off"])
        }
    }
}
