import Foundation
import GRDB

/// Tables for call and message filtering (`docs/calls-and-messages.md`), added by migration
/// `v-calls-1-lists-messages-decisions`.
///
/// - `callEntry`: the current block and identification lists, keyed `(kind, number)` so that
///   `ORDER BY number` per list is an index scan (CallKit's ascending order for free).
/// - `callChange`: every change with the version that made it, so an extension can ask for the
///   changes since the version it loaded last (incremental loads).
/// - `callListState`: the lists' version, bumped by every committed change.
/// - `smsWord`, `smsSender`, `smsContact`, `smsSetting`: message rules.
/// - `decisionCount`, `decisionLog`: what was decided, for `pepper calls stats` / `pepper sms stats`.
/// - `contact` (was `smsContact` until `v-console-2-shared-contacts`): the person's contacts'
///   numbers, for messages ("unknown senders") and calls ("block all except contacts") alike.
enum CallsSchema {
    static func migrate(_ db: Database) throws {
        try db.create(table: "callEntry", options: [.withoutRowID]) { table in
            table.column("kind", .text).notNull()
            table.column("number", .integer).notNull()
            table.column("label", .text)
            table.column("pattern", .text)
            table.column("version", .integer).notNull()
            table.column("addedAt", .datetime).notNull()
            table.primaryKey(["kind", "number"])
        }
        try db.create(table: "callChange", options: [.withoutRowID]) { table in
            table.column("kind", .text).notNull()
            table.column("number", .integer).notNull()
            table.column("version", .integer).notNull()
            table.column("present", .boolean).notNull()
            table.column("label", .text)
            table.primaryKey(["kind", "number", "version"])
        }
        try db.create(index: "callChangeByVersion", on: "callChange", columns: ["kind", "version"])
        try db.create(table: "callListState") { table in
            table.column("id", .integer).primaryKey().check { $0 == 1 }
            table.column("version", .integer).notNull()
        }
        try db.create(table: "smsWord") { table in
            table.column("folded", .text).notNull()
            table.column("sender", .text).notNull().defaults(to: "")
            table.column("word", .text).notNull()
            table.column("action", .text).notNull()
            table.column("subAction", .text).notNull().defaults(to: "none")
            table.column("addedAt", .datetime).notNull()
            table.primaryKey(["folded", "sender"])
        }
        try db.create(table: "smsSender") { table in
            table.primaryKey("sender", .text)
            table.column("addedAt", .datetime).notNull()
        }
        try db.create(table: "smsContact") { table in
            table.primaryKey("sender", .text)
        }
        try db.create(table: "smsSetting") { table in
            table.primaryKey("key", .text)
            table.column("value", .text).notNull()
        }
        try db.create(table: "decisionCount") { table in
            table.column("domain", .text).notNull()
            table.column("action", .text).notNull()
            table.column("ruleKind", .text).notNull()
            table.column("rule", .text).notNull()
            table.column("count", .integer).notNull()
            table.column("lastAt", .datetime).notNull()
            table.primaryKey(["domain", "action", "ruleKind", "rule"])
        }
        try db.create(table: "decisionLog") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("domain", .text).notNull()
            table.column("at", .datetime).notNull()
            table.column("subject", .text).notNull()
            table.column("action", .text).notNull()
            table.column("ruleKind", .text).notNull()
            table.column("rule", .text)
        }

        // The defaults of a fresh state (`docs/calls-and-messages.md`), as version 1 of the lists.
        let now = Date().stored
        try db.execute(sql: "INSERT INTO callListState (id, version) VALUES (1, 1)")
        for (kind, number, label) in [("block", Int64(12_539_501_212), nil), ("identify", Int64(14_259_501_212), "Suspicious")]
            as [(String, Int64, String?)]
        {
            try db.execute(
                sql: "INSERT INTO callEntry (kind, number, label, version, addedAt) VALUES (?, ?, ?, 1, ?)",
                arguments: [kind, number, label, now])
            try db.execute(
                sql: "INSERT INTO callChange (kind, number, version, present, label) VALUES (?, ?, 1, 1, ?)",
                arguments: [kind, number, label])
        }
        for word in ["free", "won"] {
            try db.execute(
                sql: "INSERT INTO smsWord (folded, sender, word, action, subAction, addedAt) VALUES (?, '', ?, 'junk', 'none', ?)",
                arguments: [word, word, now])
        }
    }

    /// `v-calls-2-change-history-floor`: `callListState.compactedThrough`, the oldest version
    /// incremental loads can start from once old change history is compacted.
    static func addCompactionFloor(_ db: Database) throws {
        try db.alter(table: "callListState") { table in
            table.add(column: "compactedThrough", .integer).notNull().defaults(to: 0)
        }
    }

    /// One contact list for calls and messages: the table that held the message filter's
    /// contacts becomes `contact` (migration `v-console-2-shared-contacts`).
    static func shareContacts(_ db: Database) throws {
        try db.rename(table: "smsContact", to: "contact")
    }

    /// `v-calls-3-message-rule-revision`: `messageRuleRevision.revision`, bumped by triggers on
    /// every change to what the message filter prepares — words, blocked senders, its settings,
    /// the contacts and the phone region — whichever code or process makes it, so the message
    /// filter prepares its rules again only when they changed. The call block list is not
    /// counted: the filter looks each sender up in it (``CallListStore/blockList()``).
    static func addMessageRuleRevision(_ db: Database) throws {
        try db.create(table: "messageRuleRevision") { table in
            table.column("id", .integer).primaryKey().check { $0 == 1 }
            table.column("revision", .integer).notNull()
        }
        try db.execute(sql: "INSERT INTO messageRuleRevision (id, revision) VALUES (1, 1)")
        let bump = "UPDATE messageRuleRevision SET revision = revision + 1 WHERE id = 1"
        for table in ["smsWord", "smsSender", "smsSetting", "contact"] {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(
                    sql: "CREATE TRIGGER messageRuleRevision_\(table)_\(event.lowercased()) AFTER \(event) ON \(table) BEGIN \(bump); END")
            }
        }
        // Of the preferences, only the region reads senders' numbers.
        let region = "'\(PreferenceStore.Key.phoneRegion.rawValue)'"
        for (event, row) in [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")] {
            try db.execute(
                sql: """
                    CREATE TRIGGER messageRuleRevision_preference_\(event.lowercased()) AFTER \(event) ON preference
                    WHEN \(row).key = \(region) BEGIN \(bump); END
                    """)
        }
    }
}
